"""breaklint's speed, side by side with libcst's parse floor and with fixit and torchfix.

    python benchmarks/speed.py                       # the installed torch, 3 repeats
    python benchmarks/speed.py --corpus transformers=/tmp/corpora/transformers-src/transformers \\
        --corpus torch --peers /tmp/bench-venv/bin --repeat 3

Every measurement runs in a fresh process on the same file list (breaklint's own discovery of
the corpus, `.py` files only), one after the other in one run, so the ratios compare like with
like on a shared machine. The rows the targets compare (libcst's floor and the cold checks) run
in rounds, one run of each per round, so that a machine whose speed drifts during the run
moves them alike (the targets, judged by the minimums, also show each round's ratio: the one-job
ratios against the floor of the same round, with their median; the two-job ratio beside libcst's
own in the same rounds); the warm rows follow, each repeated in turn. Per measurement: wall time (min
and median over the repeats), files/s (from the min) and peak RSS (the largest process; workers
are separate processes). It writes a Markdown table to benchmarks/results/ and prints it.

Measurements:
- libcst parse-only: `libcst.parse_module` on every file, trees dropped (the floor of any tool
  that parses every file with libcst), with 1 job and with all cores;
- breaklint cold, `--no-cache`, 1 job and all cores;
- two one-job cold checks started at once (on two cores or more): what two busy processes cost
  each other here, so 2 × one job / this is the most two jobs could gain on this machine (the
  two-job target's reference, shown beside it round by round);
- breaklint warm (cache filled, nothing changed) and warm with one file touched (a function
  appended to a file that holds a compiled region, a new one each repeat);
- the pre-commit case: 10 files of the tree named on the command line, warm;
- with `--scope-all`, breaklint cold under `--scope all` (every function checked), 1 job and all
  cores, held to libcst's floor with 1 job (issue #18's item 10: "about the floor", read here as
  at most 1.25 ×);
- fixit (its default rules) and torchfix (its default rules), from `--peers` (a bin folder:
  install them apart from the project, e.g. `python -m venv /tmp/bench-venv &&
  /tmp/bench-venv/bin/pip install -c constraints.txt fixit==2.2.1 torchfix==0.7.0`).
The corpora are copied to a scratch folder first: the touched-file case edits the copy.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
TOUCH = "\n\ndef _breaklint_benchmark_touch_{n}(x):\n    return x + {n}\n"


@dataclass
class Measurement:
    name: str
    jobs: str
    files: int
    walls: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    note: str = ""

    @property
    def best(self) -> float:
        return min(self.walls)

    @property
    def median(self) -> float:
        return statistics.median(self.walls)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except AttributeError:
        return os.cpu_count() or 1


def measure(command: list[str], cwd: Path, ok_codes: tuple[int, ...] = (0, 1), copies: int = 1) -> tuple[float, float]:
    """Wall time and peak RSS of `command`, run under a helper whose only children its `copies`
    are (started at once; the wall time is the last one's)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as spec:  # one argv entry is 128 KiB at most
        json.dump([command, list(ok_codes), copies], spec)
    helper = [sys.executable, str(Path(__file__).resolve()), "--run-one", spec.name]
    try:
        result = subprocess.run(helper, cwd=cwd, capture_output=True, text=True)
    finally:
        os.unlink(spec.name)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ...: {result.stderr[-3000:]}")
    wall, rss = json.loads(result.stdout.strip().splitlines()[-1])
    return wall, rss


def run_one(spec: str) -> None:
    """The helper: run one command (from a JSON file), report its wall time and its peak RSS
    (the largest process of its tree)."""
    import resource

    command, ok_codes, copies = json.loads(Path(spec).read_text())
    # As installed by pip, with bytecode: where the environment forbids writing it, every run
    # would compile breaklint's and libcst's modules again (a third of a warm run).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    # `copies` of the command at once (the machine's ceiling, see CEILING), timed to the last.
    processes = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
                 for _ in range(copies)]
    errors = [process.communicate()[1] for process in processes]
    wall = time.perf_counter() - started
    for process, error in zip(processes, errors):
        if process.returncode not in ok_codes:
            sys.stderr.write(error.decode(errors="replace")[-3000:])
            sys.exit(2)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps([wall, rss]))


