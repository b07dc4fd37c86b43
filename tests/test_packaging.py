"""The wheel ships `rules/` as breaklint.rules and nothing at top level but `breaklint`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from testdata import HANG_GUARD_S, ROOT


def test_wheel_layout(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=HANG_GUARD_S,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("breaklint-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"breaklint", next(n.split("/")[0] for n in names if ".dist-info/" in n)}
    assert "breaklint/rules/tensor_to_scalar.py" in names
    assert not any(name.startswith("rules/") for name in names)
    metadata = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    requires = [line for line in text.splitlines() if line.startswith("Requires-Dist:")]
    runtime = [line for line in requires if "extra ==" not in line]
    assert sorted(r.split()[1].split(">")[0].split(";")[0] for r in runtime) == ["click", "libcst", "tomli"]
    assert any("tomli" in r and 'python_version < "3.11"' in r for r in runtime)
    assert any(r.startswith("Requires-Dist: torch") and 'extra == "confirm"' in r for r in requires)
    # MIT, as the metadata says, with its text inside the wheel; the project's addresses.
    assert "License: MIT" in text.splitlines() and "License-File: LICENSE" in text.splitlines()
    (license_name,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    shipped = zipfile.ZipFile(wheel).read(license_name).decode()
    assert shipped == (ROOT / "LICENSE").read_text(encoding="utf-8") and shipped.startswith("MIT License")
    urls = dict(line.removeprefix("Project-URL: ").split(", ", 1) for line in text.splitlines()
                if line.startswith("Project-URL: "))
    assert set(urls) == {"Repository", "Documentation", "Changelog", "Issues"}
    assert all(url.startswith(urls["Repository"] + "/") for label, url in urls.items() if label != "Repository")
    assert urls["Changelog"].endswith("/CHANGELOG.md") and (ROOT / "CHANGELOG.md").is_file()
