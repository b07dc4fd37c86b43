"""`breaklint lsp` driven end to end by a real LSP client (pygls's) over stdio: initialize, open,
change, save, hover, code action, refresh on other files and on pyproject.toml, shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from testdata import HANG_GUARD_S  # noqa: E402

TIMEOUT = HANG_GUARD_S
PREFIX = '        label = "é😀"; y = '  # code points and UTF-16 units differ before the finding
LAYERS = (
    "import torch\nfrom torch import nn\n\n\nclass Scale(nn.Module):\n    def forward(self, x):\n"
    f"{PREFIX}x.sum().item()\n        return x * y\n"
)
LAYERS_CLEAN = LAYERS.replace("x.sum().item()", "x.sum()")
TRAIN = "import torch\n\nfrom layers import Scale\n\nmodel = torch.compile(Scale())\n"
TRAIN_EAGER = "import torch\n\nfrom layers import Scale\n\nmodel = Scale()\n"
STRICT = "[tool.breaklint]\nassume-forward-compiled = false\n"


class Client(LanguageClient):
    """Collects every publishDiagnostics notification, per document."""

    def __init__(self) -> None:
        super().__init__("breaklint-test", "1")
        self.diagnostics: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.messages: list[str] = []
        self.arrived = asyncio.Condition()

        self.registrations: list[types.Registration] = []

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def show(client: Client, params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(client: Client, params: types.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
            async with self.arrived:
                self.diagnostics.setdefault(params.uri, []).append(params)
                self.arrived.notify_all()

    async def wait_for(self, uri: str, count: int) -> types.PublishDiagnosticsParams:
        """The `count`-th publication for `uri` (1-based)."""
        async with self.arrived:
            await asyncio.wait_for(
                self.arrived.wait_for(lambda: len(self.diagnostics.get(uri, [])) >= count), TIMEOUT)
            return self.diagnostics[uri][count - 1]

    async def wait_until(self, uri: str, since: int, codes: list[str]) -> types.PublishDiagnosticsParams:
        """The first publication for `uri` after the first `since` ones with these codes."""
        def found() -> types.PublishDiagnosticsParams | None:
            later = self.diagnostics.get(uri, [])[since:]
            return next((p for p in later if [d.code for d in p.diagnostics] == codes), None)

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: found() is not None), TIMEOUT)
            result = found()
            assert result is not None
            return result

    async def wait_until_version(self, uri: str, version: int) -> types.PublishDiagnosticsParams:
        """The publication for `uri` computed from `version`."""
        def found() -> types.PublishDiagnosticsParams | None:
            return next((p for p in self.diagnostics.get(uri, []) if p.version == version), None)

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: found() is not None), TIMEOUT)
            result = found()
            assert result is not None
            return result

    def published(self, uri: str) -> int:
        return len(self.diagnostics.get(uri, []))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(STRICT, encoding="utf-8")
    (tmp_path / "layers.py").write_text(LAYERS, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    return tmp_path


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, HANG_GUARD_S))


async def start(root: Path, encodings: list[types.PositionEncodingKind] | None = None, watches: bool = True) -> Client:
    """A client over stdio; `watches`: whether it offers file watchers (Neovim, by default, does not)."""
    client = Client()
    await client.start_io(sys.executable, "-m", "breaklint", "lsp", cwd=str(root.parent),
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    result = await client.initialize_async(types.InitializeParams(
        process_id=os.getpid(),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        capabilities=types.ClientCapabilities(
            general=types.GeneralClientCapabilities(position_encodings=encodings),
            workspace=types.WorkspaceClientCapabilities(
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=watches)),
        ),
    ))
    capabilities = result.capabilities
    assert capabilities.hover_provider and capabilities.code_action_provider
    assert capabilities.position_encoding == (encodings[0] if encodings else types.PositionEncodingKind.Utf16)
    sync = capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions) and sync.open_close and sync.save
    assert result.server_info is not None and result.server_info.name == "breaklint"
    client.initialized(types.InitializedParams())
    return client


async def stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    assert client._server is not None and client._server.returncode == 0


def open_doc(client: Client, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def change(client: Client, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
    ))


def touched(client: Client, path: Path) -> None:
    """What an editor's file watcher sends after `path` changed on disk."""
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]))


def apply(text: str, edit: types.TextEdit) -> str:
    """Apply a zero-width TextEdit (UTF-16 columns) the way an editor does."""
    lines = text.split("\n")
    line = lines[edit.range.start.line]
    units = line.encode("utf-16-le")
    cut = len(units[: edit.range.start.character * 2].decode("utf-16-le"))
    lines[edit.range.start.line] = line[:cut] + edit.new_text + line[cut:]
    return "\n".join(lines)


