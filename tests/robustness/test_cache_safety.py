"""Issue 6, item 6: the cache (breaklint/infra/cache.py, `.breaklint_cache/`) can only make a run
faster. Corrupted, truncated, foreign, unwritable, concurrently written or stale, it degrades to
a cold run and never changes a finding; writes are atomic."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from breaklint.check.salt import code_salt, project_cache
from breaklint.infra.cache import CACHE_DIR, Cache, _read_pack, _write_pack
from breaklint.config import Config
from breaklint.check.engine import Engine
from breaklint.check.registry import RuleSet

from .support import breaklint_command, stable_view
from testdata import HANG_GUARD_S

LAYERS = ("import torch\nfrom torch import nn\n\n\nclass Scale(nn.Module):\n    def forward(self, x):\n"
          "        y = x.sum().item()\n        return x * y\n")
TRAIN = "import torch\n\nfrom layers import Scale\n\nmodel = torch.compile(Scale())\n"
EAGER = "import torch\n\nfrom layers import Scale\n\nmodel = Scale()\n"
OTHER = "import torch\n\n@torch.compile\ndef f(x):\n    if x.sum() > 0:\n        return x.tolist()\n    return x\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.breaklint]\nassume-forward-compiled = false\n", encoding="utf-8")
    (tmp_path / "layers.py").write_text(LAYERS, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "other.py").write_text(OTHER, encoding="utf-8")
    return tmp_path


def run(root: Path, cache: Cache | None, jobs: int = 1):  # type: ignore[no-untyped-def]
    config = Config(root=root, assume_forward_compiled=False)
    return stable_view(Engine(config, RuleSet(config), jobs=jobs, cache=cache).check([root]).findings)


def packs(root: Path) -> list[Path]:
    return sorted((root / CACHE_DIR).glob("*.pack"))


def test_warm_run_equals_cold_run(project: Path) -> None:
    cold = run(project, None)
    assert {f[2] for f in cold} == {"BL101", "BL102"}
    assert run(project, project_cache(project / CACHE_DIR)) == cold  # fills the cache
    assert len(packs(project)) == 4
    assert run(project, project_cache(project / CACHE_DIR)) == cold  # answered from it
    assert run(project, project_cache(project / CACHE_DIR), jobs=2) == cold


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage", "directory", "other_magic"])
def test_damaged_packs_give_a_cold_run(project: Path, damage: str) -> None:
    cold = run(project, None)
    run(project, project_cache(project / CACHE_DIR))
    for pack in packs(project):
        data = pack.read_bytes()
        if damage == "truncate":
            pack.write_bytes(data[: len(data) // 2])
        elif damage == "flip":
            middle = len(data) // 2
            pack.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:])
        elif damage == "empty":
            pack.write_bytes(b"")
        elif damage == "garbage":
            pack.write_bytes(os.urandom(4096))
        elif damage == "directory":
            pack.unlink()
            pack.mkdir()
        else:
            pack.write_bytes(b"SOMETHING-ELSE\n" + data[16:])
    assert run(project, project_cache(project / CACHE_DIR)) == cold
    assert run(project, project_cache(project / CACHE_DIR)) == cold


def test_a_cache_from_another_version_is_not_read(project: Path) -> None:
    """Entries written under another salt (another breaklint, Python or libcst, or edited rules)
    are never used, even when they would answer: here they are made to lie, and are ignored."""
    cold = run(project, None)
    run(project, Cache(project / CACHE_DIR, salt="old-version"))
    findings_pack = project / CACHE_DIR / "findings.pack"
    entries = _read_pack(findings_pack, "old-version")
    assert entries
    _write_pack(findings_pack, "old-version", {key: ((), ()) for key in entries})  # every file: "clean"
    (runs_pack,) = (project / CACHE_DIR).glob("run-*.pack")
    _write_pack(runs_pack, "old-version", {key: ((), 0) for key in _read_pack(runs_pack, "old-version")})  # the run: "clean"
    assert run(project, Cache(project / CACHE_DIR, salt="old-version")) != cold  # the lie works under its salt
    assert run(project, Cache(project / CACHE_DIR, salt="new-version")) == cold
    assert run(project, project_cache(project / CACHE_DIR)) == cold  # the real salt (this code) too


def test_edits_are_never_answered_from_the_cache(project: Path) -> None:
    cache_dir = project / CACHE_DIR
    run(project, project_cache(cache_dir))
    # Same size, other content: a cache keyed on mtime and size would miss it.
    (project / "other.py").write_text(OTHER.replace("tolist", "tolisx"), encoding="utf-8")
    # Another file decides whether layers.py is compiled at all.
    (project / "train.py").write_text(EAGER, encoding="utf-8")
    assert run(project, project_cache(cache_dir)) == run(project, None)
    assert {(f[0], f[2]) for f in run(project, project_cache(cache_dir))} == {("other.py", "BL102")}
    (project / "train.py").write_text(TRAIN, encoding="utf-8")
    assert {(f[0], f[2]) for f in run(project, project_cache(cache_dir))} == {("other.py", "BL102"), ("layers.py", "BL101")}


def test_unwritable_cache_directory(project: Path) -> None:
    """A file where the cache folder should be (as root, chmod cannot make a folder read-only)."""
    (project / CACHE_DIR).write_text("not a folder", encoding="utf-8")
    cold = run(project, None)
    assert run(project, project_cache(project / CACHE_DIR)) == cold
    assert (project / CACHE_DIR).read_text(encoding="utf-8") == "not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_cache_directory(project: Path) -> None:
    cold = run(project, None)
    run(project, project_cache(project / CACHE_DIR))
    (project / CACHE_DIR).chmod(0o555)
    try:
        (project / "other.py").write_text(OTHER.replace("tolist", "tolisx"), encoding="utf-8")
        assert run(project, project_cache(project / CACHE_DIR)) == run(project, None) != cold
    finally:
        (project / CACHE_DIR).chmod(0o755)


def test_a_failed_write_leaves_the_old_pack(project: Path) -> None:
    cold = run(project, None)
    run(project, project_cache(project / CACHE_DIR))
    before = {p.name: p.read_bytes() for p in packs(project)}

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    (project / "other.py").write_text(OTHER + "\n# changed\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", disk_full)
        assert run(project, project_cache(project / CACHE_DIR)) == run(project, None)
    assert {p.name: p.read_bytes() for p in packs(project)} == before  # untouched, not half-written
    assert not list((project / CACHE_DIR).glob("*.tmp"))  # no temp files left behind
    (project / "other.py").write_text(OTHER, encoding="utf-8")
    assert run(project, project_cache(project / CACHE_DIR)) == cold


def test_concurrent_runs_share_one_cache(project: Path) -> None:
    """Four processes write the same cache at once: each reports what a cold run does, and the
    packs left behind are whole (one writer's, never a mix)."""
    for i in range(6):
        (project / f"extra{i}.py").write_text(OTHER.replace("x.tolist()", f"x.tolist()  # {i}"), encoding="utf-8")
    expected = subprocess.run([*breaklint_command(), "check", "--no-cache", "--format", "json", "."], cwd=project,
                              capture_output=True, text=True, timeout=HANG_GUARD_S).stdout
    processes = [subprocess.Popen([*breaklint_command(), "check", "--format", "json", "--jobs", "1", "."],
                                  cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
    outputs = [p.communicate(timeout=HANG_GUARD_S) for p in processes]
    for (stdout, stderr), process in zip(outputs, processes):
        assert process.returncode == 1, stderr
        assert stdout == expected
    salt = code_salt()
    for pack in packs(project):
        assert _read_pack(pack, salt), f"{pack.name} is not a whole pack"
    assert not list((project / CACHE_DIR).glob("*.tmp"))
    again = subprocess.run([*breaklint_command(), "check", "--format", "json", "."], cwd=project,
                           capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert again.stdout == expected


# Issue 18, item 5: what a cloned tree may plant in `.breaklint_cache/`. A pack that was a FIFO
# hung the run forever, one linked to /dev/zero ended in MemoryError, and a dangling
# CACHEDIR.TAG symlink made breaklint write outside the tree.
PACKS = ("facts.pack", "regions.pack", "findings.pack")


def cli_json(root: Path, *args: str) -> str:
    done = subprocess.run([*breaklint_command(), "check", "--format", "json", *args, "."], cwd=root,
                          capture_output=True, text=True, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return done.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_packs_that_are_fifos_are_not_waited_for(project: Path) -> None:
    expected = cli_json(project, "--no-cache")
    (project / CACHE_DIR).mkdir()
    for name in PACKS:
        os.mkfifo(project / CACHE_DIR / name)
    assert cli_json(project) == expected  # a hang is the timeout's failure
    assert cli_json(project) == expected  # and the packs written in their place are read


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_packs_linked_to_an_endless_device_are_not_read(project: Path) -> None:
    expected = cli_json(project, "--no-cache")
    (project / CACHE_DIR).mkdir()
    for name in PACKS:
        (project / CACHE_DIR / name).symlink_to("/dev/zero")
    assert cli_json(project) == expected
    assert not any((project / CACHE_DIR / name).is_symlink() for name in PACKS)  # replaced, not written through


@pytest.mark.parametrize("marker", [".gitignore", "CACHEDIR.TAG"])
def test_a_dangling_marker_symlink_is_not_written_through(project: Path, tmp_path_factory: pytest.TempPathFactory,
                                                          marker: str) -> None:
    outside = tmp_path_factory.mktemp("outside") / "written-by-breaklint"
    (project / CACHE_DIR).mkdir()
    (project / CACHE_DIR / marker).symlink_to(outside)
    expected = cli_json(project, "--no-cache")
    assert cli_json(project) == expected
    assert not outside.exists() and (project / CACHE_DIR / marker).is_symlink()
    assert len(packs(project)) == 4  # the cache itself still works


def test_a_cache_folder_linked_elsewhere_is_neither_read_nor_written(
        project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Even a valid cache of this user's (another project's, signed with the same key) is not
    used through a link that came with the tree."""
    elsewhere = tmp_path_factory.mktemp("other-project")
    (elsewhere / "layers.py").write_text(LAYERS.replace("x.sum().item()", "x.sum()"), encoding="utf-8")
    (elsewhere / "train.py").write_text(TRAIN, encoding="utf-8")
    (elsewhere / "other.py").write_text("x = 1\n", encoding="utf-8")
    run(elsewhere, project_cache(elsewhere / CACHE_DIR))
    before = {p.name: p.read_bytes() for p in (elsewhere / CACHE_DIR).iterdir()}
    (project / CACHE_DIR).symlink_to(elsewhere / CACHE_DIR, target_is_directory=True)
    expected = cli_json(project, "--no-cache")
    assert cli_json(project) == expected
    assert {p.name: p.read_bytes() for p in (elsewhere / CACHE_DIR).iterdir()} == before
    assert run(project, project_cache(project / CACHE_DIR)) == run(project, None)


def test_a_pack_must_be_a_bounded_regular_file_of_the_folder(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import breaklint.infra.cache

    run(project, project_cache(project / CACHE_DIR))
    salt = code_salt()
    real = project / CACHE_DIR / "facts.pack"
    assert _read_pack(real, salt)
    moved = project / "facts.pack.elsewhere"
    real.rename(moved)
    real.symlink_to(moved)
    assert _read_pack(real, salt) == {}  # a symlink, even to a whole pack
    real.unlink()
    moved.rename(real)
    monkeypatch.setattr(breaklint.infra.cache, "MAX_PACK_BYTES", real.stat().st_size - 1)
    assert _read_pack(real, salt) == {}  # over the bound
