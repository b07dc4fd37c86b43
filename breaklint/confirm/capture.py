"""Record what Dynamo does (graph breaks, recompiles) while user code runs.

We listen on Dynamo's own `graph_breaks` and `recompiles` logging artifacts rather than
using `torch._dynamo.explain()`: explain() derives its break count from the number of
graphs, so it misses frames that produce no graph (a break before the first op, a break
inside a loop, where Dynamo skips the whole frame) and it says nothing about recompiles.

Tested on torch 2.13 (the CUDA-graph records on 2.11, on an H200). The parsers also accept the 2.5/2.6 message shapes described in
dynamo-observability.md section 1.2, but those versions were not run.

torch is imported lazily inside functions: `breaklint` must import without torch.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import sys
import sysconfig
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterator

# The artifacts we turn on; `recompiles_verbose` is only listened to (Dynamo writes there
# instead of `recompiles` when the user enabled it).
_GRAPH_BREAKS = "graph_breaks"
_RECOMPILES = "recompiles"
# Inductor's cudagraph skip messages: artifact `perf_hints` up to 2.10, `cudagraphs` from 2.11.
_CUDAGRAPHS = ("cudagraphs", "perf_hints")
_LISTENED = (_GRAPH_BREAKS, _RECOMPILES, "recompiles_verbose", *_CUDAGRAPHS)
_LIMIT_LOGGER = "torch._dynamo.convert_frame"  # warns "torch._dynamo hit config.recompile_limit"
# Used only if this torch's log registry cannot be listed.
_KNOWN_LOGGERS = (
    "torch._dynamo.symbolic_convert.__graph_breaks",
    "torch._dynamo.convert_frame.__graph_breaks",
    "torch._dynamo.exc.__graph_breaks",
    "torch._dynamo.guards.__recompiles",
    "torch._dynamo.guards.__recompiles_verbose",
)


@dataclass(frozen=True)
class GraphBreak:
    """One graph break Dynamo logged (or a recompile-limit hit, GB0039, at the def line)."""

    filename: str  # innermost user frame of the break (absolute path)
    lineno: int  # 0 when Dynamo logged no location
    gb_type: str  # e.g. "Data-dependent branching"
    gb_id: str | None  # e.g. "GB0170"; None when the registry has no match
    reason: str  # Dynamo's full reason text
    frames: tuple[tuple[str, int], ...] = ()  # user stack, outermost first; () if not logged
    # Dynamo gave up on the whole frame and ran it eagerly (e.g. GB7000 "graph break in loop").
    frame_skipped: bool = False
    # Dynamo could not resume after this break (an RNN module, a break in a `try`): it compiled up
    # to the last resumable point and ran the rest of the function eagerly, untraced.
    rest_skipped: bool = False


@dataclass(frozen=True)
class Recompile:
    function: str
    filename: str
    firstlineno: int
    reasons: tuple[str, ...]  # guard failure texts, e.g. "L['n'] == 3" (2.13 prints "n == 1")


@dataclass(frozen=True)
class CudagraphSkip:
    """Inductor ran a graph without CUDA graphs (mode="reduce-overhead"), or split it."""

    reason: str  # "mutated inputs (1 instances)", "cpu device (arg3_1)", "cpu ops", ...
    filename: str  # the user frame Inductor names ("Found from"), "" when it names none
    lineno: int
    message: str
    # "skip": the whole graph runs without CUDA graphs; "partition": graph partitioning (on by
    # default in torch 2.11 and 2.13) cut this op out into a partition that runs without them;
    # "rerecord": CUDA graph trees recorded a graph per input size, past their warning limit;
    # "pending-backward": they record again because a previous call's outputs still wait for
    # a backward (grad enabled, none run); its frame is the call of the compiled callable;
    # "every-call": they recorded a new graph on (nearly) every timed call (worker.py).
    effect: str = "skip"


@dataclass
class Capture:
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    cudagraph_skips: list[CudagraphSkip] = field(default_factory=list)
    # Deltas of torch._dynamo.utils.counters, filled in on exit: frames Dynamo processed
    # without error (including ones it left alone) and FX graphs it produced.
    frames_compiled: int = 0
    graphs_compiled: int = 0
    messages: list[str] = field(default_factory=list)  # raw log texts, for debugging
    # The scheduler logs a non-cudagraphable op's stack one frame a record, after the op.
    open_partition: bool = False
    # Calls that CUDA graph trees recorded or ran eagerly (warm-up) instead of replaying (their
    # `cudagraphs` log, DEBUG), in all and per function of the trees (unreplayed_key): a graph
    # records twice at the start (a warm-up, a recording), then replays; a pitfall, once a call.
    cudagraph_unreplayed: int = 0
    cudagraph_unreplayed_by_function: dict[str, int] = field(default_factory=dict)
    # The first reason the trees logged for re-recording each function ("Re-recording function=").
    cudagraph_rerecord_reasons: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- registry


def registry_path() -> Path | None:
    """graph_break_registry.json of the installed torch, found without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    for loc in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(loc) / "_dynamo" / "graph_break_registry.json"
        if path.is_file():
            return path
    return None  # torch < 2.8 ships no registry


