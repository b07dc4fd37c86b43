"""`breaklint lsp`: the language server (pygls, stdio).

document text -> the one check pipeline (`Engine.check` on the project, reporting the open
files; breaklint/lsp/workspace.py keeps its cache warm) -> Diagnostics (breaklint/report/lsp_format.py).

- Diagnostics are pushed on open, on change (debounced) and on save, with the document version
  they were computed from; unsaved buffers are linted from their text, never from disk, and every
  open buffer stands in for its file when the project is indexed.
- A change to another file on disk, or to pyproject.toml, re-lints the open documents (from the
  client's file watchers where it has them; every check also reads the tree and the settings'
  modification time again, for clients without watchers).
- Hover on a finding shows its rule's docs; a quick fix inserts `# breaklint: ignore[CODE]`.
- Checks run one at a time on a worker thread, so hover and code actions answer meanwhile.
- A large workspace with no cache is not indexed before the first diagnostics: those come from
  the opened file and what it imports (`Project.check_first`, lsp/nearby.py); the whole
  workspace is indexed next, on the same worker (a work-done progress where the client takes
  them), and each open file's diagnostics are published again from it: `check`'s.

Only `breaklint lsp` imports this module (pygls is the optional `lsp` extra).
"""

from __future__ import annotations

import asyncio
import gc
import io
import json
import logging
import os
import re
import sys
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from breaklint import __version__
from breaklint.config import find_pyproject
from breaklint.infra.collector import paused_collector
from breaklint.infra.files import SUFFIXES
from breaklint.finding import Finding
from breaklint.index.def_lines import line_texts, split_lines
from breaklint.report.positions import UTF16, to_code_units
from breaklint.check.registry import ALWAYS_SHOWN, find_rule
from breaklint.report import ruledoc
from breaklint.report.lsp_format import SOURCE, diagnostic
from breaklint.lsp.workspace import PYPROJECT, First, Project, load_project

DEBOUNCE_S = 0.1  # after a keystroke, wait this long for the next one before checking (docs/speed.md, "In the editor")
OTHERS_IDLE_S = 0.5  # after that check, the other open files once no new edit came
WATCHED = ("**/*.py", "**/*.pyi", f"**/{PYPROJECT}")
_DIRECTIVE = re.compile(r"#\s*breaklint:\s*ignore\s*\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
_BARE_DIRECTIVE = re.compile(r"#\s*breaklint:\s*ignore(?!\s*\[)", re.IGNORECASE)
T = TypeVar("T")
log = logging.getLogger("breaklint.lsp.server")


# --- the quick fix: pure text, tested on its own ---------------------------------------------
@dataclass(frozen=True)
class Insertion:
    """Insert `text` at (0-based line, 1-based code-point column)."""

    line: int
    col: int
    text: str


def suppression_insertion(text: str, line: int, code: str) -> Insertion | None:
    """Where and what to insert so that `code` is silenced on 0-based `line`: extend a
    `# breaklint: ignore[...]` already there, else a trailing comment, else (the line ends inside
    a string or with a backslash, where no comment can go) a comment line above it."""
    lines = line_texts(text)
    if not 0 <= line < len(lines):
        return None
    current = lines[line]
    comment, spans_end = _line_tokens(text, line + 1)
    if comment is not None:
        comment_col, comment_text = comment
        if _BARE_DIRECTIVE.search(comment_text):
            return None  # already silences every rule on the line
        match = _DIRECTIVE.search(comment_text)
        if match is not None:
            codes = [c.strip() for c in match.group("codes").split(",") if c.strip()]
            if code in codes:
                return None
            close = comment_col + match.end() - 1  # 0-based column of the `]`
            return Insertion(line, close + 1, ", " + code if codes else code)
    if spans_end or (comment is None and current.rstrip().endswith("\\")):
        indent = current[: len(current) - len(current.lstrip())]
        return Insertion(line, 1, f"{indent}# breaklint: ignore[{code}]\n")
    end = len(current.rstrip())
    return Insertion(line, end + 1, f"  # breaklint: ignore[{code}]")


def _line_tokens(text: str, lineno: int) -> tuple[tuple[int, str] | None, bool]:
    """The comment on 1-based `lineno` (0-based column, text), and whether a token (a string)
    runs on past the end of that line."""
    comment: tuple[int, str] | None = None
    spans_end = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):  # a lone CR ends a line
            if token.start[0] > lineno:
                break
            if token.type == tokenize.COMMENT and token.start[0] == lineno:
                comment = (token.start[1], token.string)
            elif token.type not in (tokenize.NL, tokenize.NEWLINE) and token.start[0] <= lineno < token.end[0]:
                spans_end = True
    except (tokenize.TokenError, SyntaxError):
        pass  # a half-typed file: decide from what was read
    return comment, spans_end


