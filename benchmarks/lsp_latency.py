"""How long the editor waits for breaklint's diagnostics: on opening a file and after an edit.

    python benchmarks/lsp_latency.py [--lines 3000] [--edits 10] [--baseline DIR] [--rounds 2]
    python benchmarks/lsp_latency.py --tree /path/to/site-packages/timm --file models/resnet.py

A real LSP client (pygls's) starts `breaklint lsp` over stdio. By default the project is made up:
a model file of about --lines lines (every class an nn.Module whose forward is a compiled
region) and a train.py that compiles the model; the client opens the file, then sends --edits
unsaved edits, each toggling a `.item()` in the middle of the file; the latency is the time from
`didChange` to `publishDiagnostics` for that version, with the right findings. It includes the
server's debounce (breaklint.lsp.server.DEBOUNCE_S). With --tree, a copy of a real tree is the
workspace (no cache at first): the first diagnostics for --file with no cache, the edits (a
comment toggled on a `return` in the middle of the file), then a second session on the same copy (the cache the
first one wrote): the first diagnostics warm. Not a test: the machine decides.

With --baseline DIR (a checkout of another commit, e.g. `git archive HEAD~3 | tar -x -C DIR`),
the server from DIR and the one from this tree take turns, --rounds times each, on the same
machine at the same time, so that their numbers can be compared: the load changes them alike.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BLOCK = '''class Block{i}(nn.Module):
    """Residual MLP block {i}."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.scale = 0.5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.up(self.norm(x))
        if x.dim() == 3:
            h = F.gelu(h)
        h = self.down(h) * self.scale
        return x + h


