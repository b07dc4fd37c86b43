"""A minimal JSON-RPC client for `breaklint lsp` over stdio, raw enough to send it garbage."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from testdata import HANG_GUARD_S

from .support import breaklint_command


class RawLsp:
    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen([*breaklint_command(), "lsp"], cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    # --- the wire ------------------------------------------------------------------------------
    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while True:
                headers: dict[str, str] = {}
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = stream.read(int(headers["content-length"]))
                self.messages.put(json.loads(body))
        finally:
            self.messages.put(None)  # the server closed its output

    def send_raw(self, payload: bytes, length: int | None = None) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % (len(payload) if length is None else length) + payload)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    # --- requests and notifications ------------------------------------------------------------
    def request(self, method: str, params: Any = None, timeout: float = HANG_GUARD_S) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        self.send({"id": ident, "method": method, **({"params": params} if params is not None else {})})
        return self.wait(lambda m: m.get("id") == ident and "method" not in m, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, **({"params": params} if params is not None else {})})

    def wait(self, predicate: Any, timeout: float = HANG_GUARD_S) -> dict[str, Any]:
        for message in self.seen:
            if predicate(message):
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such message from the server")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no such message from the server") from None
            if message is None:
                raise EOFError("the server closed its output")
            if message.get("method") in ("client/registerCapability", "workspace/configuration") and "id" in message:
                self.send({"id": message["id"], "result": None})  # answer the server's own requests
            if predicate(message):
                return message
            self.seen.append(message)

    def diagnostics(self, uri: str, timeout: float = HANG_GUARD_S) -> list[dict[str, Any]]:
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri, timeout)
        return message["params"]["diagnostics"]

    def initialize(self, root: Path) -> dict[str, Any]:
        answer = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                             "workspaceFolders": [{"uri": root.as_uri(), "name": "tree"}]})
        self.notify("initialized", {})
        return answer

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": version,
            "text": path.read_text(encoding="utf-8") if text is None else text}})
        return uri

    def shutdown(self, timeout: float = HANG_GUARD_S) -> int:
        """shutdown, exit; the exit status of the server."""
        self.request("shutdown", timeout=timeout)
        self.notify("exit")
        return self.process.wait(timeout=timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=HANG_GUARD_S)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def diagnostics_on_disk_and_in_a_buffer(root: Path, on_disk: Path, text: str) -> list[list[dict[str, Any]]]:
    """What a fresh server publishes for `on_disk` opened from disk, then for `text` opened as an
    unsaved buffer (`buffer.py` beside it): one verdict for one text, whichever way it comes."""
    server = RawLsp(root)
    try:
        server.initialize(root)
        from_disk = server.diagnostics(server.open(on_disk))
        edited = server.diagnostics(server.open(root / "buffer.py", text=text))
        assert server.shutdown() == 0
    finally:
        server.close()
    return [from_disk, edited]