@lru_cache(maxsize=None)
def load_registry(path: str | None = None) -> dict[str, str]:
    """Gb_type -> GB id. Later ids win on duplicate Gb_types, as in torch's own map."""
    where = Path(path) if path else registry_path()
    if where is None:
        return {}
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        entry["Gb_type"]: gb_id
        for gb_id, entries in data.items()
        for entry in entries
        if isinstance(entry, dict) and "Gb_type" in entry
    }


@lru_cache(maxsize=None)
def _registry_patterns(path: str | None) -> tuple[tuple[re.Pattern[str], str], ...]:
    # Gb_types with runtime placeholders ("... '{attr_name}' ...") become regexes.
    out: list[tuple[re.Pattern[str], str]] = []
    for gb_type, gb_id in load_registry(path).items():
        if "{" in gb_type:
            parts = re.split(r"\{[^}]*\}", gb_type)
            out.append((re.compile(".+?".join(map(re.escape, parts)) + "$"), gb_id))
    return tuple(out)


def lookup_gb_id(gb_type: str, path: str | None = None) -> str | None:
    """Match a reason's first line to a registry Gb_type: exact, placeholder, then prefix."""
    line = gb_type.strip()
    registry = load_registry(path)
    if line in registry:
        return registry[line]
    for pattern, gb_id in _registry_patterns(path):
        if pattern.match(line):
            return gb_id
    # Some messages append runtime text to the Gb_type; the longest prefix is the best fit.
    best = max((t for t in registry if t and line.startswith(t)), key=len, default=None)
    return registry[best] if best else None


# --------------------------------------------------------------------------- parsing

_HEADER = re.compile(
    r"\s*Graph break (?:\(user stack suppressed due to duplicate graph break\) )?"
    r"in user code at (?P<file>.+):(?P<line>\d+)\n"
)
_FILE_LINE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)', re.M)
_GB_URL = re.compile(r"/gb/gb(\d+)\.html")
_STACK_MARKERS = ("User code traceback:", "from user code:", "from user code at:",
                  "following user code:")
_SKIPPED = re.compile(
    r"Skipping the function|skip tracing the frame|frame skipped:|Graph break: skip:"
)
_REST_SKIPPED = "Encountered graph break that we cannot resume from"  # symbolic_convert.py (2.13)
_RECOMPILE_HEADER = re.compile(
    r"\s*Recompiling function (?P<fn>\S+) in (?P<file>.+):(?P<line>\d+)\s*$", re.M
)
_GUARD_PREFIX = re.compile(r"^\d+/\d+: ")  # compile id, "0/0: "
_GUARD_COMMENT = re.compile(r"\s{2,}#.*$")  # "  # return x * n  # f.py:3 in f"


_GENERATED = os.sep + "torchinductor_"


@lru_cache(maxsize=None)
def _inductor_cache() -> tuple[str, ...]:
    configured = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    return (os.path.realpath(configured) + os.sep,) if configured else ()


