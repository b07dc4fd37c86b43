"""Score `breaklint check` on torchvision against what Dynamo did to its models (dynamo_run.py).

    python benchmarks/accuracy/torchvision/score.py DYNAMO.json SITE_PACKAGES [--output FILE]

breaklint runs as a user runs it on a tree it never saw: default settings (every `forward`
compiled by assumption), on the installed `torchvision` package. Findings are joined with
Dynamo's break sites by file and line as benchmarks/accuracy/run.py does (its `score`). Only
the code the runs exercise is scored: `torchvision/models/` and `torchvision/ops/` (the
transforms, datasets and io are checked but never compiled here, so their findings can be
neither confirmed nor refuted).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from run import ROOT, breaklint, runtime_sites, score, untraced_after_breaks  # noqa: E402

SCORED = ("torchvision/models/", "torchvision/ops/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dynamo", type=Path)
    parser.add_argument("site", type=Path, help="the site-packages folder holding torchvision")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "torchvision.md")
    args = parser.parse_args()
    site = args.site.resolve()
    cases = json.loads(args.dynamo.read_text(encoding="utf-8"))
    for run in cases.values():  # dynamo_run.py keeps the files relative to the site
        for event in run["graph_breaks"]:
            if event["filename"] and not os.path.isabs(event["filename"]):
                event["filename"] = str(site / event["filename"])
    scored = tuple(str(site / part) for part in SCORED)
    inside = lambda f: os.path.realpath(f).startswith(scored)  # noqa: E731
    findings = [f for f in breaklint([site / "torchvision"], site, None)
                if f.get("region") and str(site / f["path"]).startswith(scored)]
    result = score(findings, runtime_sites(cases, inside), site, untraced_after_breaks(cases, inside))
    lines = [
        "# breaklint on torchvision's models, against real Dynamo",
        "",
        "`python benchmarks/accuracy/torchvision/score.py` writes this file (benchmarks/accuracy/torchvision/README.md "
        "says how the Dynamo run is made). Counted as in accuracy.md: a prediction is a graph-break finding "
        "(BL1xx, BL3xx) at `certain` or `likely`; scored in `torchvision/models/` and `torchvision/ops/`.",
        "",
        "| predictions | runtime break sites | true positives | precision | recall | not observable |",
        "|---|---|---|---|---|---|",
        f"| {result['findings']} | {result['runtime_sites']} | {result['true_positives']} | "
        f"{result['precision']:.2f} | {result['recall']:.2f} | {len(result['unobserved'])} |",
        "",
        "## Models",
        "",
        "| model | graphs | break sites | error |",
        "|---|---|---|---|",
        *(f"| {name} | {run['graphs']} | {len({(b['filename'], b['lineno']) for b in run['graph_breaks']})} | "
          f"{(run['error'] or '').splitlines()[0][:80] if run['error'] else ''} |" for name, run in cases.items()),
    ]
    for key, title in (("hits", "True positives"), ("false_alarms", "False alarms"), ("misses", "Misses"),
                       ("unobserved", "Not observable (after a break Dynamo does not resume from)")):
        lines += ["", f"## {title} ({len(result[key])})", ""]
        for row in result[key]:
            said = "; ".join(row.get("dynamo", [])) or row.get("message", "")[:140]
            codes = " ".join(row.get("codes", []))
            lines.append(f"- `{row['where']}` {codes}: {said}".replace(" :", ":"))
    args.output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:9]))


if __name__ == "__main__":
    main()
