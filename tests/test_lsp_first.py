"""The first diagnostics of a large workspace with no cache come before it is indexed (from the
opened file and what it imports: lsp/nearby.py, `Project.check_first`); then the whole workspace
is indexed and they are published again: `breaklint check`'s. Counted, never timed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from breaklint.check.engine import Engine
from breaklint.finding import Finding
from breaklint.lsp.nearby import nearby
from breaklint.lsp.workspace import NEAR_MIN_FILES, load_project
from testdata import HANG_GUARD_S

STRICT = "[tool.breaklint]\nassume-forward-compiled = false\n"
# `step` is compiled here; `Net` only by train.py, which model.py does not import.
MODEL = (
    "import torch\nfrom torch import nn\n\nfrom app import helper\n\n\nclass Net(nn.Module):\n"
    "    def forward(self, x):\n        return helper(x).sum().item()\n\n\n"
    "@torch.compile\ndef step(x):\n    return helper(x).tolist()\n"
)
TRAIN = "import torch\n\nfrom model import Net\n\nmodel = torch.compile(Net())\n"
FILLERS = NEAR_MIN_FILES + 6


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """model.py imports `helper` from the package `app`, which re-exports it from app/ops.py;
    the package holds enough other modules that the workspace is worth indexing later."""
    root = tmp_path / "ws"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    (root / "app" / "__init__.py").write_text("from app.ops import helper\nfrom app.filler_1 import f\n")
    (root / "app" / "ops.py").write_text("import torch\n\n\ndef helper(x):\n    return torch.relu(x)\n")
    for i in range(FILLERS):
        (root / "app" / f"filler_{i}.py").write_text(f"import torch\n\n\ndef f(x):\n    return x + {i}\n")
    (root / "model.py").write_text(MODEL, encoding="utf-8")
    (root / "train.py").write_text(TRAIN, encoding="utf-8")
    return root


def _lines(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.code, f.span.start_line) for f in findings]


def test_nearby_follows_imports_through_re_exports(tree: Path) -> None:
    project, _ = load_project(tree)
    files = sorted(tree.rglob("*.py"))
    model = tree / "model.py"
    near = nearby([model], files, project.engine.index)
    # the package (a lookup passes through it) and the module that defines `helper`; not the
    # package's other imports (filler_1), not what nothing imports (train.py, the other fillers)
    assert near.paths == (model, tree / "app" / "__init__.py", tree / "app" / "ops.py")
    assert near.scanned == 3
    again = nearby([model], files, project.engine.index)
    assert again.paths == near.paths and again.scanned == 0  # read once: now from the cache
    assert nearby([model], files, project.engine.index, budget=1).paths == (model,)  # the targets at least


def test_first_check_before_the_workspace_is_indexed(tree: Path) -> None:
    model = tree / "model.py"
    project, error = load_project(tree)
    assert error is None
    first = project.check_first([model], {model: MODEL})
    assert first is not None
    assert first.files == 3 < FILLERS  # what was indexed when the first findings were ready
    assert _lines(first.findings[model]) == [("BL101", 14)]  # `step` is compiled in model.py itself

    final = project.check([model], {model: MODEL})[model]
    expected = [f for f in Engine(project.config, project.rules, shown_from=tree).check([tree]).findings if f.path == "model.py"]
    assert final == expected and _lines(final) == [("BL101", 9), ("BL101", 14)]  # and Net, via train.py
    assert project.check_first([model], {model: MODEL}) is None  # indexed: `check` is as quick now

    warm, _ = load_project(tree)  # a new session, on the cache the first one wrote
    assert warm.check_first([model], {model: MODEL}) is None


def test_a_small_workspace_is_checked_whole_at_once(tree: Path) -> None:
    for i in range(FILLERS):
        (tree / "app" / f"filler_{i}.py").unlink()
    project, _ = load_project(tree)
    model = tree / "model.py"
    assert project.check_first([model], {model: MODEL}) is None


class _Client:
    """A pygls client that records, in order, the diagnostics published and the work-done
    progress the server made."""

    def __init__(self) -> None:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        self.client = LanguageClient("breaklint-test", "1")
        self.events: list[tuple[str, object]] = []
        self.ended = asyncio.Event()

        @self.client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create(params: types.WorkDoneProgressCreateParams) -> None:
            self.events.append(("create", params.token))

        @self.client.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            self.events.append((f"progress {kind}", params.token))
            if kind == "end":
                self.ended.set()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.events.append(("publish", params))


def test_server_publishes_first_then_the_whole_workspace(tree: Path, tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    from lsprotocol import types

    model = tree / "model.py"

    async def session() -> list[tuple[str, object]]:
        recorder = _Client()
        client = recorder.client
        await client.start_io(sys.executable, "-m", "breaklint", "lsp", cwd=str(tree),
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
        await client.initialize_async(types.InitializeParams(
            process_id=os.getpid(), root_uri=tree.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tree.as_uri(), name=tree.name)],
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True))))
        client.initialized(types.InitializedParams())
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=model.as_uri(), language_id="python", version=1, text=MODEL)))
        await asyncio.wait_for(recorder.ended.wait(), HANG_GUARD_S)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return recorder.events

    events = asyncio.run(asyncio.wait_for(session(), HANG_GUARD_S))
    kinds = [kind for kind, _ in events]
    # asked for the progress before the first diagnostics; those before it began; the whole
    # workspace's before it ended
    assert kinds == ["create", "publish", "progress begin", "publish", "progress end"], kinds
    first, final = (params for kind, params in events if kind == "publish")
    assert first.version == final.version == 1  # type: ignore[attr-defined]
    lines = [[d.range.start.line + 1 for d in p.diagnostics] for p in (first, final)]  # type: ignore[attr-defined]
    assert lines == [[14], [9, 14]]

    cli = subprocess.run([sys.executable, "-m", "breaklint", "check", ".", "--format", "lsp", "--no-cache"],
                         cwd=tree, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert cli.returncode == 1, cli.stderr
    expected = json.loads(cli.stdout)[model.as_uri()]
    from lsprotocol.converters import get_converter

    assert [get_converter().unstructure(d) for d in final.diagnostics] == expected  # type: ignore[attr-defined]


def test_a_failing_first_check_leaves_the_whole_one(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygls")
    from breaklint.lsp import workspace
    from breaklint.lsp.server import Linter

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("planted")

    monkeypatch.setattr(workspace, "nearby", broken)
    linter = Linter.__new__(Linter)  # the checks alone: no server, no event loop
    linter.projects = {}
    model = tree / "model.py"
    first, error = linter._check_first(tree, [model], {model: MODEL})
    assert first is None and error is None
    findings, _ = linter._check(tree, [model], {model: MODEL})
    assert _lines(findings[model]) == [("BL101", 9), ("BL101", 14)]