@lru_cache(maxsize=None)
def _torch_roots() -> tuple[str, ...]:
    spec = importlib.util.find_spec("torch")
    roots = (spec.submodule_search_locations or []) if spec is not None else []
    return tuple(os.path.realpath(r) + os.sep for r in roots)


def _is_user_file(filename: str) -> bool:
    """False for torch and stdlib code (which Dynamo may have inlined), for "<...>" and for the
    code Inductor generated (its cache folder, `/tmp/torchinductor_<user>/` by default)."""
    if filename.startswith("<"):
        return False
    real = os.path.realpath(filename)
    if _GENERATED in real or real.startswith(_inductor_cache()):
        return False
    if real.startswith(_torch_roots()):
        return False
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep
    # Outside a venv, site-packages lives inside the stdlib dir.
    return not real.startswith(stdlib) or "-packages" + os.sep in real


def _abs(filename: str) -> str:
    return filename if filename.startswith("<") else os.path.abspath(filename)


def _frames(text: str) -> tuple[tuple[str, int], ...]:
    return tuple((_abs(m["file"]), int(m["line"])) for m in _FILE_LINE.finditer(text))


def _gb_blocks(reason: str) -> list[tuple[str, str]]:
    """(gb_type, block text) for each formatted GB message in the reason (2.7+).

    A reason can hold several: "Encountered graph break when ...:\\n\\n<Gb_type>\\n  Explanation:"
    wraps one, and a loop break chains the original break and GB7000.
    """
    lines = reason.splitlines()
    starts = [
        i for i in range(len(lines) - 1)
        if lines[i].strip() and lines[i + 1].startswith("  Explanation:")
    ]
    return [
        (lines[i].strip(), "\n".join(lines[i: (starts[k + 1] if k + 1 < len(starts) else None)]))
        for k, i in enumerate(starts)
    ]


def parse_graph_break(message: str, exc: BaseException | None = None,
                      registry: str | None = None) -> list[GraphBreak]:
    """Turn one `graph_breaks` log text into events (one per GB message it carries)."""
    header = _HEADER.match(message)
    if header:  # 2.6+: "Graph break in user code at F:L\nGraph Break Reason: ..."
        rest = message[header.end():]
        cut = rest.rfind("\nUser code traceback:")
        reason, stack = (rest[:cut], rest[cut:]) if cut >= 0 else (rest, "")
        reason = reason.split("\n\nStack variable source attribution:")[0]
        for prefix in ("Graph Break Reason: ", "Reason: "):
            if reason.startswith(prefix):
                reason = reason[len(prefix):]
                break
        frames = _frames(stack)
        filename, lineno = _abs(header["file"]), int(header["line"])
    else:  # frame-skip records, 2.5's "Graph break: from user code at:", WON'T CONVERT
        stack = message
        for marker in _STACK_MARKERS:
            if marker in message:
                stack = message[message.rfind(marker):]
                break
        frames = _frames(stack)
        reason = str(exc) if exc is not None else message
        filename, lineno = frames[-1] if frames else ("", 0)
    reason = reason.strip("\n")

    # Dynamo points at the innermost traced frame, which may be torch code it inlined.
    if not _is_user_file(filename):
        user = [f for f in frames if _is_user_file(f[0])]
        if user:
            filename, lineno = user[-1]

    blocks = _gb_blocks(reason)
    if not blocks:
        gb_type = getattr(exc, "gb_type", None)  # Unsupported.gb_type, 2.11+
        if not isinstance(gb_type, str):
            first = next((ln.strip() for ln in reason.splitlines() if ln.strip()), "")
            gb_type = first.removeprefix("Unsupported: ")  # 2.6 prefixes the exception type
        blocks = [(gb_type, reason)]

    head = message.split("\nUser code traceback:")[0]
    skipped = bool(_SKIPPED.search(head))
    rest_skipped = _REST_SKIPPED in head
    events: list[GraphBreak] = []
    for gb_type, block in blocks:
        # The registry first; the doc link Dynamo prints carries the id too (and the
        # only one if this torch's registry file is missing).
        url = _GB_URL.search(block)
        gb_id = lookup_gb_id(gb_type, registry) or (f"GB{url.group(1)}" if url else None)
        events.append(GraphBreak(filename, lineno, gb_type, gb_id, reason, frames, skipped, rest_skipped))
    return events