def parse_floor(list_file: str, jobs: int) -> None:
    """The floor: libcst.parse_module on every listed file, nothing kept."""
    import libcst

    paths = Path(list_file).read_text().splitlines()

    def parse(path: str) -> None:
        try:
            libcst.parse_module(Path(path).read_bytes())
        except Exception:  # a file libcst rejects costs what it cost
            pass

    if jobs == 1:
        for path in paths:
            parse(path)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        # Largest first, one file a task: the same scheduling breaklint uses.
        ordered = sorted(paths, key=lambda p: -os.path.getsize(p))
        for _ in pool.imap_unordered(_parse_one, ordered, chunksize=1):
            pass


def _parse_one(path: str) -> None:
    import libcst

    try:
        libcst.parse_module(Path(path).read_bytes())
    except Exception:
        pass


# --- the corpus -----------------------------------------------------------------------------------
def job_counts(all_cores: int) -> list[int]:
    """1 job, 2 jobs (the scaling target), and every core where there are more."""
    return sorted({1, min(2, all_cores), all_cores})


def corpus_files(root: Path) -> list[Path]:
    """What `breaklint check root` would check, `.py` only (peers get the same list)."""
    sys.path.insert(0, str(ROOT))
    from breaklint.infra.files import DEFAULT_EXCLUDE, discover

    files, _ = discover([root], root, DEFAULT_EXCLUDE, force_exclude=False)
    return [f for f in files if f.suffix == ".py"]


def region_files(report: str, work: Path) -> list[Path]:
    """The files holding a finding in a compiled region, from a JSON report."""
    found = json.loads(report or "[]")
    return sorted({(work / f["path"]).resolve() for f in found if f.get("region")})