def test_editor_session(project: Path) -> None:
    layers = (project / "layers.py").as_uri()

    async def session() -> None:
        client = await start(project)

        # open: regions come from the whole project (train.py compiles Scale)
        open_doc(client, layers, LAYERS)
        opened = await client.wait_for(layers, 1)
        assert opened.version == 1
        (diag,) = opened.diagnostics
        assert (diag.code, diag.source, diag.severity) == ("BL101", "breaklint", types.DiagnosticSeverity.Warning)
        assert "via train.py:5" in diag.message
        assert diag.code_description is not None and "BL101" in diag.code_description.href
        assert diag.range.start.line == 6
        # UTF-16: é is one unit, 😀 two; the code-point column would be one less
        assert diag.range.start.character == len(PREFIX.encode("utf-16-le")) // 2 == len(PREFIX) + 1
        assert diag.range.end.character - diag.range.start.character == len("x.sum().item()")

        # hover on the finding: the rule's docs
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=layers),
            position=types.Position(line=6, character=diag.range.start.character + 3)))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "BL101 tensor-to-scalar" in hover.contents.value and "## How to fix" in hover.contents.value
        nothing = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=layers), position=types.Position(line=0, character=0)))
        assert nothing is None

        # change, unsaved: the buffer is linted, not the file on disk (which still has .item());
        # two quick edits are debounced into one check of the latest
        change(client, layers, 2, LAYERS_CLEAN)
        change(client, layers, 3, LAYERS_CLEAN + "\n\ndef helper(t):\n    return t\n")
        latest = await client.wait_for(layers, 2)
        assert latest.version == 3 and latest.diagnostics == ()
        change(client, layers, 4, LAYERS)
        back = await client.wait_for(layers, 3)
        assert back.version == 4 and [d.code for d in back.diagnostics] == ["BL101"]
        assert [p.version for p in client.diagnostics[layers]] == [1, 3, 4]

        # code action: the quick fix inserts the suppression; applied, the finding is gone
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=layers),
            range=back.diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=back.diagnostics)))
        assert actions is not None and len(actions) == 1
        action = actions[0]
        assert isinstance(action, types.CodeAction) and action.kind == types.CodeActionKind.QuickFix
        assert action.edit is not None and action.edit.changes is not None
        (edit,) = action.edit.changes[layers]
        assert edit.new_text == "  # breaklint: ignore[BL101]"
        fixed = apply(LAYERS, edit)
        assert f"{PREFIX}x.sum().item()  # breaklint: ignore[BL101]\n" in fixed
        change(client, layers, 5, fixed)
        assert (await client.wait_for(layers, 4)).diagnostics == ()

        # save: published again, from the saved text
        (project / "layers.py").write_text(fixed, encoding="utf-8")
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=layers)))
        saved = await client.wait_for(layers, 5)
        assert saved.version == 5 and saved.diagnostics == ()

        # close: its diagnostics are cleared
        change(client, layers, 6, LAYERS)
        assert [d.code for d in (await client.wait_for(layers, 6)).diagnostics] == ["BL101"]
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=layers)))
        assert (await client.wait_for(layers, 7)).diagnostics == ()

        await stop(client)

    run(session())


def test_refresh_on_other_files_and_pyproject(project: Path) -> None:
    layers = (project / "layers.py").as_uri()
    train = (project / "train.py").as_uri()

    async def session() -> None:
        client = await start(project, [types.PositionEncodingKind.Utf32])  # columns in code points
        open_doc(client, layers, LAYERS)
        (first,) = (await client.wait_for(layers, 1)).diagnostics
        assert first.code == "BL101" and first.range.start.character == len(PREFIX)
        # the server asked to be told about changes on disk
        (watch,) = client.registrations
        assert watch.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        globs = {w["globPattern"] for w in watch.register_options["watchers"]}  # type: ignore[index]  (raw JSON)
        assert globs == {"**/*.py", "**/*.pyi", "**/pyproject.toml"}

        # train.py changes on disk: Scale is no longer compiled, so layers.py has no region
        (project / "train.py").write_text(TRAIN_EAGER, encoding="utf-8")
        touched(client, project / "train.py")
        assert (await client.wait_for(layers, 2)).diagnostics == ()

        # pyproject.toml changes: every forward is compiled again
        (project / "pyproject.toml").write_text("[tool.breaklint]\nassume-forward-compiled = true\n")
        touched(client, project / "pyproject.toml")
        refreshed = (await client.wait_for(layers, 3)).diagnostics
        assert [d.code for d in refreshed] == ["BL101"] and "assume-forward-compiled" in refreshed[0].message
        (project / "pyproject.toml").write_text(STRICT, encoding="utf-8")
        touched(client, project / "pyproject.toml")
        assert (await client.wait_for(layers, 4)).diagnostics == ()

        # a broken config: the editor is told, and linting goes on with the defaults
        (project / "pyproject.toml").write_text("[tool.breaklint]\nselect = ['BL999']\n", encoding="utf-8")
        touched(client, project / "pyproject.toml")
        assert [d.code for d in (await client.wait_for(layers, 5)).diagnostics] == ["BL101"]
        assert any("BL999" in message for message in client.messages), client.messages
        (project / "pyproject.toml").write_text(STRICT, encoding="utf-8")
        touched(client, project / "pyproject.toml")
        assert (await client.wait_for(layers, 6)).diagnostics == ()

        # an unsaved edit in another open file moves this file's regions too
        open_doc(client, train, TRAIN_EAGER)
        await client.wait_for(train, 1)
        seen = client.published(layers)
        change(client, train, 2, TRAIN)
        relinted = await client.wait_until(layers, seen, ["BL101"])
        assert "via train.py:5" in relinted.diagnostics[0].message
        assert (project / "train.py").read_text(encoding="utf-8") == TRAIN_EAGER  # disk untouched

        await stop(client)

    run(session())