# --- the server ------------------------------------------------------------------------------
def _encoding(server: LanguageServer) -> str:
    kind = server.workspace.position_encoding
    return str(getattr(kind, "value", kind) or UTF16)


def _path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None  # an untitled buffer has no project to be part of
    fs_path = to_fs_path(uri)
    if fs_path is None or not fs_path.endswith(SUFFIXES):
        return None
    return Path(os.path.normpath(fs_path))


class Linter:
    """The server's state: projects by root, pending checks, what was published."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.projects: dict[Path, Project] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.others: asyncio.Task[None] | None = None  # the re-check of the other open files
        self.indexing: dict[Path, asyncio.Task[None]] = {}  # a root's first whole check, after its first diagnostics
        self.progress_tokens = 0
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.converter = default_converter()  # lsprotocol's: our JSON diagnostics -> its types
        # One worker: checks never overlap, and the project index is only touched there.
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="breaklint-check")

    async def _run(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)

    # which project a file belongs to
    def _root_for(self, path: Path) -> Path:
        folders = [Path(os.path.normpath(p)) for p in self._folder_paths()]
        containing = [f for f in folders if f == path.parent or f in path.parents]
        if containing:
            return max(containing, key=lambda f: len(f.parts))
        pyproject = find_pyproject(path.parent)
        return pyproject.parent if pyproject is not None else path.parent

    def _folder_paths(self) -> list[str]:
        workspace = self.server.workspace
        uris = [folder.uri for folder in workspace.folders.values()]
        if workspace.root_uri:
            uris.append(workspace.root_uri)
        return [p for p in (to_fs_path(uri) for uri in uris if uri.startswith("file:")) if p]

    # scheduling
    def schedule(self, uri: str, delay: float, others: bool = True) -> None:
        """Check `uri` after `delay` seconds; a newer request for it replaces this one. With
        `others`, the other open files follow once the editor is idle: an edit here may have
        added or removed a compile call that decides their regions."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        if self.others is not None:
            self.others.cancel()  # typing goes first; they are re-scheduled after this check
            self.others = None
        self.pending[uri] = asyncio.ensure_future(self._later(uri, delay, others))

    async def _later(self, uri: str, delay: float, others: bool) -> None:
        try:
            await asyncio.sleep(delay)
            await self.lint([uri])
            if others and len(self._open_uris()) > 1:
                self.others = asyncio.ensure_future(self._lint_others(uri))
        except asyncio.CancelledError:
            pass  # a newer edit superseded this check
        except Exception as error:  # a failed check must not take the server down
            self._report(error)
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]

    async def _lint_others(self, edited: str) -> None:
        try:
            await asyncio.sleep(OTHERS_IDLE_S)
            await self.lint([u for u in self._open_uris() if u != edited])
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self._report(error)

    def _report(self, error: Exception) -> None:
        log.exception("check failed", exc_info=error)
        self.server.window_log_message(types.LogMessageParams(
            type=types.MessageType.Error, message=f"breaklint: check failed: {type(error).__name__}: {error}"))

    def schedule_all(self, delay: float) -> None:
        for uri in self._open_uris():
            self.schedule(uri, delay, others=False)

    def _open_uris(self) -> list[str]:
        return [uri for uri in self.server.workspace.text_documents if _path(uri) is not None]

    def _index_later(self, root: Path) -> None:
        """Index the whole of `root` and publish its open files' diagnostics again, once; an
        edit does not cancel it (its own check waits behind it on the worker, then is quick)."""
        if root in self.indexing:
            return
        window = self.server.client_capabilities.window
        progress = None
        if window is not None and window.work_done_progress:  # asked now: the client hears of it before the first diagnostics
            self.progress_tokens += 1
            progress = _Progress(self.server, f"breaklint-index-{self.progress_tokens}", f"indexing {root.name}")
        self.indexing[root] = asyncio.ensure_future(self._index(root, progress))

    async def _index(self, root: Path, progress: _Progress | None) -> None:
        try:
            await self.lint([uri for uri in self._open_uris()
                             if (path := _path(uri)) is not None and self._root_for(path) == root], whole=True)
            # The engine runs with the collector off: what indexing left (400,000 objects on timm)
            # is collected now, on the worker, rather than by the first edit's check (+0.45 s).
            await self._run(gc.collect)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self._report(error)
        finally:
            del self.indexing[root]
            if progress is not None:
                progress.end()

    async def lint(self, uris: Sequence[str], whole: bool = False) -> None:
        """Check and publish `uris`; `whole`: from the whole workspace, never first from what the
        files import (`Project.check_first`)."""
        # Snapshot every open buffer now, on the event loop: the check sees exactly these texts.
        documents = {uri: self.server.workspace.get_text_document(uri) for uri in self._open_uris()}
        buffers = {path: doc.source for uri, doc in documents.items() if (path := _path(uri)) is not None}
        by_root: dict[Path, list[tuple[str, Path, int | None, str]]] = {}
        for uri in uris:
            path = _path(uri)
            if uri in documents and path is not None:
                entry = (uri, path, documents[uri].version, documents[uri].source)
                by_root.setdefault(self._root_for(path), []).append(entry)
        encoding = _encoding(self.server)
        for root, entries in by_root.items():
            targets = [path for _, path, _, _ in entries]
            first, error = (None, None) if whole else await self._run(self._check_first, root, targets, buffers)
            if first is not None:
                findings = first.findings
                self._index_later(root)  # before publishing: the client hears of the progress first
            else:
                findings, reloaded = await self._run(self._check, root, targets, buffers)
                error = error or reloaded  # the settings were read by the first call, or by this one
            if error is not None:
                self.server.window_show_message(types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"breaklint: {error}; using the default settings"))
            for uri, path, version, text in entries:
                lines = line_texts(text)
                diagnostics = [self.converter.structure(diagnostic(f, lines, encoding), types.Diagnostic)
                               for f in findings[path]]
                self.published[uri] = diagnostics
                self.server.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics))

    def _project(self, root: Path) -> tuple[Project, str | None]:
        """On the worker thread: the project at `root`, and a config error to show."""
        error = None
        project = self.projects.get(root)
        if project is None or project.stale():  # no watcher needed for an edit of the settings
            project, error = load_project(root)
            self.projects[root] = project
        return project, error

    def _check(
        self, root: Path, targets: list[Path], buffers: dict[Path, str]
    ) -> tuple[dict[Path, list[Finding]], str | None]:
        """On the worker thread: the project's findings for `targets`, and a config error to show."""
        project, error = self._project(root)
        with paused_collector():  # this process's setting for a check (infra/collector.py)
            return project.check(targets, buffers), error

    def _check_first(self, root: Path, targets: list[Path], buffers: dict[Path, str]) -> tuple[First | None, str | None]:
        """On the worker thread: `Project.check_first` (None: a whole check is as quick, or the
        first one failed: the whole check is then the only one, and says what it says)."""
        project, error = self._project(root)
        try:
            with paused_collector():
                return project.check_first(targets, buffers), error
        except Exception as failure:  # a bug of the shortcut must not cost the diagnostics
            log.exception("the first check failed; checking the whole workspace", exc_info=failure)
            return None, error

    async def files_changed(self, paths: list[Path]) -> None:
        await self._run(self._invalidate, paths)
        self.schedule_all(0.0)

    def _invalidate(self, paths: list[Path]) -> None:
        if any(p.name == PYPROJECT for p in paths):
            self.projects.clear()  # settings changed: load them again, index again
            return
        for project in self.projects.values():
            project.invalidate(p for p in paths if project.contains(p))

    def close(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.published.pop(uri, None)
        self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.schedule_all(DEBOUNCE_S)  # the others now see the file on disk, not the buffer

    # hover and quick fix
    def at(self, uri: str, position: types.Position) -> list[types.Diagnostic]:
        here = (position.line, position.character)
        return [
            d for d in self.published.get(uri, [])
            if (d.range.start.line, d.range.start.character) <= here <= (d.range.end.line, d.range.end.character)
        ]

    def hover(self, uri: str, position: types.Position) -> types.Hover | None:
        found = self.at(uri, position)
        if not found:
            return None
        parts = []
        for d in found:
            rule = find_rule(str(d.code))
            if rule is None:
                continue
            href = d.code_description.href if d.code_description else rule.url()
            help_text = rule.help
            parts.append("\n\n".join([
                f"**{ruledoc.header(rule)}** ({rule.stage.value}): {d.message}",
                *([f"help: {help_text}"] if help_text else []),
                ruledoc.markdown(rule),
                f"[{rule.code} documentation]({href})",
            ]))
        if not parts:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
            range=found[0].range,
        )

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        document = self.server.workspace.get_text_document(uri)
        wanted = [d for d in params.context.diagnostics if d.source == SOURCE and d.code]
        if not wanted:  # some clients send none: use what we published in the range
            wanted = self.at(uri, params.range.start)
        encoding = _encoding(self.server)
        lines = line_texts(document.source)
        actions: list[types.CodeAction] = []
        seen: set[tuple[int, str]] = set()
        for d in wanted:
            code = str(d.code)
            if code in ALWAYS_SHOWN or (d.range.start.line, code) in seen:
                continue  # the run's own problems cannot be silenced
            seen.add((d.range.start.line, code))
            insertion = suppression_insertion(document.source, d.range.start.line, code)
            if insertion is None:
                continue
            at = types.Position(line=insertion.line,
                                character=to_code_units(lines[insertion.line], insertion.col, encoding))
            edit = types.TextEdit(range=types.Range(start=at, end=at), new_text=insertion.text)
            actions.append(types.CodeAction(
                title=f"Suppress {code} on this line (# breaklint: ignore[{code}])",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[d],
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            ))
        return actions


