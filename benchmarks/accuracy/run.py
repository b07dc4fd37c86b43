"""Accuracy of breaklint's graph-break findings against real Dynamo, from one command.

    python benchmarks/accuracy/run.py [--site DIR] [--skip-install]

1. Installs the pinned corpus (timm, diffusers, transformers; corpus.py) with pip into --site
   (no torch, no torchvision: see corpus.py).
2. Runs every corpus model through real Dynamo (dynamo_worker.py, a subprocess), and the
   project's testdata (the graph-break rules' files and the multi-file projects under
   testdata/projects/) and the recall corpus (benchmarks/accuracy/breaks/: the constructs of
   issue #17 in third-party style, unmarked) through tests/ground_truth_runner.py; all record
   Dynamo's own graph-break logs. `--parts breaks` (or `corpus`, `testdata`) runs only those
   parts and keeps the others' figures from the last accuracy.json.
3. Runs `breaklint check` over the same sources (the corpus with the models' `forward`s as entry
   points and `assume-forward-compiled = false`; the testdata as it is).
4. Joins graph-break findings (BL1xx, and the BL3xx breaks) with runtime break sites by file and
   line, and writes benchmarks/results/accuracy.md and accuracy.json.

What counts: a *prediction* is a graph-break finding at confidence `certain` or `likely` (severity
warning or error). It is a true positive when Dynamo broke the graph at its line, a false alarm
when it did not; a runtime break site with no prediction is a miss. `possible` findings
(severity info: a call in a branch that only warns, logs or raises) are notes, not predictions:
they count neither way and are listed on their own, with whether Dynamo broke there; a site
that only a note covers is a miss. A graph break in a loop (GB7000) makes Dynamo skip its frame: it
is a site, and a prediction later in a function whose frame Dynamo skipped at a site, or whose
rest it ran eagerly after a break it cannot resume from (Dynamo's "cannot resume from" record), is
not observable (listed, not scored). Only breaks in the corpus' own files (or the testdata files)
count, and only findings in the regions the run compiles.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(HERE))

sys.path.insert(0, str(ROOT / "tests"))

from corpus import CASES, DEPENDENCIES, PACKAGES, SOURCES  # noqa: E402
from testdata import marker_reasons, project_dirs, project_files  # noqa: E402

BREAK_CODES = ("BL1", "BL3")  # rules whose findings are graph breaks
NOTE = "possible"  # the confidence of notes: not predictions (see the docstring)
# Why each corpus false alarm, miss or note is one (reviewed by hand; keyed by `path:line`).
# The testdata's own are written in the files, as `# miss: BLxxx (why)` / `# false-alarm: ...`.
_W2V = "transformers/models/wav2vec2/modeling_wav2vec2.py"
_BIGBIRD = "transformers/models/big_bird/modeling_big_bird.py"
_REFORMER = "transformers/models/reformer/modeling_reformer.py"
_UNBUILT = ("in `Wav2Vec2EncoderStableLayerNorm`, the encoder this config does not build: reported `possible`, only "
            "when `config.do_stable_layer_norm` is true (the default is False, as here)")
_FLEX = ("only with `attn_implementation=\"flex_attention\"`: reported `possible`, the default being 'sdpa' or "
         "'eager'")
_LONGFORMER = "transformers/models/longformer/modeling_longformer.py"
CAUSES = {
    # notes: a branch that only warns or raises, which none of these calls takes
    "diffusers/models/attention.py:963": "only when `cross_attention_kwargs` carries `scale` (a deprecated argument); "
                                         "the branch is not taken, so Dynamo never traces the call",
    "diffusers/models/attention_processor.py:600": "only when `cross_attention_kwargs` has keys the processor ignores; "
                                                   "branch not taken",
    "diffusers/utils/deprecation_utils.py:35": "`deprecate()` runs only for deprecated arguments; branch not taken",
    "diffusers/utils/deprecation_utils.py:38": "`deprecate()` runs only for deprecated arguments; branch not taken",
    "timm/layers/pos_embed.py:57": "only with `verbose=True` when a position embedding is resampled; branch not taken",
    "transformers/modeling_utils.py:1572": "only when the deprecated `device` argument is passed; branch not taken",
    "transformers/modeling_utils.py:1621": "only when the deprecated `device` argument is passed; branch not taken",
    # notes: code only a non-default setting runs
    "transformers/utils/import_utils.py:62": _FLEX + " (a package-version check on the way)",
    "transformers/utils/import_utils.py:82": _FLEX + " (a package-version check on the way)",
    "transformers/utils/import_utils.py:92": _FLEX + " (a package-version check on the way)",
    f"{_W2V}:823": _UNBUILT,
    f"{_W2V}:831": _UNBUILT,
    f"{_W2V}:973": "`np.random.random()` in `Wav2Vec2Adapter.forward`: reported `possible`, only when "
                   "`config.add_adapter` is true (the default is False, as here)",
    # not observable (listed without a cause) and false alarms
    f"{_W2V}:735": "a real tensor test (`if skip_the_layer:`, LayerDrop) in the loop that line 728 breaks: a break in a "
                   "loop makes Dynamo skip the whole frame, so it never reaches 735 (not observable while 728 breaks)",
    f"{_BIGBIRD}:1912": "only for inputs too short for block-sparse attention (<= 18 tokens with this config; these have "
                        "32); the branch also switches the attention type, so it is not a warning-only branch",
    f"{_REFORMER}:1009": "`.nonzero()` in `_get_relevant_hid_states_and_buckets`, which only cached generation runs "
                         "(`past_buckets_states` passed, one token at a time): these calls pass no cache. The value is "
                         "a tensor (`_stable_argsort` returns `torch.argsort(...)`, followed through the return), and "
                         "Dynamo would break there on that path",
    f"{_REFORMER}:744": "`torch.manual_seed(self.hash_seed)` only when `config.hash_seed` is set (None in this config)",
    # misses
    f"{_LONGFORMER}:965": "`attn_probs.narrow(-1, max_num_global_attn_indices, "
        "...)` with global attention: the count is a 0-d tensor (`num_global_attn_indices.max()`) returned in a tuple by "
        "the static helper `_get_global_attn_indices`; values are not followed through a callee's return",
    f"{_LONGFORMER}:1017": "`assert list(t.size()) == [..., "
        "max_num_global_attn_indices, ...]`: a list comparison with that tensor inside (GB6622); the same untracked "
        "return value",
    f"{_LONGFORMER}:1067": "as line 1017, for the global attention output",
}


_BREAKS = "benchmarks/accuracy/breaks"
# Why each miss or false alarm of the recall corpus is one (reviewed by hand).
BREAKS_CAUSES = {
    f"{_BREAKS}/control_flow_exceptions.py:27": "an `assert` inside a `with` block: reported `possible` (it breaks "
                                                "only in the calls where it fails, which this run's batch of 8 does)",
    f"{_BREAKS}/tensor_ops.py:61": "an f-string of a tensor value, broken where the string is used (`len(key)`, "
                                   "GB0088): not detected",
    f"{_BREAKS}/negatives.py:14": "the tensor test runs only for float16 inputs (`hidden_states.dtype == torch.float16 "
                                  "and ...`): reported `possible`; these calls are float32",
    f"{_BREAKS}/negatives.py:30": "LayerDrop under `if self.training:`: reported `possible`; the encoder is compiled in "
                                  "eval mode here",
}


def install(site: Path) -> None:
    site.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                    "-c", str(ROOT / "constraints.txt"), *PACKAGES, *DEPENDENCIES], check=True)


def run_corpus(site: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE), str(site), str(HERE / "shim")])}
    subprocess.run([sys.executable, str(HERE / "dynamo_worker.py"), str(out)], check=True, env=env,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=3600)
    return json.loads(out.read_text(encoding="utf-8"))


def run_testdata(out: Path) -> tuple[dict, list[Path], list[Path]]:
    """The graph-break rules' testdata files and the multi-file projects, through the runner."""
    files = sorted((ROOT / "testdata" / "rules").glob("BL[13]*/*.py"))
    projects = project_dirs()
    env = {**os.environ, "PYTHONBREAKPOINT": "0", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, str(ROOT / "tests" / "ground_truth_runner.py"), str(out),
                    *map(str, files), *map(str, projects)],
                   check=True, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=3600)
    scored = files + [path for project in projects for path in project_files(project)]
    return json.loads(out.read_text(encoding="utf-8")), files + projects, scored


