"""Issue 6, item 7: `breaklint lsp` against a hostile or broken client. Malformed JSON-RPC,
unknown methods, requests about documents never opened, out-of-range positions and odd texts
get an answer as the protocol says (or are ignored, for notifications) and the server keeps
serving; a client that disappears makes it exit. Nothing may hang: every wait has a timeout."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest

pytest.importorskip("pygls")

from .lsp_client import RawLsp  # noqa: E402
from .support import BAD  # noqa: E402
from testdata import HANG_GUARD_S  # noqa: E402

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_text(BAD, encoding="utf-8")
    return tmp_path


@pytest.fixture
def server(tree: Path) -> Iterator[RawLsp]:
    client = RawLsp(tree)
    try:
        yield client
    finally:
        client.close()


def still_serving(server: RawLsp, tree: Path) -> None:
    """The proof of life: a document opened now gets its diagnostics."""
    uri = server.open(tree / "good.py")
    assert [d["code"] for d in server.diagnostics(uri)] == ["BL101"]


def test_a_hostile_client_is_answered_and_survived(server: RawLsp, tree: Path) -> None:
    """One session, in order: a request before `initialize`; bodies that are not JSON, not an
    object, or hold params of the wrong shape (pygls shows an error message); unknown methods;
    requests and notifications about documents never opened; odd documents and positions. After
    each the server still serves."""
    early = server.request("textDocument/hover", {"textDocument": {"uri": (tree / "good.py").as_uri()},
                                                  "position": {"line": 0, "character": 0}}, timeout=HANG_GUARD_S)
    assert "error" in early or early.get("result") is None
    server.initialize(tree)

    server.send_raw(b"{not json at all")
    shown = server.wait(lambda m: m.get("method") == "window/showMessage" or "error" in m, timeout=HANG_GUARD_S)
    assert "error" in shown or "Expecting property name" in shown["params"]["message"]
    server.send_raw(b"[1, 2, 3]")
    server.send_raw(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 7}}')
    server.send_raw('{"jsonrpc": "2.0", "method": "$/weird", "params": "\u00e9\u00e8"}'.encode())
    server.send_raw(b'{"jsonrpc": "2.0", "id": 50, "method": "textDocument/hover", "params": 5}')
    still_serving(server, tree)

    assert server.request("breaklint/noSuchMethod", {"x": 1}, timeout=HANG_GUARD_S)["error"]["code"] == METHOD_NOT_FOUND
    server.notify("breaklint/noSuchNotification", {"x": 1})  # notifications get no answer
    server.notify("$/cancelRequest", {"id": 12345})  # cancelling nothing

    ghost = (tree / "ghost.py").as_uri()
    server.notify("textDocument/didChange", {"textDocument": {"uri": ghost, "version": 2},
                                             "contentChanges": [{"text": "x = 1\n"}]})
    server.notify("textDocument/didSave", {"textDocument": {"uri": ghost}})
    server.notify("textDocument/didClose", {"textDocument": {"uri": ghost}})
    hover = server.request("textDocument/hover", {"textDocument": {"uri": ghost},
                                                  "position": {"line": 0, "character": 0}}, timeout=HANG_GUARD_S)
    assert "result" in hover or "error" in hover
    everywhere = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
    actions = server.request("textDocument/codeAction", {
        "textDocument": {"uri": ghost}, "range": everywhere, "context": {"diagnostics": []}}, timeout=HANG_GUARD_S)
    assert "result" in actions or "error" in actions

    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": "untitled:Untitled-1", "languageId": "python", "version": 1, "text": BAD}})
    broken = server.open(tree / "broken.py", text="def f(:\n\x00 é😀\n")
    codes = [d["code"] for d in server.diagnostics(broken)]
    assert codes and set(codes) <= {"BL001", "BL003"}, codes
    server.diagnostics(server.open(tree / "deep.py", text="x = " + "(" * 300 + ")" * 300 + "\n" + BAD))
    uri = server.open(tree / "good.py")
    server.diagnostics(uri)
    far = {"line": 10 ** 6, "character": 10 ** 6}
    assert server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": far},
                          timeout=HANG_GUARD_S).get("result") is None
    quick = server.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": far, "end": far},
        "context": {"diagnostics": [{"range": {"start": far, "end": far}, "message": "x", "code": "BL101",
                                     "source": "breaklint"}]}}, timeout=HANG_GUARD_S)
    assert "error" in quick or quick["result"] in (None, [])
    still_serving(server, tree)
    assert server.shutdown() == 0


def test_malformed_requests_get_error_responses(server: RawLsp, tree: Path) -> None:
    server.initialize(tree)
    server.send_raw(b'{"jsonrpc": "2.0", "id": 50, "method": "textDocument/hover", "params": 5}')
    answer = server.wait(lambda m: m.get("id") == 50, timeout=HANG_GUARD_S)
    assert answer["error"]["code"] in (INVALID_PARAMS, INVALID_REQUEST)
    server.send_raw(b"{not json at all")
    error = server.wait(lambda m: "error" in m and m.get("id") is None, timeout=HANG_GUARD_S)
    assert error["error"]["code"] == PARSE_ERROR


def test_a_buffer_with_a_lone_surrogate(server: RawLsp, tree: Path) -> None:
    server.initialize(tree)
    uri = server.open(tree / "surrogate.py", text=BAD + "name = '\ud800'\n")
    codes = [d["code"] for d in server.diagnostics(uri, timeout=HANG_GUARD_S)]
    assert codes == ["BL002"] or codes == ["BL101"]


def _exits_within(server: RawLsp, seconds: float = HANG_GUARD_S) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            return server.process.returncode
        time.sleep(0.1)
    raise AssertionError(f"the server still runs {seconds} s after its client went away")


def test_client_disappears_while_idle(server: RawLsp, tree: Path) -> None:
    server.initialize(tree)
    still_serving(server, tree)
    assert server.process.stdin is not None
    server.process.stdin.close()  # the editor crashed: end of input, no shutdown, no exit
    _exits_within(server)


def test_client_disappears_mid_check(server: RawLsp, tree: Path) -> None:
    """Gone while a check runs on the worker thread and mid-message: the server still exits."""
    server.initialize(tree)
    big = BAD + "".join(f"\n\n@torch.compile\ndef g{i}(x):\n    return x.sum().item()\n" for i in range(150))
    server.open(tree / "big.py", text=big)
    server.send_raw(b'{"jsonrpc": "2.0", "id": 9', length=500)  # a header promising more than comes
    assert server.process.stdin is not None
    server.process.stdin.close()
    _exits_within(server)


def test_exit_without_shutdown_is_code_1(server: RawLsp, tree: Path) -> None:
    server.initialize(tree)
    server.notify("exit")
    assert _exits_within(server) == 1  # the protocol: exit without shutdown -> 1