def parse_recompile(message: str) -> Recompile | None:
    """Parse "Recompiling function f in F:L\\n    triggered by ...\\n    - 0/0: guard"."""
    header = _RECOMPILE_HEADER.search(message)
    if header is None:
        return None
    reasons: list[str] = []
    for line in message[header.end():].splitlines():
        text = line.strip()
        if not text.startswith("- "):
            continue  # "triggered by ..." or recompiles_verbose's "guard 0 failures:"
        body = text[2:]
        # Skip the attached user stack ("- User stack trace:" then "-   File ...").
        if not body or body[0].isspace() or body == "User stack trace:":
            continue
        body = _GUARD_COMMENT.sub("", _GUARD_PREFIX.sub("", body)).strip()
        if body:
            reasons.append(body)
    return Recompile(header["fn"], _abs(header["file"]), int(header["line"]), tuple(reasons))


_SKIP_REASON = re.compile(r"(?:skipping|disabling) cudagraphs? due to (?P<reason>[^\n]*?)(?:\. Found from|\n|$)")


def parse_cudagraph_skip(message: str) -> CudagraphSkip | None:
    """`skipping cudagraphs due to <reason>. Found from : <stack>`; the reason may be wrapped
    twice ("skipping cudagraphs due to skipping cudagraphs due to cpu device")."""
    matches = list(_SKIP_REASON.finditer(message))
    if not matches:
        return None
    reason = matches[-1]["reason"].strip().rstrip(".")
    while reason.startswith(("skipping cudagraphs due to ", "disabling cudagraphs due to ")):
        reason = reason.split(" due to ", 1)[1]
    user = [f for f in _frames(message) if _is_user_file(f[0])]
    filename, lineno = user[-1] if user else ("", 0)
    return CudagraphSkip(reason, filename, lineno, message)


# Graph partitioning (scheduler, `cudagraphs` artifact at DEBUG): "Created 2 graph partitions: 1
# cudagraphable, 1 non-cudagraphable", then per op of a non-cudagraphable partition
# "    op1: reason=cpu ops, ir=DeviceCopy, fx=..." followed by its stack, one record a line.
_PARTITION_OP = re.compile(r"^\s+(?P<op>\S+): reason=(?P<reason>.+?)(?:, ir=(?P<ir>\w+).*)?$", re.S)
# Without CUDA graphs (the default mode) every op is "partitioned": nothing is lost.
_NO_CUDAGRAPHS = "partition includes all ops when cudagraphs is disabled"
_STACK_LINE = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+)')


# CUDA graph trees record a graph per distinct input size; past the limit (8) they warn, naming
# no line: "... We have observed 9 distinct sizes. ..."
_RERECORD = re.compile(r"recording a new graph for each distinct input size.*?observed (?P<n>\d+) distinct sizes", re.S)


def parse_rerecord_warning(message: str) -> CudagraphSkip | None:
    match = _RERECORD.search(message)
    if match is None:
        return None
    return CudagraphSkip(f"a new CUDA graph for each distinct input size ({match['n']} sizes)", "", 0, message,
                         effect="rerecord")


def parse_partition_op(message: str) -> CudagraphSkip | None:
    """One op that graph partitioning keeps out of CUDA graphs, without its frame yet."""
    match = _PARTITION_OP.match(message)
    if match is None or match["reason"] == _NO_CUDAGRAPHS:
        return None
    ir = f" ({match['ir']})" if match["ir"] else ""
    return CudagraphSkip(f"{match['reason']}{ir}", "", 0, message, effect="partition")


