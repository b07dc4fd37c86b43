"""How long after an edit the editor gets breaklint's diagnostics, on a 3,000-line file.

    python benchmarks/lsp_latency.py [--lines 3000] [--edits 10] [--baseline DIR] [--rounds 2]

A real LSP client (pygls's) starts `breaklint lsp` over stdio in a temporary project (a model file
of about --lines lines, every class an nn.Module whose forward is a compiled region, plus a
train.py that compiles the model), opens the file, then sends --edits unsaved edits one after
another. Each edit toggles a `.item()` in the middle of the file; the latency is the time from
sending `didChange` to receiving `publishDiagnostics` for that version, with the right findings.
It includes the server's debounce (breaklint.lsp.server.DEBOUNCE_S). Not a test: the machine decides.

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
        self.arrived: dict[int, tuple[float, int]] = {}
        self.event = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
            if params.version is not None:
                self.arrived[params.version] = (time.perf_counter(), len(params.diagnostics))
                self.event.set()

    async def wait_version(self, version: int, timeout: float = 600) -> tuple[float, int]:
        while version not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), timeout)
        return self.arrived[version]


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
        await client.start_io(sys.executable, "-m", "breaklint", "lsp", cwd=tmp, env=env)
        await client.initialize_async(types.InitializeParams(
            process_id=os.getpid(), root_uri=root.as_uri(), capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")]))
        client.initialized(types.InitializedParams())

        started = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=source)))
        opened_at, _ = await client.wait_version(1)
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
    """Where one re-check after the edit goes, in-process (medians): what parsing and indexing
    the whole file would cost, then what the server does — reparse the edited statement, index
    again what changed, and the rules (regions, positions, one finding)."""
    import libcst as cst

    from breaklint.index.project import build_module_index
    from breaklint.reindex import build_index
    from breaklint.reparse import reparse
    from breaklint.index.source import ParsedFile
    from breaklint.lsp.workspace import load_project

    timings: dict[str, list[float]] = {"whole-file parse": [], "whole-file index": [], "reparse": [],
                                       "reindex": [], "rules": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = model_source(lines)
        flagged = _flag(source)
        (root / "model.py").write_text(source, encoding="utf-8")
        (root / "train.py").write_text("import torch\nfrom model import Model\n\nm = torch.compile(Model())\n")
        project, _ = load_project(root)
        path = root / "model.py"
        for _ in range(repeat):
            project.check([path], {path: source})
            project.prepare([path])
            started = time.perf_counter()
            tree = cst.parse_module(flagged)
            timings["whole-file parse"].append(time.perf_counter() - started)
            started = time.perf_counter()
            build_module_index(ParsedFile(path, "model.py", "model", False, flagged, tree))
            timings["whole-file index"].append(time.perf_counter() - started)
            entry = project._index[path]
            assert entry.parse is not None
            started = time.perf_counter()
            parse = reparse(entry.parse, flagged, ("model", False))
            timings["reparse"].append(time.perf_counter() - started)
            assert parse is not None, "the edit was not reparsed alone"
            started = time.perf_counter()
            build_index(ParsedFile(path, "model.py", "model", False, flagged, parse.tree), entry.added)
            timings["reindex"].append(time.perf_counter() - started)
            project.check([path], {path: flagged})  # index this text first: time the rules alone
            module = project._index[path].result
            module.file._positions = None  # type: ignore[union-attr]
            module.file._chunks.clear()  # type: ignore[union-attr]
            started = time.perf_counter()
            found = project.check([path], {path: flagged})
            timings["rules"].append(time.perf_counter() - started)
            assert len(found[path]) == 1
    return {key: statistics.median(values) for key, values in timings.items()}


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
    args = parser.parse_args()
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
