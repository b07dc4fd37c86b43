"""Recall and precision of breaklint's recompile predictions against real Dynamo, one command.

    python benchmarks/accuracy/recompiles/run.py

Each file of cases/ is a small program with a `main()` that compiles and calls something, one
file per cause of recompiles (issue #14's list) and clean look-alikes. Each `main()` runs on a
fresh Dynamo cache (backend "eager": guards are Dynamo's own) in a subprocess (dynamo_worker.py
beside this file), and its recompiles of the case's own functions are the label. `breaklint
check` runs over the same files; a case is *predicted* when it gets a recompile finding (BL2xx)
at confidence `certain` or `likely` (any severity: a one-off recompile is reported as info); a
`possible` finding is a note (e.g. `dynamic=False` with no call showing the shapes vary) and counts
neither way. A predicted case that recompiled is a true positive, one that did not
a false alarm; a recompiling case without a prediction is a miss. The predicted count is compared
with the measured one where the finding states it. Writes benchmarks/results/recompiles.md and
recompiles.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CASES = HERE / "cases"
RESULTS = ROOT / "benchmarks" / "results"
_COUNT = re.compile(r"recompiles (once|(\d+) times|on every new value)")


def observe(cases: list[Path]) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "observed.json"
        subprocess.run([sys.executable, str(HERE / "dynamo_worker.py"), str(out), *map(str, cases)], check=True,
                       cwd=ROOT, stdin=subprocess.DEVNULL, env={"PYTHONPATH": str(ROOT), "PATH": ""})
        return json.loads(out.read_text(encoding="utf-8"))


def predict(cases: list[Path]) -> list[dict]:
    # The helpers are checked with the cases (a case's calls of a helper's compiled callable are
    # predicted from the helper's facts); findings count for the case files only.
    helpers = sorted(CASES.glob("_*.py"))
    completed = subprocess.run([sys.executable, "-m", "breaklint", "check", "--no-cache", "--format", "json",
                                "--exit-zero", *map(str, [*cases, *helpers])], capture_output=True, text=True, cwd=ROOT,
                               check=True)
    return [f for f in json.loads(completed.stdout) if f["code"].startswith("BL2") and f["confidence"] != "possible"]


def predicted_count(message: str) -> int | None:
    match = _COUNT.search(message)
    if match is None:
        return None
    if match.group(1) == "once":
        return 1
    return int(match.group(2)) if match.group(2) else 8


def main() -> None:
    import torch

    cases = sorted(p for p in CASES.glob("*.py") if not p.name.startswith("_"))  # `_*.py`: helpers cases import
    observed = observe(cases)
    findings = predict(cases)
    rows, tp, fp, fn = [], 0, 0, 0
    counts_agree = counts_stated = 0
    for case in cases:
        seen = observed[str(case)]
        mine = [f for f in findings if Path(f["path"]).resolve() == case.resolve()]
        recompiled = len(seen["recompiles"]) > 0
        predicted = bool(mine)
        tp += recompiled and predicted
        fp += predicted and not recompiled
        fn += recompiled and not predicted
        said = [c for c in (predicted_count(f["message"]) for f in mine) if c is not None]
        if said and recompiled:
            counts_stated += 1
            counts_agree += sum(said) == len(seen["recompiles"])
        rows.append({"case": case.stem, "recompiles": len(seen["recompiles"]),
                     "guard": (seen["recompiles"][0]["reasons"][0] if seen["recompiles"] else ""),
                     "findings": [f"{f['code']}:{f['start_line']}" for f in mine],
                     "predicted_count": sum(said) if said else None, "error": seen.get("error", "")})
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    summary = {"torch": torch.__version__, "cases": len(cases), "recompiling": tp + fn, "predicted": tp + fp,
               "true_positives": tp, "false_alarms": fp, "misses": fn, "precision": round(precision, 2),
               "recall": round(recall, 2), "counts_stated": counts_stated, "counts_agree": counts_agree, "rows": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "recompiles.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    (RESULTS / "recompiles.md").write_text(render(summary), encoding="utf-8")
    print(f"precision {precision:.2f}, recall {recall:.2f} ({tp} TP, {fp} FP, {fn} FN over {len(cases)} cases)")


def render(summary: dict) -> str:
    lines = [
        "# breaklint accuracy: recompile predictions against real Dynamo", "",
        f"torch {summary['torch']}; `python benchmarks/accuracy/recompiles/run.py` writes this file. Cases: "
        "`benchmarks/accuracy/recompiles/cases/`, one program per cause of recompiles and clean look-alikes, each "
        "`main()` run on a fresh Dynamo cache; the label is whether Dynamo recompiled one of the case's functions. "
        "A case is predicted when breaklint reports a BL2xx finding in it at confidence `certain` or `likely` "
        "(`possible` notes count neither way). The cases were written with the rules (issue #14's causes), so this "
        "measures the rules against Dynamo on the causes they target, not on code nobody here wrote.", "",
        "| cases | recompiling | predicted | true positives | false alarms | misses | precision | recall |",
        "|---|---|---|---|---|---|---|---|",
        f"| {summary['cases']} | {summary['recompiling']} | {summary['predicted']} | {summary['true_positives']} | "
        f"{summary['false_alarms']} | {summary['misses']} | {summary['precision']:.2f} | {summary['recall']:.2f} |", "",
        f"Where a finding states how many recompiles follow, it matched Dynamo's count in {summary['counts_agree']} of "
        f"{summary['counts_stated']} recompiling cases.", "",
        "| case | Dynamo's recompiles | first guard failure | findings | predicted count |", "|---|---|---|---|---|",
    ]
    for row in summary["rows"]:
        guard = row["guard"].replace("|", "\\|")[:90]
        lines.append(f"| {row['case']} | {row['recompiles']} | `{guard}` | {', '.join(row['findings']) or '-'} | "
                     f"{row['predicted_count'] if row['predicted_count'] is not None else '-'} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