def with_partition_frame(skip: CudagraphSkip, message: str) -> CudagraphSkip | None:
    """The partition op, given this record of its stack (indented nine spaces: a `File` line,
    whose frame is kept if it is user code, or a source line); None for any other record.
    The stack is outermost first, so the last user frame wins."""
    if not message.startswith(" " * 9):
        return None
    match = _STACK_LINE.match(message)
    if match is None or not _is_user_file(match["file"]):
        return skip
    return replace(skip, filename=_abs(match["file"]), lineno=int(match["line"]))


# cudagraph_trees.py logs at DEBUG each call it does not replay: a recording ("[0/0] Recording
# function=0, mode=..., cuda_graph_id=2"; older: "Recording function 0 of graph recording id 2")
# or an eager run ("Running warmup function=0", "Running warmup of function 0", "Running eager
# of function 0 because ancestor needed to warm up").
_RECORDING = re.compile(r"^(?:\[[^\]]*\] )?(?:Recording|Running warmup|Running eager)(?: of)? function[= ]")
# ... and warns (a Python warning, once per function) when a previous call's outputs still wait
# for a backward: "Unable to hit fast path of CUDAGraphs because outputs from a previous step
# still require backward" (2.13; 2.11 words the cause "pending, uninvoked backwards").
_FAST_PATH = "Unable to hit fast path of CUDAGraphs"
PENDING_BACKWARD = "a previous call's outputs still wait for a backward (grad enabled, no backward run)"
# A CUDA-graph stage that records a graph in this share of its calls (after the first) or more
# records on every call: it never settles into replaying.
EVERY_CALL = 0.5


def is_unreplayed(message: str) -> bool:
    return bool(_RECORDING.match(message))


# The function a record names, with its compile id ("[1/0]") and mode (FORWARD, BACKWARD,
# INFERENCE): one graph of the trees. 2.13 names the function by its model's __name__, older
# torch by its number; the compile id and mode tell apart graphs of one name.
_FUNCTION = re.compile(r"^(?:\[(?P<id>[^\]]*)\] )?(?:Re-recording|Recording|Running warmup|Running eager)(?: of)? "
                       r"function[= ](?P<function>[^,\s]+)(?:.*?\bmode=(?P<mode>\w+))?")
_REASON = re.compile(r"\breason=(?P<reason>.*)$", re.S)


# ... and, at INFO, each new tree it starts for a compiled graph: one per value of the graph's
# integer inputs ("[0/1] Recording cudagraph tree for symint key 7"); a value that changes every
# call (a counter, a length) records every call, in new graphs that each record once.
_TREE_KEY = re.compile(r"^(?:\[(?P<id>[^\]]*)\] )?Recording cudagraph tree for symint key ")
SYMINT_KEYS = "trees for new symint keys"


def tree_key_graph(message: str) -> str | None:
    """`trees for new symint keys [0/1]` for a new tree of a graph's integer inputs; else None."""
    match = _TREE_KEY.match(message)
    if match is None:
        return None
    return f"{SYMINT_KEYS} [{match['id']}]" if match["id"] else SYMINT_KEYS


def unreplayed_key(message: str) -> str:
    """`forward [1/0] FORWARD`: the graph of the trees that a record of theirs is about."""
    match = _FUNCTION.match(message)
    if match is None:
        return "?"
    return " ".join(p for p in (match["function"], f"[{match['id']}]" if match["id"] else "", match["mode"] or "") if p)


def rerecord_reason(message: str) -> tuple[str, str] | None:
    """(graph, reason) of a "Re-recording function=..., reason=..." record; None for others."""
    if not message.lstrip("[0123456789/] ").startswith("Re-recording"):
        return None
    reason = _REASON.search(message)
    words = " ".join(reason["reason"].split())[:300] if reason else ""
    return unreplayed_key(message), words


def every_call(by_function: dict[str, int], calls: int, at_least: int = 4) -> tuple[str, int] | None:
    """The graph of the trees that recorded or ran eagerly in EVERY_CALL of `calls` or more,
    else None. Counted per graph, not in all: a target of many graphs (graph breaks, a
    backward) records each of them once at the start, which in all can outnumber its calls."""
    if calls < at_least or not by_function:
        return None
    key = max(by_function, key=lambda k: by_function[k])
    return (key, by_function[key]) if by_function[key] >= EVERY_CALL * calls else None