'''


def model_source(lines: int) -> str:
    head = "import torch\nfrom torch import nn\nfrom torch.nn import functional as F\n\n\n"
    # head: 5 lines; a block: 18; the model: 8 lines plus 2 a block (its submodule and its call)
    count = max((lines - 13) // 20, 1)
    blocks = [BLOCK.format(i=i) for i in range(count)]
    calls = "\n".join(f"        x = self.b{i}(x)" for i in range(count))
    subs = "\n".join(f"        self.b{i} = Block{i}(dim)" for i in range(count))
    model = (f"class Model(nn.Module):\n    def __init__(self, dim: int = 64) -> None:\n        super().__init__()\n"
             f"{subs}\n\n    def forward(self, x: torch.Tensor) -> torch.Tensor:\n{calls}\n        return x\n")
    return head + "".join(blocks) + model


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("breaklint-bench", "1")
        self.arrived: dict[int, tuple[float, int]] = {}  # the first publication of each version
        self.last: dict[int, tuple[float, int]] = {}  # the latest one
        self.progress: dict[str, bool] = {}  # work-done progress tokens the server made: ended?
        self.event = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
            if params.version is not None:
                self.arrived.setdefault(params.version, (time.perf_counter(), len(params.diagnostics)))
                self.last[params.version] = (time.perf_counter(), len(params.diagnostics))
                self.event.set()

        @self.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create(client: Client, params: types.WorkDoneProgressCreateParams) -> None:
            self.progress[str(params.token)] = False

        @self.feature(types.PROGRESS)
        def progress(client: Client, params: types.ProgressParams) -> None:
            if isinstance(params.value, dict) and params.value.get("kind") == "end" or \
                    isinstance(params.value, types.WorkDoneProgressEnd):
                self.progress[str(params.token)] = True
                self.event.set()

    async def serve(self, root: Path, env: dict[str, str]) -> None:
        """Start `breaklint lsp` in `root` and initialize it with that folder."""
        await self.start_io(sys.executable, "-m", "breaklint", "lsp", cwd=str(root), env=env)
        await self.initialize_async(types.InitializeParams(
            process_id=os.getpid(), root_uri=root.as_uri(),
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")]))
        self.initialized(types.InitializedParams())

    async def open(self, uri: str, text: str) -> tuple[float, int]:
        """Open a document; when its first diagnostics came, and how many."""
        self.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=text)))
        return await self.wait_version(1)

    async def wait_version(self, version: int, timeout: float = 600) -> tuple[float, int]:
        while version not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), timeout)
        return self.arrived[version]

    async def wait_final(self, version: int, timeout: float = 600) -> tuple[float, int]:
        """The last publication of `version` once the server's indexing progress (if it made
        one before publishing: it asks first) has ended: the whole workspace's diagnostics."""
        await self.wait_version(version, timeout)
        while not all(self.progress.values()):
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), timeout)
        return self.last[version]


async def measure(lines: int, edits: int, server_path: str | None = None) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = model_source(lines)
        (root / "model.py").write_text(source, encoding="utf-8")
        (root / "train.py").write_text("import torch\nfrom model import Model\n\nm = torch.compile(Model())\n")
        uri = (root / "model.py").as_uri()
        client = Client()
        env = dict(os.environ)
        if server_path is not None:  # that checkout's breaklint, not this one's
            env["PYTHONPATH"] = os.pathsep.join([server_path, *filter(None, [env.get("PYTHONPATH")])])
        await client.serve(root, env)
        started = time.perf_counter()
        opened_at, _ = await client.open(uri, source)
        first = opened_at - started

        source_lines = source.split("\n")
        target = _target(source_lines)
        debounce = server_debounce(env)
        latencies: list[float] = []
        hovers: list[float] = []
        for n in range(edits):
            version = n + 2
            flagged = n % 2 == 0  # toggle a finding in the middle of the file
            changed = source_lines.copy()
            if flagged:
                changed[target] = "        return x + h * h.sum().item()"
            sent = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="\n".join(changed))]))
            # While that check runs on the worker, the server still answers requests.
            await asyncio.sleep(debounce + 0.1)
            asked = time.perf_counter()
            await client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=target, character=8)))
            answered = time.perf_counter()
            arrived, count = await client.wait_version(version)
            assert count == (1 if flagged else 0), f"version {version}: {count} diagnostics"
            latencies.append(arrived - sent)
            if answered < arrived:  # the hover was answered during the check
                hovers.append(answered - asked)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return {"lines": len(source_lines), "first": first, "latencies": latencies, "hovers": hovers,
            "debounce": debounce}


def server_debounce(env: dict[str, str]) -> float:
    """The debounce of the server that `env` starts (DEBOUNCE_S of its breaklint.lsp.server)."""
    out = subprocess.run([sys.executable, "-c", "from breaklint.lsp.server import DEBOUNCE_S; print(DEBOUNCE_S)"],
                         env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return float(out.stdout)


def breakdown(lines: int, repeat: int = 3) -> dict[str, float]:
    """Where one re-check after the edit goes, in-process (medians): libcst's parse of the
    whole file (the floor of a re-check that parses it), the ast index of it, and the server's
    whole re-check (index, regions, libcst, rules, from the session's cache otherwise)."""
    import libcst as cst

    from breaklint.index.builder import summarize
    from breaklint.lsp.workspace import load_project

    timings: dict[str, list[float]] = {"whole-file libcst parse": [], "whole-file ast index": [], "re-check": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = model_source(lines)
        flagged = _flag(source)
        (root / "model.py").write_text(source, encoding="utf-8")
        (root / "train.py").write_text("import torch\nfrom model import Model\n\nm = torch.compile(Model())\n")
        project, _ = load_project(root)
        path = root / "model.py"
        project.check([path], {path: source})
        for n in range(repeat):
            started = time.perf_counter()
            cst.parse_module(flagged)
            timings["whole-file libcst parse"].append(time.perf_counter() - started)
            started = time.perf_counter()
            summarize(flagged, "model", False)
            timings["whole-file ast index"].append(time.perf_counter() - started)
            text = flagged + f"\n# edit {n}\n"  # a text the session has not seen
            started = time.perf_counter()
            found = project.check([path], {path: text})
            timings["re-check"].append(time.perf_counter() - started)
            assert len(found[path]) == 1
    return {key: statistics.median(values) for key, values in timings.items()}


async def measure_tree(tree: Path, relative: str, edits: int, fresh: bool = False) -> dict[str, object]:
    """A copy of a real tree: open `relative` cold, edit it, then open it again in a new session."""
    import shutil

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / tree.name
        shutil.copytree(tree, root, ignore=shutil.ignore_patterns("__pycache__", ".breaklint_cache"))
        path = root / relative
        source = path.read_text(encoding="utf-8")
        results: dict[str, object] = {"lines": source.count("\n") + 1}
        for session in ("cold", "warm"):
            client = Client()
            await client.serve(root, dict(os.environ))
            started = time.perf_counter()
            opened_at, first_count = await client.open(path.as_uri(), source)
            final_at, count = await client.wait_final(1)
            results[f"first {session}"] = opened_at - started
            results[f"final {session}"] = final_at - started
            results[f"first count {session}"] = first_count
            results["diagnostics"] = count
            if session == "cold":
                latencies = []
                lines = source.split("\n")
                middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].strip().startswith("return "))
                for n in range(edits):  # a comment typed at the end of a `return` in the middle, and taken back
                    # (--fresh: a new comment each time, so that no check is answered from the cache)
                    comment = f"  # edit {n}" if fresh else "  # edited"
                    edited = [*lines[:middle], lines[middle] + comment, *lines[middle + 1:]]
                    text = "\n".join(edited if fresh or n % 2 == 0 else lines)
                    sent = time.perf_counter()
                    client.text_document_did_change(types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=n + 2),
                        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
                    arrived, edited = await client.wait_version(n + 2)
                    assert edited == count, f"edit {n}: {edited} diagnostics, {count} before"
                    latencies.append(arrived - sent)
                results["latencies"] = latencies
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
        results["debounce"] = server_debounce(dict(os.environ))
    return results


def _flag(source: str) -> str:
    """The edit the client makes: a `.item()` in the middle of the file."""
    lines = source.split("\n")
    target = _target(lines)
    return "\n".join([*lines[:target], "        return x + h * h.sum().item()", *lines[target + 1:]])


def _target(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if line.strip() == "return x + h" and i > len(lines) // 2)


def report(name: str, results: list[dict[str, object]]) -> None:
    latencies = [x for r in results for x in r["latencies"]]  # type: ignore[attr-defined]
    flagged = [x for r in results for x in r["latencies"][0::2]]  # type: ignore[index]
    clean = [x for r in results for x in r["latencies"][1::2]]  # type: ignore[index]
    hovers = [x for r in results for x in r["hovers"]]  # type: ignore[attr-defined]
    firsts = [r["first"] for r in results]
    print(f"{name}: debounce {results[0]['debounce']:.2f} s (included below)")
    print(f"  open -> first diagnostics (cold project index): {', '.join(f'{x:.2f}' for x in firsts)} s")  # type: ignore[str-format]
    print(f"  edit -> diagnostics over {len(latencies)} edits: min {min(latencies):.2f} s, "
          f"median {statistics.median(latencies):.2f} s, max {max(latencies):.2f} s "
          f"(median {statistics.median(flagged):.2f} s with a finding, "
          f"{statistics.median(clean) if clean else float('nan'):.2f} s without)")
    if hovers:
        print(f"  hover during a check ({len(hovers)} of {len(latencies)}): "
              f"median {statistics.median(hovers) * 1000:.0f} ms, max {max(hovers) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--baseline", help="a checkout of another commit whose server to compare with")
    parser.add_argument("--rounds", type=int, default=1, help="sessions per server (taking turns)")
    parser.add_argument("--tree", type=Path, help="a real tree to open a file of (copied; no cache at first)")
    parser.add_argument("--file", help="with --tree: the file to open, relative to the tree")
    parser.add_argument("--fresh", action="store_true",
                        help="with --tree: every edit a text not seen before (none answered from the cache)")
    args = parser.parse_args()
    if args.tree is not None:
        found = asyncio.run(measure_tree(args.tree.resolve(), args.file, args.edits, args.fresh))
        latencies = found["latencies"]
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
              f"load average {os.getloadavg()[0]:.1f}")
        print(f"{args.tree.name}/{args.file}: {found['lines']} lines, {found['diagnostics']} diagnostics; "
              f"debounce {found['debounce']:.2f} s (included in the edits)")
        print(f"  open -> first diagnostics: no cache {found['first cold']:.2f} s "
              f"({found['first count cold']} diagnostics), warm {found['first warm']:.2f} s")
        print(f"  open -> final diagnostics (the whole workspace indexed): no cache {found['final cold']:.2f} s, "
              f"warm {found['final warm']:.2f} s")
        print(f"  edit -> diagnostics over {len(latencies)} edits: min {min(latencies):.2f} s, "  # type: ignore[arg-type]
              f"median {statistics.median(latencies):.2f} s, max {max(latencies):.2f} s")  # type: ignore[arg-type]
        print(f"  each edit: {', '.join(f'{x:.2f}' for x in latencies)} s")  # type: ignore[attr-defined]
        return
    servers = {"this tree": None, **({f"baseline {args.baseline}": args.baseline} if args.baseline else {})}
    results: dict[str, list[dict[str, object]]] = {name: [] for name in servers}
    for _ in range(args.rounds):
        for name, path in servers.items():
            results[name].append(asyncio.run(measure(args.lines, args.edits, path)))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average before the end {os.getloadavg()[0]:.1f}")
    print(f"file: {results['this tree'][0]['lines']} lines")
    for name in servers:
        report(name, results[name])
    parts = ", ".join(f"{key} {seconds:.3f} s" for key, seconds in breakdown(args.lines).items())
    print(f"one re-check in-process, this tree (median): {parts}")


if __name__ == "__main__":
    main()