def testdata_causes(paths: list[Path]) -> dict[str, str]:
    """`path:line` -> the reason its `# miss:` / `# false-alarm:` / `# possible:` marker gives."""
    causes = {}
    for path in paths:
        where = os.path.relpath(path, ROOT)
        for kind, prefix in (("miss", "known miss"), ("false-alarm", "known false alarm"),
                             ("possible", "a `possible` note (a branch that only warns or raises, or code only a "
                                          "non-default setting runs; configured_encoder's train.py runs those too)")):
            for (line, code), why in marker_reasons(path, kind).items():
                causes[f"{where}:{line}"] = f"{prefix} ({code}){': ' + why if why else ''}"
    return causes


BREAKS = HERE / "breaks"  # the recall corpus: third-party-style cases of #17's constructs


def run_breaks(out: Path) -> tuple[dict, list[Path]]:
    files = sorted(BREAKS.glob("*.py"))
    env = {**os.environ, "PYTHONBREAKPOINT": "0", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, str(ROOT / "tests" / "ground_truth_runner.py"), str(out), *map(str, files)],
                   check=True, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=3600)
    return json.loads(out.read_text(encoding="utf-8")), files


def breaklint(paths: list[Path], cwd: Path, config: Path | None) -> list[dict]:
    args = [sys.executable, "-m", "breaklint", "check", *map(str, paths), "--format", "json", "--exit-zero"]
    if config is not None:
        args += ["--config", str(config)]
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout)