def every_call_reason(graph: str, count: int, calls: str, by_function: dict[str, int], why: str) -> str:
    """The event's words: the graph, how often in which `calls`, and the trees' own reason
    where they gave one."""
    graphs = [n for key, n in by_function.items() if not key.startswith(SYMINT_KEYS)]
    total = sum(graphs)
    if graph.startswith(SYMINT_KEYS):
        return (f"CUDA graph trees recorded a new tree for the compiled graph {graph[len(SYMINT_KEYS):].strip()} "
                f"{count} times in {calls}, one per value of its integer inputs (an int that changes every "
                "call: a counter, a length): they record instead of replaying")
    text = (f"CUDA graph trees recorded or ran eagerly the graph `{graph}` {count} times in {calls} "
            f"instead of replaying ({total} times over its {len(graphs)} graph{'s' if len(graphs) != 1 else ''})")
    return text + (f'; they logged "Re-recording ... reason={why}"' if why else "")


def parse_fast_path_warning(message: str, stack: list[tuple[str, int]]) -> CudagraphSkip | None:
    """The fast-path warning, at the call of the compiled callable: the last user frame before
    the stack (outermost first) enters Dynamo's wrapper (eval_frame.py; inside it run the
    compiled function's own frames), else the innermost user frame."""
    if _FAST_PATH not in message:
        return None
    entry = next((i for i, (f, _) in enumerate(stack) if f.endswith(_EVAL_FRAME)), len(stack))
    for frames in (stack[:entry], stack):
        user = [f for f in frames if _is_user_file(f[0]) and not f[0].startswith(_BREAKLINT_ROOT)]
        if user:
            break
    filename, lineno = user[-1] if user else ("", 0)
    return CudagraphSkip(PENDING_BACKWARD, filename, lineno, message, effect="pending-backward")


_BREAKLINT_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep
_EVAL_FRAME = os.path.join("_dynamo", "eval_frame.py")


_LIMIT_PREFIX = "torch._dynamo hit config."
_LIMIT_FUNCTION = re.compile(r"function: '(?P<fn>[^']*)' \((?P<file>.+):(?P<line>\d+)\)")


def parse_recompile_limit(message: str) -> list[GraphBreak]:
    """The recompile-limit warning, as a GB0039 event at the function's first line.

    Dynamo then runs the frame eagerly, but (2.13) logs no `graph_breaks` record for it.
    """
    where = _LIMIT_FUNCTION.search(message)
    if where is None:
        return []
    # Renamed in 2.11 (formerly "Dynamo cache limit exceeded").
    gb_type = next((t for t in ("Dynamo recompile limit exceeded", "Dynamo cache limit exceeded")
                    if lookup_gb_id(t)), "Dynamo recompile limit exceeded")
    return [GraphBreak(_abs(where["file"]), int(where["line"]), gb_type, lookup_gb_id(gb_type),
                       message, frame_skipped=True)]


# --------------------------------------------------------------------------- capture

_ACTIVE: list[Capture] = []  # nested captures all receive every event