def precommit_files(files: list[Path]) -> list[Path]:
    step = max(1, len(files) // 10)
    return files[step // 2::step][:10]


# --- the run --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """What a run measures (a lent machine's 10-minute commands take a corpus in parts)."""

    repeat: int = 3
    peer_repeat: int = 1
    peers: Path | None = None
    part: str = "all"  # "all", "breaklint" (no peers) or "peers" (peers and breaklint cold beside them)
    floor_jobs: tuple[int, ...] = ()  # default: job_counts()
    warm_jobs: int = 0  # jobs for the warm rows (default: every core); they are held to cold at as many
    scope_all: bool = False  # cold rows under `--scope all` too


def bench_corpus(name: str, source: Path, scratch: Path, plan: Plan, python: str,
                 progress: Callable[[list[Measurement], dict[str, object]], None] = lambda r, i: None,
                 ) -> tuple[list[Measurement], dict[str, object]]:
    copy = scratch / name
    if not copy.exists():
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    work = scratch / f"{name}-work"  # cwd of every run: no pyproject above, the cache lands here
    work.mkdir(exist_ok=True)
    files = corpus_files(copy)
    list_file = work / "files.txt"
    list_file.write_text("\n".join(map(str, files)))
    n, all_cores = len(files), cores()
    breaklint = [python, "-m", "breaklint"]
    paths = list(map(str, files))
    results: list[Measurement] = []
    info: dict[str, object] = {"files": n, "lines": sum(p.read_bytes().count(b"\n") for p in files)}

    def run(m: Measurement, command: list[str], ok_codes: tuple[int, ...]) -> None:
        wall, rss = measure(command, work, ok_codes, copies=2 if m.name == CEILING else 1)
        m.walls.append(wall)
        m.rss_mb.append(rss)
        print(f"  {name}: {m.name} [{m.jobs}] {wall:.2f} s, {rss:.0f} MiB", flush=True)

    def record(label: str, jobs: str, command: list[str], times: int, before=None, note: str = "",
               count: int = n, ok_codes: tuple[int, ...] = (0, 1)) -> Measurement:  # type: ignore[no-untyped-def]
        m = Measurement(label, jobs, count, note=note)
        for i in range(times):
            if before is not None:
                before(i)
            run(m, command, ok_codes)
        results.append(m)
        progress(results, info)  # a run cut short still leaves its table
        return m

    me = [python, str(Path(__file__).resolve())]
    repeat, peers = plan.repeat, plan.peers
    measure([*breaklint, "--version"], work, (0,))  # writes the bytecode of what it imports, as pip would have
    measure([python, "-c", "import libcst, breaklint.rules, breaklint.check.engine"], work, (0,))
    cold = lambda jobs, *scope: [*breaklint, "check", *scope, "--no-cache", "-j", str(jobs), "-q", *paths]  # noqa: E731
    if plan.part == "peers":
        record("breaklint cold", str(all_cores), cold(all_cores), repeat)
        _peers(record, peers, all_cores, paths, plan.peer_repeat)
        return results, info
    compared = [("libcst parse-only", str(jobs), [*me, "--floor", str(list_file), str(jobs)])
                for jobs in plan.floor_jobs or job_counts(all_cores)]
    compared += [("breaklint cold", str(jobs), cold(jobs)) for jobs in job_counts(all_cores)]
    if all_cores >= 2:
        compared.append((CEILING, "1 + 1", cold(1)))
    if plan.scope_all:
        compared += [(SCOPE_ALL, str(jobs), cold(jobs, "--scope", "all")) for jobs in job_counts(all_cores)]
    in_rounds(compared, repeat, n, results, lambda m, command: run(m, command, (0, 1)),
              lambda: progress(results, info))  # a run cut short still leaves its table
    warm_jobs = str(plan.warm_jobs or all_cores)
    shutil.rmtree(work / ".breaklint_cache", ignore_errors=True)
    filled = subprocess.run([*breaklint, "check", "--format", "json", "--exit-zero", *paths], cwd=work,
                            capture_output=True, text=True)  # fills the cache; which files have regions
    warm = [*breaklint, "check", "-j", warm_jobs, "-q", *paths]
    record("breaklint warm, nothing changed", warm_jobs, warm, repeat)
    with_regions = region_files(filled.stdout, work) or files
    touched = with_regions[len(with_regions) // 2]
    original = touched.read_text(encoding="utf-8")
    info["touched"] = str(touched.relative_to(copy.parent))

    def touch(i: int) -> None:
        touched.write_text(original + TOUCH.format(n=i + 1), encoding="utf-8")

    try:
        record("breaklint warm, 1 file touched", warm_jobs, warm, repeat,
               before=touch, note=f"a new function appended to `{info['touched']}`")
    finally:
        touched.write_text(original, encoding="utf-8")
    hook = precommit_files(files)
    info["precommit"] = [str(p.relative_to(copy.parent)) for p in hook]
    hook_command = [*breaklint, "check", "--force-exclude", "-j", warm_jobs, "-q", *map(str, hook)]
    subprocess.run(hook_command, cwd=work, capture_output=True)  # its own cache entries, once
    record("pre-commit: 10 files named, warm", warm_jobs, hook_command, repeat, count=len(hook))
    if plan.part == "all":
        _peers(record, peers, all_cores, paths, plan.peer_repeat)
    return results, info


def in_rounds(rows: list[tuple[str, str, list[str]]], times: int, files: int, results: list[Measurement],
              run: Callable[[Measurement, list[str]], None], after_round: Callable[[], None] = lambda: None) -> None:
    """Rows (label, jobs, command) that the targets compare with each other, appended to
    `results` and run in rounds, one run of each row per round: a machine that gets slower or
    faster during the run moves them alike, where row after row would credit the drift to one."""
    measurements = [Measurement(label, jobs, files) for label, jobs, _ in rows]
    results.extend(measurements)
    for _ in range(times):
        for m, (_, _, command) in zip(measurements, rows):
            run(m, command)
        after_round()


def _peers(record: Callable[..., Measurement], peers: Path | None, jobs: int, paths: list[str], repeat: int) -> None:
    if peers is None:
        return
    fixit, torchfix = peers / "fixit", peers / "torchfix"
    # Peers exit non-zero for their findings (and for files they cannot parse): timed anyway.
    if fixit.exists():
        record("fixit lint (default rules)", f"{jobs} (its own pool)", [str(fixit), "lint", *paths],
               repeat, note=_version(fixit), ok_codes=tuple(range(256)))
    if torchfix.exists():
        record("torchfix (default rules)", str(jobs), [str(torchfix), "-j", str(jobs), *paths],
               repeat, note=_version(torchfix), ok_codes=tuple(range(256)))


def _version(tool: Path) -> str:
    result = subprocess.run([str(tool), "--version"], capture_output=True, text=True)
    return (result.stdout or result.stderr).strip().splitlines()[-1] if (result.stdout or result.stderr) else ""


# --- the report -----------------------------------------------------------------------------------
def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {cores()} cores available{memory}; {platform.system()} {platform.release()}"


def versions(python: str) -> str:
    code = ("import importlib.metadata as m, sys, platform\n"
            "def v(n):\n    try: return m.version(n)\n    except Exception: return 'not installed'\n"
            "print(f\"Python {platform.python_version()}, libcst {v('libcst')}, breaklint {v('breaklint')}, "
            "torch {v('torch')}\")")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "breaklint", "rules"], cwd=ROOT, capture_output=True,
                           text=True).stdout
    return f"{out} (git {rev.strip() or '?'}{', with local changes' if dirty.strip() else ''})"


def find(results: list[Measurement], name: str, jobs: str | None = None) -> Measurement | None:
    for m in results:
        if m.name == name and (jobs is None or m.jobs == jobs):
            return m
    return None


# Issue #13's targets: cold with 1 job against libcst's parse floor, by corpus (1.0 elsewhere).
FLOOR_TARGETS = {"torch": 0.5, "timm": 1.0}
SCOPE_ALL = "breaklint cold, --scope all"
SCOPE_ALL_TARGET = 1.25  # issue #18's item 10, "about libcst's parse floor"
# Two one-job cold checks started at once, in the same rounds: what two busy processes cost each
# other on this machine (shared caches and memory bandwidth, a virtual machine's host). Two
# jobs cannot beat 2 × one job's time / this row's time (the machine's ceiling for the target).
CEILING = "two 1-job cold checks at once"


def _by_round(one: Measurement, two: Measurement, floor1: Measurement | None, floor2: Measurement | None,
              pair: Measurement | None = None) -> str:
    """The two-job ratio of each round (in_rounds), libcst's own in the same rounds, and the
    machine's ceiling (CEILING) in them: where the machine's spread straddles the target, the
    ratio of the minimums alone says little. Judged by the minimums all the same."""
    if len(one.walls) < 2 or len(one.walls) != len(two.walls):
        return ""
    ratios = ", ".join(f"{a / b:.2f}" for a, b in zip(one.walls, two.walls))
    text = f" (round by round {ratios}"
    if floor1 and floor2 and len(floor1.walls) == len(floor2.walls) == len(one.walls):
        floors = [a / b for a, b in zip(floor1.walls, floor2.walls)]
        text += f"; libcst's floor {min(floors):.2f}–{max(floors):.2f} ×"
    if pair and len(pair.walls) == len(one.walls):
        ceilings = ", ".join(f"{2 * a / b:.2f}" for a, b in zip(one.walls, pair.walls))
        text += f"; the machine's ceiling, two one-job checks at once, {ceilings} ×"
    return text + ")"


def _paired(row: Measurement, floor: Measurement) -> str:
    """`row` against libcst's floor round by round (in_rounds: each pair ran minutes apart at
    most), with their median: on a machine whose speed moves by more than the target's margin
    between runs, the ratio of the minimums can pair a fast floor with a slow check. Judged by
    the minimums all the same."""
    if len(row.walls) < 2 or len(row.walls) != len(floor.walls):
        return ""
    ratios = [a / b for a, b in zip(row.walls, floor.walls)]
    listed = ", ".join(f"{r:.2f}" for r in ratios)
    return f" (round by round {listed}; median {statistics.median(ratios):.2f} ×)"


def targets(results: list[Measurement], corpus: str = "") -> list[tuple[str, str, bool | None]]:
    all_cores = str(cores())
    floor1, cold1 = find(results, "libcst parse-only", "1"), find(results, "breaklint cold", "1")
    cold2, coldn = find(results, "breaklint cold", "2"), find(results, "breaklint cold", all_cores)
    warm, touched = find(results, "breaklint warm, nothing changed"), find(results, "breaklint warm, 1 file touched")
    hook = find(results, "pre-commit: 10 files named, warm")
    rows: list[tuple[str, str, bool | None]] = []
    if floor1 and cold1:
        ratio, limit = cold1.best / floor1.best, FLOOR_TARGETS.get(corpus, 1.0)
        rows.append((f"cold, 1 job ≤ {limit} × libcst parse-only (1 job)", f"{ratio:.2f} ×{_paired(cold1, floor1)}",
                     ratio <= limit))
    if cold1 and cold2 and cold2 is not cold1:
        speedup = cold1.best / cold2.best
        pair = find(results, CEILING)
        spread = _by_round(cold1, cold2, find(results, "libcst parse-only", "1"), find(results, "libcst parse-only", "2"),
                           pair)
        rows.append(("cold, 2 jobs vs 1 job ≥ 1.8 ×", f"{speedup:.2f} ×{spread}", speedup >= 1.8))
        if pair:
            ceiling = 2 * cold1.best / pair.best
            rows.append((f"(reference) the machine's ceiling for two jobs: 2 × one job / {CEILING}",
                         f"{ceiling:.2f} × (two jobs reach {speedup / ceiling:.0%} of it)", None))
    every1 = find(results, SCOPE_ALL, "1")
    if floor1 and every1:
        ratio = every1.best / floor1.best
        rows.append((f"cold `--scope all`, 1 job ≤ {SCOPE_ALL_TARGET} × libcst parse-only (1 job)",
                     f"{ratio:.2f} ×{_paired(every1, floor1)}", ratio <= SCOPE_ALL_TARGET))
    # A warm run is held to the cold run with as many jobs.
    for m, limit in ((warm, 0.05), (touched, 0.10)):
        same = find(results, "breaklint cold", m.jobs) if m else None
        if m and same:
            share = m.best / same.best
            rows.append((f"{m.name} ≤ {limit:.0%} of cold ({m.jobs} jobs)", f"{share:.1%}", share <= limit))
    if hook:
        rows.append(("pre-commit (10 files, warm) ≤ 1.5 s", f"{hook.best:.2f} s", hook.best <= 1.5))
    colds = [m for m in results if m.name in ("breaklint cold", SCOPE_ALL)]
    if colds:  # per process, whatever the jobs
        peak = max(max(m.rss_mb) for m in colds)
        rows.append(("peak RSS per process, cold ≤ 600 MB", f"{peak * 1.048576:.0f} MB", peak * 1.048576 <= 600))
    for peer in ("fixit lint (default rules)", "torchfix (default rules)"):
        m = find(results, peer)
        if m and coldn:
            ratio = m.best / coldn.best
            rows.append((f"≥ 10 × faster than {peer.split(' ')[0]} (same cores)", f"{ratio:.1f} ×", ratio >= 10))
    return rows


def render(corpora: list[tuple[str, list[Measurement], dict[str, object]]], python: str, repeat: int,
           note: str = "") -> str:
    lines = [
        f"# breaklint speed — {datetime.date.today().isoformat()}",
        "",
        f"Machine: {machine()}.  ",
        *([f"{note}  "] if note else []),
        f"Software: {versions(python)}.  ",
        f"Command: `python benchmarks/speed.py {' '.join(sys.argv[1:])}`; {repeat} repeats "
        "(peers fewer where noted), min and median wall time; files/s from the min; peak RSS is the "
        "largest single process (workers are separate processes). All rows of a corpus ran in one run, "
        "on the same file list; libcst's floor and the cold checks in rounds (one run of each per round).",
        "",
    ]
    for name, results, info in corpora:
        lines += [f"## {name}: {info['files']} files, {info['lines']:,} lines", "",
                  "| what | jobs | files | min s | median s | files/s | × parse-only | peak RSS MiB | runs |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for m in results:
            floor = find(results, "libcst parse-only", m.jobs)
            versus = f"{m.best / floor.best:.2f}" if floor and m.files == info["files"] else ""
            lines.append(f"| {m.name} | {m.jobs} | {m.files} | {m.best:.2f} | {m.median:.2f} | "
                         f"{m.files / m.best:,.1f} | {versus} | {max(m.rss_mb):.0f} | {len(m.walls)} |")
        notes = [f"- {m.name}: {m.note}" for m in results if m.note]
        if notes:
            lines += ["", *notes]
        if info.get("precommit"):
            lines += ["", f"Pre-commit files: {', '.join(f'`{p}`' for p in info['precommit'])}."]  # type: ignore[union-attr]
        lines += ["", "| target | measured | met |", "|---|---|---|"]
        for label, value, met in targets(results, name):
            lines.append(f"| {label} | {value} | {'' if met is None else 'yes' if met else 'no'} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", default=[],
                        help="NAME=PATH, or `torch` for the installed torch package (default)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-repeat", type=int, default=1, help="repeats for fixit and torchfix (slow)")
    parser.add_argument("--peers", type=Path, default=None, help="bin folder holding fixit and torchfix")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "breaklint-bench")
    parser.add_argument("--python", default=sys.executable, help="the interpreter breaklint is installed in")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--note", default="", help="a line for the report's header (where and how it ran)")
    parser.add_argument("--part", choices=("all", "breaklint", "peers"), default="all",
                        help="breaklint: no peers; peers: only the peers and breaklint cold with every core beside them")
    parser.add_argument("--floor-jobs", default="", help="comma-separated job counts for libcst parse-only "
                        "(default: 1, 2 and every core)")
    parser.add_argument("--warm-jobs", type=int, default=0, help="jobs for the warm and pre-commit rows "
                        "(default: every core)")
    parser.add_argument("--scope-all", action="store_true", help="cold rows under `--scope all` too (issue #18's item 10)")
    args = parser.parse_args()
    corpora = []
    for spec in args.corpus or ["torch"]:
        name, _, path = spec.partition("=")
        if not path:
            probe = subprocess.run([args.python, "-c", "import importlib.util as u; print(u.find_spec('torch').origin)"],
                                   capture_output=True, text=True)
            path = str(Path(probe.stdout.strip()).parent)
        corpora.append((name, Path(path)))
    args.scratch.mkdir(parents=True, exist_ok=True)
    output = args.output or RESULTS / f"speed-{datetime.date.today().isoformat()}.md"
    output.parent.mkdir(parents=True, exist_ok=True)
    measured: list[tuple[str, list[Measurement], dict[str, object]]] = []
    plan = Plan(args.repeat, args.peer_repeat, args.peers, args.part,
                tuple(int(j) for j in args.floor_jobs.split(",") if j), args.warm_jobs, args.scope_all)
    for name, path in corpora:
        print(f"{name}: {path}", flush=True)
        def progress(results: list[Measurement], info: dict[str, object]) -> None:
            output.write_text(render([*measured, (name, results, info)], args.python, args.repeat, args.note), encoding="utf-8")

        results, info = bench_corpus(name, path, args.scratch, plan, args.python, progress)
        measured.append((name, results, info))
    report = render(measured, args.python, args.repeat, args.note)
    output.write_text(report, encoding="utf-8")
    print(report)
    print(f"written: {output}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--run-one":
        run_one(sys.argv[2])
    elif len(sys.argv) > 3 and sys.argv[1] == "--floor":
        parse_floor(sys.argv[2], int(sys.argv[3]))
    else:
        main()