class _Progress:
    """A work-done progress the server starts (`window/workDoneProgress/create`): begun once the
    client has made it, ended (when begun) after the work."""

    def __init__(self, server: LanguageServer, token: str, message: str) -> None:
        self.server = server
        self.token = token
        self.message = message
        self.begun = self.ended = False
        server.work_done_progress.create(token, self._created)

    def _created(self, *result: Any) -> None:
        if not self.ended:
            self.begun = True
            self.server.work_done_progress.begin(
                self.token, types.WorkDoneProgressBegin(title="breaklint", message=self.message))

    def end(self) -> None:
        self.ended = True
        if self.begun:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd())


# --- the protocol: pygls's, answering what it only logs ----------------------------------------
PARSE_ERROR, INVALID_REQUEST = -32700, -32600  # JSON-RPC 2.0, section 5.1


@dataclass(frozen=True)
class _Malformed:
    """A request whose params do not fit its method: answered with the error, never handled."""

    id: int | str | None
    error: JsonRpcException


class _Protocol(LanguageServerProtocol):
    """JSON-RPC 2.0 wants an error response where pygls 2.1 only shows the client a message: a
    request whose params do not fit gets -32602 (invalid params) with its id; a body that is
    JSON but not a message object, -32600 (invalid request); one that is not JSON, -32700
    (parse error), those two with id null. And `exit` without `shutdown` ends the process with
    code 1, as the LSP says: pygls raises SystemExit(1) inside its event loop, where it is lost."""

    exit_code = 0

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        result = yield from super().lsp_initialize(params)
        self._workspace.__class__ = _Workspace  # made above, before any document is opened
        return result

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data.get("method"), str) and "id" in data:
                return _Malformed(_request_id(data["id"]), error)
            raise  # a notification: nothing to answer, pygls tells the user

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Malformed):
            self.send_error(message.id, message.error.code, message.error.message)
        elif getattr(message, "jsonrpc", None) is None:  # a list, a number, an object without "jsonrpc"
            ident = _request_id(message.get("id")) if isinstance(message, dict) else None
            self.send_error(ident, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message object")
        else:
            super().handle_message(message)

    def send_error(self, ident: int | str | None, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        self.exit_code = 0 if self._shutdown else 1
        yield from super().lsp_exit(*args)


class _Document(TextDocument):
    """pygls applies an edit's range to the lines of `str.splitlines`, which also ends a line at
    U+2028, \\f, \\x1c...: an edit below one landed a line off. An LSP client, like Python, ends
    a line at CRLF, LF and CR only."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(split_lines(self.source))


class _Workspace(Workspace):
    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return _Document(doc_uri, source=source, version=version, language_id=language_id,
                         sync_kind=self._sync_kind, position_codec=self._position_codec)


def _request_id(value: object) -> int | str | None:
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


class _Server(LanguageServer):
    def report_server_error(self, error: Exception, source: Any) -> None:
        if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):  # the body is not JSON
            self.protocol.send_error(None, PARSE_ERROR, f"Parse error: {error}")  # type: ignore[attr-defined]
        else:
            super().report_server_error(error, source)


def build_server() -> LanguageServer:
    server = _Server("breaklint", __version__, protocol_cls=_Protocol,
                     text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    linter = Linter(server)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
        watch = ls.client_capabilities.workspace
        if watch and watch.did_change_watched_files and watch.did_change_watched_files.dynamic_registration:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
                id="breaklint-watch",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED]),
            )]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        if _path(params.text_document.uri) is not None:
            linter.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        if _path(params.text_document.uri) is not None:
            linter.schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        if _path(params.text_document.uri) is not None:
            linter.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        linter.close(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched(ls: LanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [Path(os.path.normpath(p)) for p in (to_fs_path(c.uri) for c in params.changes) if p]
        await linter.files_changed(paths)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
        return linter.hover(params.text_document.uri, params.position)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return linter.code_actions(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: LanguageServer, params: None) -> None:
        for task in [*linter.pending.values(), *linter.indexing.values(), *([linter.others] if linter.others else [])]:
            task.cancel()
        linter.worker.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> None:
    logging.basicConfig(level=logging.WARNING)  # stderr: stdout carries the protocol
    server = build_server()
    server.start_io()
    sys.exit(server.protocol.exit_code)  # type: ignore[attr-defined]