class _Sink(logging.Filter):
    """Logger filter that records events. It returns False for the records of artifacts we
    turned on (so no handler prints them) and True for those the user asked for (TORCH_LOGS)
    and for the recompile-limit warning (torch prints it whether or not we listen)."""

    def filter(self, record: logging.LogRecord) -> bool:
        artifact = ".__" in record.name
        kind = record.name.rsplit(".__", 1)[-1]
        try:
            message = record.getMessage()
            events: list[GraphBreak] = []
            recompile = None
            skip = None
            if not artifact:
                if not message.startswith(_LIMIT_PREFIX):
                    return True
                events = parse_recompile_limit(message)
            elif kind == _GRAPH_BREAKS:
                exc = record.exc_info[1] if record.exc_info else None
                events = parse_graph_break(message, exc)
            elif kind in _CUDAGRAPHS:
                if is_unreplayed(message):
                    key = unreplayed_key(message)
                    for cap in _ACTIVE:
                        cap.cudagraph_unreplayed += 1
                        cap.cudagraph_unreplayed_by_function[key] = cap.cudagraph_unreplayed_by_function.get(key, 0) + 1
                    return kind not in _added_artifacts
                tree = tree_key_graph(message)
                if tree is not None:
                    for cap in _ACTIVE:
                        cap.cudagraph_unreplayed_by_function[tree] = cap.cudagraph_unreplayed_by_function.get(tree, 0) + 1
                    return kind not in _added_artifacts
                rerecord = rerecord_reason(message)
                if rerecord is not None:
                    for cap in _ACTIVE:
                        cap.cudagraph_rerecord_reasons.setdefault(*rerecord)
                    return kind not in _added_artifacts
                skip = parse_cudagraph_skip(message) or parse_partition_op(message) or parse_rerecord_warning(message)
            else:
                recompile = parse_recompile(message)
        except Exception:  # an unexpected text must never break the user's compile
            return not artifact or kind not in _added_artifacts
        for cap in _ACTIVE:
            if kind in _CUDAGRAPHS and skip is None and cap.open_partition:
                framed = with_partition_frame(cap.cudagraph_skips[-1], message)
                if framed is not None:
                    cap.cudagraph_skips[-1] = framed
                    continue
            cap.open_partition = skip is not None and skip.effect == "partition"
            cap.messages.append(message)
            cap.graph_breaks.extend(events)
            if recompile is not None:
                cap.recompiles.append(recompile)
            if skip is not None:
                cap.cudagraph_skips.append(skip)
        return not artifact or kind not in _added_artifacts


def _on_warning(message: warnings.WarningMessage | str, *rest: object) -> None:
    """warnings.showwarning while we listen: note the fast-path warning, then show it as before."""
    text = str(message)
    frame, stack = sys._getframe(1), []
    while frame is not None:
        stack.append((os.path.abspath(frame.f_code.co_filename), frame.f_lineno))
        frame = frame.f_back
    skip = parse_fast_path_warning(text, stack[::-1])
    if skip is not None:
        for cap in _ACTIVE:
            cap.cudagraph_skips.append(skip)
    _shown[0](message, *rest)  # type: ignore[arg-type]


_SINK = _Sink()
_saved: list[tuple[logging.Logger, int]] = []
_shown: list = []  # the warnings.showwarning we replaced
_warning_state: list[warnings.catch_warnings] = []  # the user's filters and showwarning, restored on exit
_late: list[logging.Logger] = []  # artifact loggers made while we listened (configure_artifact_log)
_configure: list = []  # torch's configure_artifact_log, while we wrap it
_added_artifacts: set[str] = set()
_patched: list[object] = []  # duplicate checkers told to keep every stack (_keep_duplicate_stacks)


def _artifact_loggers() -> list[logging.Logger]:
    from torch._logging import _internal

    qnames = getattr(_internal.log_registry, "artifact_log_qnames", None) or _KNOWN_LOGGERS
    return [logging.getLogger(q) for q in sorted(qnames) if q.rsplit(".__", 1)[-1] in _LISTENED]


# Modules whose artifact loggers exist only once they are imported (at the first compile,
# after we list the loggers): the scheduler logs graph partitions.
_LATE_LOGGER_MODULES = ("torch._inductor.cudagraph_utils", "torch._inductor.scheduler",
                        "torch._inductor.cudagraph_trees")


