"""Score `breaklint check` on a third-party library against what real Dynamo did to its models.

    python benchmarks/accuracy/thirdparty/score.py LIBRARY SITE_PACKAGES [--labels FILE]

LIBRARY is one of LIBRARIES below; SITE_PACKAGES the folder holding its installed packages. The
labels are the committed Dynamo run (benchmarks/results/thirdparty/LIBRARY-dynamo.json, written
by LIBRARY_run.py with each break's file relative to site-packages), so a checkout is scored
again without running Dynamo. breaklint runs as a user runs it on a tree it never saw: default
settings (every `forward` compiled by assumption). Findings and Dynamo's break sites are joined
by file and line as benchmarks/accuracy/run.py does (its `score`), in the folders the runs
exercise (SCORED). Where the lines the runs executed were recorded (LIBRARY-lines.json), the
precision is also given over the findings on those lines: a finding in code no run executed
can be neither confirmed nor refuted.
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

RESULTS = ROOT / "benchmarks" / "results" / "thirdparty"
# library -> (the packages checked, the folders scored, what was run)
LIBRARIES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "torchvision": (("torchvision",), ("torchvision/models/", "torchvision/ops/"),
                    "torchvision 0.29.1 on torch 2.14.1 (CPU), 21 models"),
    "pyg": (("torch_geometric",), ("torch_geometric/nn/", "torch_geometric/utils/"),
            "torch_geometric 2.8.1 on torch 2.13.0 (CPU), 21 models and layers"),
    "lucidrains": (("vector_quantize_pytorch", "x_transformers"), ("vector_quantize_pytorch/", "x_transformers/"),
                   "vector-quantize-pytorch 1.32.0 and x-transformers 2.31.10 on torch 2.13.0 (CPU), 35 cases"),
    "kornia": (("kornia",), tuple(f"kornia/{d}/" for d in ("augmentation", "color", "contrib", "core", "enhance",
                                                            "feature", "filters", "geometry", "losses", "metrics",
                                                            "morphology")),
               "kornia 0.9.0 on torch 2.13.0 (CPU), 26 cases"),
    "monai": (("monai",), tuple(f"monai/{d}/" for d in ("data", "inferers", "losses", "networks", "transforms", "utils")),
              "MONAI 1.6.1 on torch 2.13.0 (CPU), 62 cases (40 networks, 5 blocks and layers, 12 losses, "
              "3 inferers, 2 transforms)"),
    # The models the runs build and every shared module their calls execute (transformers-lines.json's files).
    "transformers": (("transformers",), tuple(f"transformers/models/{m}/" for m in (
        "bart", "bert", "clip", "detr", "distilbert", "gemma", "gemma2", "gemma3", "gpt2", "gpt_neox", "llama",
        "mistral", "mixtral", "phi3", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "resnet", "roberta", "swin", "t5",
        "vit", "whisper")) + tuple(f"transformers/{f}" for f in (
            "activations.py", "backbone_utils.py", "cache_utils.py", "configuration_utils.py",
            "integrations/heterogeneity/configuration_utils.py", "integrations/moe.py",
            "integrations/sdpa_attention.py", "loss/loss_utils.py", "masking_utils.py", "modeling_layers.py",
            "modeling_rope_utils.py", "modeling_utils.py", "pytorch_utils.py", "utils/deprecation.py",
            "utils/generic.py", "utils/import_utils.py", "utils/logging.py", "utils/output_capturing.py")),
                     "transformers 5.17.0 on torch 2.13.0 (CPU), 26 cases (15 decoder LMs, 4 encoders, "
                     "3 encoder-decoders, 4 vision models)"),
    "diffusers": (("diffusers",), ("diffusers/models/", "diffusers/schedulers/", "diffusers/utils/"),
                  "diffusers 0.42.1 on torch 2.13.0 (CPU), 25 cases (19 models: 5 UNets and a ControlNet, 5 VAE "
                  "calls, 9 DiT/MMDiT/video transformers; 5 scheduler steps compiled as functions and a denoising "
                  "loop)"),
}


def measure(library: str, site: Path, labels: Path) -> dict:
    packages, folders, _ = LIBRARIES[library]
    cases = json.loads(labels.read_text(encoding="utf-8"))
    for run in cases.values():
        for event in run["graph_breaks"]:
            if event["filename"] and not os.path.isabs(event["filename"]):
                event["filename"] = str(site / event["filename"])
    # os.path.join keeps a folder's trailing slash (Path drops it): models/gemma/ must not take in models/gemma2/.
    scored = tuple(os.path.join(site, folder) for folder in folders)
    inside = lambda f: os.path.realpath(f).startswith(scored)  # noqa: E731
    findings = [f for f in breaklint([site / p for p in packages], site, None)
                if f.get("region") and str(site / f["path"]).startswith(scored)]
    sites, unobserved = runtime_sites(cases, inside), untraced_after_breaks(cases, inside)
    result = {"all": score(findings, sites, site, unobserved)}
    lines_file = labels.with_name(f"{library}-lines.json")
    if lines_file.is_file():
        executed = {(path, line) for path, lines in json.loads(lines_file.read_text(encoding="utf-8"))["lines"].items()
                    for line in lines}
        ran = [f for f in findings if (f["path"], f["start_line"]) in executed]
        result["executed"] = score(ran, sites, site, unobserved)
    result["models"] = {name: {"graphs": run["graphs"], "error": run["error"],
                               "break_sites": len({(b["filename"], b["lineno"]) for b in run["graph_breaks"]})}
                        for name, run in cases.items()}
    return result


def render(library: str, result: dict) -> str:
    _, folders, what = LIBRARIES[library]
    rows = [("findings in the scored folders", result["all"])]
    if "executed" in result:
        rows.append(("findings on lines the runs executed", result["executed"]))
    lines = [f"# breaklint on {library}, against real Dynamo", "",
             f"{what}; scored in {', '.join(f'`{f}`' for f in folders)}. Written by "
             f"`python benchmarks/accuracy/thirdparty/score.py {library} SITE_PACKAGES` "
             "(benchmarks/accuracy/thirdparty/README.md).", "",
             "| counted | predictions | runtime break sites | true positives | precision | recall |",
             "|---|---|---|---|---|---|"]
    for label, r in rows:
        precision = f"{r['precision']:.2f}" if r["precision"] is not None else "n/a"
        recall = f"{r['recall']:.2f}" if r["recall"] is not None else "n/a"
        lines.append(f"| {label} | {r['findings']} | {r['runtime_sites']} | {r['true_positives']} | {precision} | {recall} |")
    scored = result.get("executed", result["all"])
    for key, title in (("hits", "True positives"), ("false_alarms", "False alarms"), ("misses", "Misses"),
                       ("unobserved", "Not observable (after a break Dynamo does not resume from)")):
        lines += ["", f"## {title} ({len(scored[key])})", ""]
        for row in scored[key]:
            said = "; ".join(row.get("dynamo", [])) or row.get("message", "")[:140]
            lines.append(f"- `{row['where']}` {' '.join(row.get('codes', []))}: {said}".replace(" :", ":"))
    lines += ["", "## Models", "", "| case | graphs | break sites | error |", "|---|---|---|---|"]
    for name, model in result["models"].items():
        error = (model["error"] or "").splitlines()[0][:80] if model["error"] else ""
        lines.append(f"| {name} | {model['graphs']} | {model['break_sites']} | {error} |")
    notes = RESULTS / f"{library}-notes.md"  # a hand-written reading of the misses, kept when the page is rewritten
    if notes.is_file():
        lines += ["", notes.read_text(encoding="utf-8").rstrip()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library", choices=sorted(LIBRARIES))
    parser.add_argument("site", type=Path, help="the site-packages folder holding the library")
    parser.add_argument("--labels", type=Path, help="a Dynamo run (default: the committed one)")
    args = parser.parse_args()
    labels = args.labels or RESULTS / f"{args.library}-dynamo.json"
    text = render(args.library, measure(args.library, args.site.resolve(), labels))
    (RESULTS / f"{args.library}.md").write_text(text, encoding="utf-8")
    print("\n".join(text.splitlines()[:9]))


if __name__ == "__main__":
    main()
