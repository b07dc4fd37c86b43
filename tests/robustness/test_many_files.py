"""Issue 18, item 3: reading a file costs no memory mapping. Each read once asked for a buffer of
the 8 MiB cap, which malloc maps on its own and, shrunk to the file's size, keeps mapped for as
long as the bytes live (the run keeps every file's). Past 65,530 mappings (the kernel's
vm.max_map_count) `--jobs 2` died with `ImportError: ... failed to map segment`. A 100,000-file
tree is checked by `benchmarks/many_files.py` (figures in docs/hostile-input.md); this counts the
mappings directly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from breaklint.infra.files import MAX_BYTES, read_capped

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
FILES = 2000


def mappings() -> int:
    with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
        return sum(1 for _ in maps)


def test_reading_many_files_leaves_no_mapping_per_file(tmp_path: Path) -> None:
    for i in range(FILES):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n" * (1 + i % 50), encoding="utf-8")
    paths = sorted(tmp_path.iterdir())
    before = mappings()
    kept = [read_capped(path) for path in paths]  # kept, as the engine keeps them
    grown = mappings() - before
    assert all(isinstance(data, bytes) for data in kept)
    assert [len(data) for data in kept] == [path.stat().st_size for path in paths]  # type: ignore[arg-type]
    assert grown < FILES // 20, f"{grown} new mappings for {FILES} files read"


def test_a_file_longer_than_its_stat_size_is_read_whole() -> None:
    """The read asks for the size stat() gave; a file that says 0 (procfs) or grew since is read on,
    up to the cap."""
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    data = read_capped(status)
    assert isinstance(data, bytes) and data.startswith(b"Name:") and data.rstrip().count(b"\n") > 5
    assert len(data) <= MAX_BYTES