def _install() -> None:
    import torch._dynamo  # noqa: F401  (creates the artifact loggers before we look for them)

    for name in _LATE_LOGGER_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # an older or broken Inductor: listen to what exists
            pass
    from torch._logging import _internal

    # Dynamo checks log_state (is_recompiles_enabled) as well as the logger level.
    state = _internal.log_state
    _added_artifacts.update({_GRAPH_BREAKS, _RECOMPILES, *_CUDAGRAPHS} - set(state.artifact_names))
    state.artifact_names.update(_added_artifacts)
    for logger in _artifact_loggers():
        _saved.append((logger, logger.level))
        logger.setLevel(logging.DEBUG)
        logger.addFilter(_SINK)
    # Listen only (level untouched) for the recompile-limit warning.
    limit_logger = logging.getLogger(_LIMIT_LOGGER)
    _saved.append((limit_logger, limit_logger.level))
    limit_logger.addFilter(_SINK)
    _keep_duplicate_stacks()
    _listen_to_late_loggers(_internal)
    state = warnings.catch_warnings()
    state.__enter__()
    _warning_state.append(state)
    # Every time, not once per process: a second run of the pitfall (another stage, another
    # scenario) must be seen too. torch warns once per function and manager anyway.
    warnings.filterwarnings("always", message=_FAST_PATH)
    _shown.append(warnings.showwarning)
    warnings.showwarning = _on_warning  # type: ignore[assignment]


def _listen_to_late_loggers(internal: object) -> None:
    """An artifact logger made while we listen (a module Inductor imports at its first compile)
    reads the artifact names we turned on and propagates its records to torch's handler on
    stderr: the user would see our listening. Such a logger gets our filter instead, and is put
    back as torch made it when we stop."""
    original = getattr(internal, "configure_artifact_log", None)
    if original is None:
        return

    def configure(log: logging.Logger) -> None:
        original(log)
        if getattr(log, "artifact_name", None) in _LISTENED and _SINK not in log.filters:
            _late.append(log)
            log.addFilter(_SINK)
            log.setLevel(logging.DEBUG)

    _configure.append(original)
    internal.configure_artifact_log = configure  # type: ignore[attr-defined]


def _keep_duplicate_stacks() -> None:
    """Dynamo logs a break it has logged before without its user stack. Torch 2.11 keys that
    on the innermost frame only, so the same break in a polyfill (a tuple comparison) reached
    from a second user line loses that line; 2.13 keys it on the whole chain. While we listen,
    every break keeps its stack."""
    checker = getattr(importlib.import_module("torch._dynamo.utils"), "graph_break_dup_warning_checker", None)
    if checker is not None and "add" not in vars(checker):
        checker.add = lambda key: True  # an instance attribute, removed again by _uninstall
        _patched.append(checker)


def _uninstall() -> None:
    from torch._logging import _internal

    for logger, level in _saved:
        logger.removeFilter(_SINK)
        logger.setLevel(level)
    _saved.clear()
    _internal.log_state.artifact_names.difference_update(_added_artifacts)
    _added_artifacts.clear()
    for checker in _patched:
        del checker.add
    _patched.clear()
    if _configure:
        _internal.configure_artifact_log = _configure.pop()  # type: ignore[attr-defined]
    for log in _late:
        log.removeFilter(_SINK)
        log.setLevel(logging.NOTSET)
        _internal.configure_artifact_log(log)  # as torch would have made it without us
    _late.clear()
    _shown.clear()
    if _warning_state:
        _warning_state.pop().__exit__(None, None, None)


def _counters() -> tuple[int, int]:
    from torch._dynamo.utils import counters

    return counters["frames"]["ok"], counters["stats"]["unique_graphs"]


@contextmanager
def capture_dynamo() -> Iterator[Capture]:
    """Collect graph breaks and recompiles logged while the body runs.

    Restores the logging configuration on exit; the captured records are not printed.
    """
    cap = Capture()
    if not _ACTIVE:
        _install()
    _ACTIVE.append(cap)
    frames0, graphs0 = _counters()
    try:
        yield cap
    finally:
        frames1, graphs1 = _counters()
        cap.frames_compiled = max(0, frames1 - frames0)
        cap.graphs_compiled = max(0, graphs1 - graphs0)
        del _ACTIVE[next(i for i, c in enumerate(_ACTIVE) if c is cap)]  # not ==: equal twins
        if not _ACTIVE:
            _uninstall()
