"""Do the recompile findings on the accuracy corpus hold? Runs timm's own Kron optimizer (the only
corpus file with a BL2xx finding, `timm/optim/kron.py`) through real Dynamo and joins its
recompiles to breaklint's findings there, by the compiled function's first line.

    python benchmarks/accuracy/recompiles/corpus_kron.py [--site DIR]

--site is the accuracy corpus (`benchmarks/accuracy/run.py --site`, timm 1.0.22); the model is
small and has parameters of 18 distinct shapes, and `rng.random` is pinned to 0 so that the
every-100-steps `_balance_Q` branch runs too. Backend "eager": the guards are Dynamo's own.
Prints one line per finding (confirmed with the measured recompiles, or not reproduced).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SHIM = ROOT / "benchmarks" / "accuracy" / "shim"  # stands in for the one torchvision layer timm imports


def observe() -> Counter[int]:
    """Recompiles of kron.py's compiled functions, by their first line (run in this process)."""
    import torch

    from breaklint.confirm.capture import capture_dynamo
    from timm.optim.kron import Kron

    real_compile = torch.compile
    torch.compile = lambda fn, **options: real_compile(fn, **{**options, "backend": "eager"})  # type: ignore[assignment]
    try:
        torch.manual_seed(0)
        sizes = [3, 5, 6, 7, 9, 10, 11, 12, 13, 14]
        model = torch.nn.Sequential(*[torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
        with capture_dynamo() as capture:
            opt = Kron(model.parameters(), lr=1e-3, preconditioner_update_probability=1.0)
            opt.rng.random = lambda: 0.0  # type: ignore[method-assign]
            for _ in range(2):
                model(torch.randn(5, 3)).sum().backward()
                opt.step()
                opt.zero_grad()
    finally:
        torch.compile = real_compile  # type: ignore[assignment]
    return Counter(r.firstlineno for r in capture.recompiles if Path(r.filename).name == "kron.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=Path(tempfile.gettempdir()) / "breaklint-accuracy-site")
    parser.add_argument("--observe", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.observe:
        print(json.dumps(observe()))
        return
    kron = args.site / "timm" / "optim" / "kron.py"
    env = {"PYTHONPATH": f"{ROOT}:{args.site}:{SHIM}", "PATH": ""}
    child = subprocess.run([sys.executable, __file__, "--observe"], capture_output=True, text=True, env=env,
                           check=True, cwd=ROOT)
    seen = {int(line): n for line, n in json.loads(child.stdout.strip().splitlines()[-1]).items()}
    checked = subprocess.run([sys.executable, "-m", "breaklint", "check", "--no-cache", "--format", "json", "--exit-zero",
                              "--select", "BL2", str(kron)], capture_output=True, text=True, check=True, cwd=ROOT)
    tree = ast.parse(kron.read_text(encoding="utf-8"))
    defs = {node.name: node.lineno for node in tree.body if isinstance(node, ast.FunctionDef)}
    compiles = {node.lineno: node.args[0].id for node in ast.walk(tree) if isinstance(node, ast.Call)
                and ast.unparse(node.func) == "torch.compile" and node.args and isinstance(node.args[0], ast.Name)}
    for finding in json.loads(checked.stdout):
        name = compiles.get(finding["start_line"], "")
        count = seen.get(defs.get(name, 0), 0)
        verdict = f"confirmed: {count} recompiles" if count else "not reproduced"
        print(f"{Path(finding['path']).name}:{finding['start_line']} {finding['code']} (`{name}`): {verdict}")


if __name__ == "__main__":
    main()