LOOP_BREAK = "GB7000"  # "graph break in loop": Dynamo skips the whole frame from that break on
# Breaks that skip their frame whatever else broke in the run: an RNN module (GB0014, "Attempted to
# wrap RNN, GRU, or LSTM"). A skip with one of these ids is its own cause, never a consequence.
OWN_SKIPS = frozenset({"GB0014"})


def runtime_sites(cases: dict, inside: callable) -> dict[tuple[str, int], set[str]]:  # type: ignore[valid-type]
    """(file, line) -> Gb_types of every graph break Dynamo logged in the files we score."""
    sites: dict[tuple[str, int], set[str]] = defaultdict(set)
    for case in cases.values():
        # A frame skip after a break Dynamo resumed from (a sparse tensor returned after the
        # break that made it) is a consequence, not a site; a skip on its own (a break in a
        # loop, an RNN in forward) is the site, and so is a break in a loop anywhere (GB7000 at
        # that line), which is what made the frame skip, and an RNN module anywhere (OWN_SKIPS).
        resumed = any(not e["frame_skipped"] for e in case["graph_breaks"])
        in_loop = {(e["filename"], e["lineno"]) for e in case["graph_breaks"] if e["gb_id"] == LOOP_BREAK}
        for event in case["graph_breaks"]:
            if resumed and event["frame_skipped"] and (event["filename"], event["lineno"]) not in in_loop \
                    and event["gb_id"] not in OWN_SKIPS:
                continue
            if event["lineno"] and inside(event["filename"]) and event["gb_id"] != "GB0039":
                sites[(os.path.realpath(event["filename"]), event["lineno"])].add(f"{event['gb_type']} ({event['gb_id']})")
    return sites


def untraced_after_breaks(cases: dict, inside: callable) -> dict[str, list[tuple[int, int]]]:  # type: ignore[valid-type]
    """file -> (first, last) line spans Dynamo never traced: at a break it cannot resume from (a
    break in a loop, GB7000; an RNN module, GB0014; ...) it skips the frame, or compiles up to the
    break and runs the rest of the function eagerly ("cannot resume from", `rest_skipped`), so the
    rest of that function, from the break on, is not observed in the run that breaks there (its
    callees are: they are compiled as frames of their own). Only breaks that are sites
    (runtime_sites) count."""
    spans: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for case in cases.values():
        resumed = any(not e["frame_skipped"] for e in case["graph_breaks"])
        in_loop = {(e["filename"], e["lineno"]) for e in case["graph_breaks"] if e["gb_id"] == LOOP_BREAK}
        for event in case["graph_breaks"]:
            where = (event["filename"], event["lineno"])
            frame_skip = event["frame_skipped"] and event["gb_id"] != "GB0039" and \
                (not resumed or where in in_loop or event["gb_id"] in OWN_SKIPS)
            if not (frame_skip or event.get("rest_skipped")):
                continue
            if event["lineno"] and inside(event["filename"]):
                path = os.path.realpath(event["filename"])
                end = _function_end(path, event["lineno"])
                if end is not None:
                    spans[path].add((event["lineno"] + 1, end))
    return {path: sorted(found) for path, found in spans.items()}