def test_a_client_without_file_watchers(project: Path) -> None:
    """Neovim registers no file watchers by default: the server is never told of a change on disk,
    and sees it on its next run anyway (lsp/workspace.py: every check reads the tree again)."""
    layers = (project / "layers.py").as_uri()

    async def session() -> None:
        client = await start(project, watches=False)
        open_doc(client, layers, LAYERS)
        assert [d.code for d in (await client.wait_for(layers, 1)).diagnostics] == ["BL101"]
        assert client.registrations == []  # nothing to watch with

        # the settings change on disk; the next edit is judged by them
        (project / "pyproject.toml").write_text(STRICT + "ignore = ['BL101']\n", encoding="utf-8")
        change(client, layers, 2, LAYERS)
        assert (await client.wait_until_version(layers, 2)).diagnostics == ()
        (project / "pyproject.toml").write_text(STRICT, encoding="utf-8")
        change(client, layers, 3, LAYERS)
        assert [d.code for d in (await client.wait_until_version(layers, 3)).diagnostics] == ["BL101"]

        # train.py, which compiles the model, is deleted; then a new file compiles it again
        (project / "train.py").unlink()
        change(client, layers, 4, LAYERS)
        assert (await client.wait_until_version(layers, 4)).diagnostics == ()
        (project / "run.py").write_text(TRAIN, encoding="utf-8")
        change(client, layers, 5, LAYERS)
        (found,) = (await client.wait_until_version(layers, 5)).diagnostics
        assert found.code == "BL101" and "via run.py:5" in found.message

        await stop(client)

    run(session())


def test_diagnostics_after_edits_are_check_format_lsp(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Over stdio, edit after edit (reparsed statement by statement in the server), the
    published diagnostics are exactly what `breaklint check --format lsp` prints for that text."""
    layers = (project / "layers.py").as_uri()
    disk = tmp_path_factory.mktemp("disk")
    for name in ("pyproject.toml", "train.py"):
        (disk / name).write_text((project / name).read_text(encoding="utf-8"), encoding="utf-8")
    extra = "\n\nclass Other(nn.Module):\n    def forward(self, x):\n        return x\n"
    texts = [
        LAYERS + extra,
        (LAYERS + extra).replace("        return x\n", "        print(x)\n        return x.tolist()\n"),
        (LAYERS_CLEAN + extra).replace("        return x\n", "        return x.tolist()\n"),
        (LAYERS_CLEAN + extra).replace("        return x\n", "        return x.tolist(\n"),  # a syntax error
        (LAYERS_CLEAN + extra).replace("        return x\n", "        if x.sum() > 0:\n            x = -x\n"
                                       "        return x  # breaklint: ignore[BL101]\n"),
    ]

    async def session() -> None:
        client = await start(project)
        open_doc(client, layers, LAYERS)
        await client.wait_for(layers, 1)
        seen: list[set[str]] = []
        for version, text in enumerate(texts, start=2):
            await asyncio.sleep(0.3)  # a pause between edits: each is checked
            change(client, layers, version, text)
            published = await client.wait_until_version(layers, version)
            (disk / "layers.py").write_text(text, encoding="utf-8")
            cli = subprocess.run([sys.executable, "-m", "breaklint", "check", ".", "--format", "lsp",
                                  "--no-cache"], cwd=disk, capture_output=True, text=True, timeout=HANG_GUARD_S)
            assert cli.returncode in (0, 1), cli.stderr
            expected = json.loads(cli.stdout).get((disk / "layers.py").as_uri(), [])
            got = [client.protocol._converter.unstructure(d) for d in published.diagnostics]
            assert got == expected, text
            seen.append({d["code"] for d in expected})
        await stop(client)
        assert {"BL001"} in seen and {"BL101"} in seen and set() in seen  # the edits changed the findings

    run(session())
