"""How long after an edit the editor gets breaklint's diagnostics, on a 3,000-line file.

    python benchmarks/lsp_latency.py [--lines 3000] [--edits 10]

A real LSP client (pygls's) starts `breaklint lsp` over stdio in a temporary project (a model file
of about --lines lines, every class an nn.Module whose forward is a compiled region, plus a
train.py that compiles the model), opens the file, then sends --edits unsaved edits one after
another. Each edit toggles a `.item()` in the middle of the file; the latency is the time from
sending `didChange` to receiving `publishDiagnostics` for that version, with the right findings.
It includes the server's debounce (breaklint.lsp.DEBOUNCE_S). Not a test: the machine decides.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from breaklint.lsp import DEBOUNCE_S  # noqa: E402

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


async def measure(lines: int, edits: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = model_source(lines)
        (root / "model.py").write_text(source, encoding="utf-8")
        (root / "train.py").write_text("import torch\nfrom model import Model\n\nm = torch.compile(Model())\n")
        uri = (root / "model.py").as_uri()
        client = Client()
        await client.start_io(sys.executable, "-m", "breaklint", "lsp", cwd=tmp)
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
        target = next(i for i, line in enumerate(source_lines) if line.strip() == "return x + h"
                      and i > len(source_lines) // 2)
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
            await asyncio.sleep(DEBOUNCE_S + 0.1)
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
    return {"lines": len(source_lines), "first": first, "latencies": latencies, "hovers": hovers}


def breakdown(lines: int, repeat: int = 3) -> dict[str, float]:
    """Where one re-check of the edited file goes, in-process (medians): libcst parse, the
    project index of the file, and the rules (with positions when there is a finding)."""
    import libcst as cst

    from breaklint.engine import parse_file
    from breaklint.project import build_module_index
    from breaklint.workspace import load_project

    timings: dict[str, list[float]] = {"parse": [], "index": [], "rules, no finding": [], "rules, one finding": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = model_source(lines)
        flagged = source.replace("return x + h\n", "return x + h * h.sum().item()\n", 1)
        (root / "model.py").write_text(source, encoding="utf-8")
        (root / "train.py").write_text("import torch\nfrom model import Model\n\nm = torch.compile(Model())\n")
        project, _ = load_project(root)
        path = root / "model.py"
        for _ in range(repeat):
            started = time.perf_counter()
            cst.parse_module(source)
            timings["parse"].append(time.perf_counter() - started)
            parsed = parse_file(path, root, source)
            started = time.perf_counter()
            build_module_index(parsed)  # type: ignore[arg-type]
            timings["index"].append(time.perf_counter() - started)
            for key, text in (("rules, no finding", source + "\n"), ("rules, one finding", flagged)):
                project.check([path], {path: text})  # index this text first: time the rules alone
                project._index[path].result.file._positions = None  # type: ignore[union-attr]
                started = time.perf_counter()
                project.check([path], {path: text})
                timings[key].append(time.perf_counter() - started)
    return {key: statistics.median(values) for key, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--edits", type=int, default=10)
    args = parser.parse_args()
    result = asyncio.run(measure(args.lines, args.edits))
    latencies: list[float] = result["latencies"]  # type: ignore[assignment]
    flagged, clean = latencies[0::2], latencies[1::2]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"file: {result['lines']} lines; debounce {DEBOUNCE_S:.2f} s (included below)")
    print(f"open -> first diagnostics (cold project index): {result['first']:.2f} s")
    print(f"edit -> diagnostics over {len(latencies)} edits: min {min(latencies):.2f} s, "
          f"median {statistics.median(latencies):.2f} s, max {max(latencies):.2f} s "
          f"(median {statistics.median(flagged):.2f} s with a finding, "
          f"{statistics.median(clean) if clean else float('nan'):.2f} s without)")
    hovers: list[float] = result["hovers"]  # type: ignore[assignment]
    if hovers:
        print(f"hover during a check ({len(hovers)} of {len(latencies)}): "
              f"median {statistics.median(hovers) * 1000:.0f} ms, max {max(hovers) * 1000:.0f} ms")
    parts = ", ".join(f"{key} {seconds:.2f} s" for key, seconds in breakdown(args.lines).items())
    print(f"one re-check in-process (median): {parts}")


if __name__ == "__main__":
    main()