def _function_end(path: str, line: int) -> int | None:
    """The last line of the innermost function that holds `line`."""
    import ast

    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    ends = [node.end_lineno for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0)]
    return min(ends, default=None)


def score(findings: list[dict], sites: dict[tuple[str, int], set[str]], base: Path,
          unobserved: dict[str, list[tuple[int, int]]] | None = None) -> dict:
    flagged: dict[tuple[str, int], list[dict]] = defaultdict(list)
    noted: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for finding in findings:
        if finding["code"].startswith(BREAK_CODES):
            key = (os.path.realpath(base / finding["path"]), finding["start_line"])
            (noted if finding["confidence"] == NOTE else flagged)[key].append(finding)
    noted = {k: v for k, v in noted.items() if k not in flagged}  # a line with a prediction is scored as one
    # A prediction Dynamo could not have confirmed or refuted (after a loop break, in the frame it
    # skipped) is listed, not scored.
    hidden = {k: first - 1 for k in flagged if k not in sites
              for first, last in (unobserved or {}).get(k[0], []) if first <= k[1] <= last}
    unscored = {k: flagged.pop(k) for k in hidden}
    hits = sorted(set(flagged) & set(sites))
    alarms = sorted(set(flagged) - set(sites))
    misses = sorted(set(sites) - set(flagged))
    precision = len(hits) / len(flagged) if flagged else None
    recall = len(hits) / len(sites) if sites else None

    def where(key: tuple[str, int]) -> str:
        return f"{os.path.relpath(key[0], base)}:{key[1]}"

    return {
        "findings": len(flagged), "runtime_sites": len(sites), "true_positives": len(hits),
        "precision": precision, "recall": recall,
        "notes": len(noted), "notes_that_broke": sum(1 for k in noted if k in sites),
        "hits": [{"where": where(k), "codes": sorted({f["code"] for f in flagged[k]}), "dynamo": sorted(sites[k])}
                 for k in hits],
        "false_alarms": [{"where": where(k), "codes": sorted({f["code"] for f in flagged[k]}),
                          "message": flagged[k][0]["message"]} for k in alarms],
        "misses": [{"where": where(k), "dynamo": sorted(sites[k])} for k in misses],
        "possible": [{"where": where(k), "codes": sorted({f["code"] for f in noted[k]}), "broke": k in sites,
                      "message": noted[k][0]["message"]} for k in sorted(noted)],
        "unobserved": [{"where": where(k), "codes": sorted({f["code"] for f in unscored[k]}), "after_line": hidden[k],
                        "message": unscored[k][0]["message"]} for k in sorted(hidden)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=Path(tempfile.gettempdir()) / "breaklint-accuracy-site")
    parser.add_argument("--skip-install", action="store_true")
    parser.add_argument("--parts", default="corpus,testdata,breaks",
                        help="comma-separated: corpus, testdata, breaks (the others keep their last figures)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    site: Path = args.site.resolve()
    work = Path(tempfile.mkdtemp(prefix="breaklint-accuracy-"))
    previous = json.loads((RESULTS / "accuracy.json").read_text(encoding="utf-8")) if (RESULTS / "accuracy.json").is_file() else {}
    import torch

    report = {"torch": torch.__version__, "python": sys.version.split()[0], "packages": list(PACKAGES),
              **{k: previous[k] for k in ("models", "corpus", "testdata", "breaks") if k in previous}}
    if "breaks" in parts:
        report["breaks"] = score_breaks(work)
    if "corpus" in parts:
        if not args.skip_install:
            install(site)
        report["models"], report["corpus"] = score_corpus(site, work)
    if "testdata" in parts:
        report["testdata"] = score_testdata(work)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "accuracy.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (RESULTS / "accuracy.md").write_text(render(report), encoding="utf-8")
    print(render(report))


def score_breaks(work: Path) -> dict:
    """The recall corpus: every break Dynamo logs in its files is a site (they carry no markers)."""
    runs, files = run_breaks(work / "breaks.json")
    cases = {f"{path}::{name}": case for path, found in runs.items() for name, case in found.items()}
    roots = {str(f.resolve()) for f in files}
    inside = lambda f: os.path.realpath(f) in roots  # noqa: E731
    result = score(breaklint([BREAKS], ROOT, None), runtime_sites(cases, inside), ROOT,
                   untraced_after_breaks(cases, inside))
    result["files"] = len(files)
    return result


def score_corpus(site: Path, work: Path) -> tuple[dict, dict]:
    """The real models: only their forwards are compiled, as in the Dynamo run."""
    corpus_runs = run_corpus(site, work / "corpus.json")
    config = work / "breaklint.toml"
    entries = "".join(f'  "{entry}",\n' for entry in sorted({case.entry for case in CASES}))
    config.write_text(f"assume-forward-compiled = false\nentry-points = [\n{entries}]\n", encoding="utf-8")
    corpus_findings = [f for f in breaklint([site / name for name in SOURCES], site, config)
                       if f.get("region") and f["region"]["site"].startswith("config")]
    in_corpus = lambda f: os.path.realpath(f).startswith(str(site))  # noqa: E731
    corpus = score(corpus_findings, runtime_sites(corpus_runs, in_corpus), site,
                   untraced_after_breaks(corpus_runs, in_corpus))
    models = {name: {"graphs": run["graphs"], "graph_breaks": len({(b["filename"], b["lineno"]) for b in run["graph_breaks"]}),
                     "recompiles": len(run["recompiles"]), "error": run["error"]} for name, run in corpus_runs.items()}
    return models, corpus


def score_testdata(work: Path) -> dict:
    """The project's own testdata (graph-break rules and projects), through the ground-truth runner."""
    testdata_runs, targets, scored = run_testdata(work / "testdata.json")
    testdata_cases = {f"{path}::{name}": case for path, cases in testdata_runs.items() for name, case in cases.items()}
    roots = {str(f) for f in scored}
    in_testdata = lambda f: os.path.realpath(f) in roots  # noqa: E731
    testdata = score(breaklint(targets, ROOT, None), runtime_sites(testdata_cases, in_testdata), ROOT,
                     untraced_after_breaks(testdata_cases, in_testdata))
    testdata["projects"] = [p.name for p in project_dirs()]
    testdata["files"] = len(scored)
    testdata["causes"] = testdata_causes(scored)
    return testdata


def _part(where: str) -> str:
    """`transformers` for a corpus site, `testdata/projects` or `testdata/rules` for the testdata."""
    parts = where.split("/")
    if parts[:3] == ["benchmarks", "accuracy", "breaks"]:
        return parts[3].split(":")[0]
    return "/".join(parts[:2]) if parts[0] == "testdata" else parts[0]


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render(report: dict) -> str:
    td = report.get("testdata", {})
    names = [name for name in ("corpus", "testdata", "breaks") if name in report]
    lines = [
        "# breaklint accuracy: graph-break findings against real Dynamo",
        "",
        f"torch {report['torch']}, Python {report['python']}, corpus {', '.join(report['packages'])}; "
        "`python benchmarks/accuracy/run.py` writes this file.",
        "",
        "How findings are counted: a *prediction* is a graph-break finding (BL1xx, BL3xx) at confidence "
        "`certain` or `likely` (severity warning or error), in a region the run compiles. It is a true "
        "positive when Dynamo logged a graph break at its file and line, else a false alarm; a break "
        "site (file and line; a frame skip that follows a resumed break is not a site of its own) with "
        "no prediction is a miss. `possible` findings (severity info: a call in a branch that only warns, "
        "logs or raises under a test of Python values) are notes, not predictions: they count neither "
        "way, a site only a note covers is a miss, and they are listed below with whether Dynamo broke "
        "there. A break in a loop (Dynamo's GB7000) is a site even when its frame is skipped; a prediction "
        "later in a function whose frame Dynamo skipped at a site (a break in a loop, an RNN module), or "
        "whose rest it ran eagerly after a break it cannot resume from, is *not observable* (the run "
        "that breaks there never traces it): listed, not scored. "
        "testdata: the graph-break rules' bad/good files and the multi-file projects "
        f"({', '.join(td.get('projects', []))}) under testdata/projects/, {td.get('files', 0)} files, run "
        "as the ground-truth test runs them. breaks: the recall corpus of issue #17's constructs "
        f"(benchmarks/accuracy/breaks/, {report.get('breaks', {}).get('files', 0)} files written in the style of "
        "third-party model code, unmarked: every break Dynamo logs there is a site).",
        "",
        "| corpus | predictions | runtime break sites | true positives | precision | recall | possible notes (at a break) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        s = report[name]
        lines.append(f"| {name} | {s['findings']} | {s['runtime_sites']} | {s['true_positives']} | "
                     f"{_ratio(s['precision'])} | {_ratio(s['recall'])} | {s['notes']} ({s['notes_that_broke']}) |")
    lines += ["", "By package (the first path component of each site, prediction and note):", "",
              "| part | predictions | runtime break sites | true positives | false alarms | misses | notes |",
              "|---|---|---|---|---|---|---|"]
    for name in names:
        s = report[name]
        if "hits" not in s:
            continue
        for part in sorted({_part(i["where"]) for kind in ("hits", "false_alarms", "misses", "possible") for i in s[kind]}):
            count = {kind: sum(1 for i in s[kind] if _part(i["where"]) == part)
                     for kind in ("hits", "false_alarms", "misses", "possible")}
            lines.append(f"| {name}: {part} | {count['hits'] + count['false_alarms']} | {count['hits'] + count['misses']} | "
                         f"{count['hits']} | {count['false_alarms']} | {count['misses']} | {count['possible']} |")
    lines += ["", "## Models (eval forward under no_grad, train forward, train forward with another batch size; the text "
              "and audio models also a train forward on a padded batch, on a fresh cache)", "",
              "| model | graphs | break sites | recompiles | error |", "|---|---|---|---|---|"]
    for name, model in report.get("models", {}).items():
        error = (model["error"] or "").splitlines()[-1:] if model["error"] else []
        lines.append(f"| {name} | {model['graphs']} | {model['graph_breaks']} | {model['recompiles']} | {' '.join(error)} |")
    for name in names:
        s = report[name]
        causes = {**CAUSES, **BREAKS_CAUSES, **s.get("causes", {})}
        if name in ("corpus", "breaks") and "hits" in s:
            lines += ["", f"## {name}: true positives ({len(s['hits'])})", ""]
            lines += [f"- `{h['where']}` {', '.join(h['codes'])}: {'; '.join(h['dynamo'])}" for h in s["hits"]] or ["none"]
        lines += ["", f"## {name}: false alarms ({len(s['false_alarms'])})", ""]
        lines += [f"- `{a['where']}` {', '.join(a['codes'])}: {a['message']}  \n  cause: "
                  f"{causes.get(a['where'], 'not reviewed yet')}" for a in s["false_alarms"]] or ["none"]
        lines += ["", f"## {name}: misses ({len(s['misses'])})", ""]
        lines += [f"- `{m['where']}`: {'; '.join(m['dynamo'])}  \n  cause: {causes.get(m['where'], 'not reviewed yet')}"
                  for m in s["misses"]] or ["none"]
        lines += ["", f"## {name}: possible notes ({len(s['possible'])})", ""]
        lines += [f"- `{n['where']}` {', '.join(n['codes'])} ({'Dynamo broke here' if n['broke'] else 'no break in these runs'}): "
                  f"{n['message']}  \n  cause: {causes.get(n['where'], 'not reviewed yet')}" for n in s["possible"]] or ["none"]
        lines += ["", f"## {name}: not observable, not scored ({len(s.get('unobserved', []))})", ""]
        lines += [f"- `{u['where']}` {', '.join(u['codes'])}: after the break at line {u['after_line']} of the same "
                  f"function, where Dynamo stops tracing it (it skips the frame, or cannot resume and runs the rest "
                  f"eagerly), so the run that breaks there never traces this line: "
                  f"{u['message']}" for u in s.get("unobserved", [])] or ["none"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
