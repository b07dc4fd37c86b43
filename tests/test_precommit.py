"""The real `pre-commit` runs this repository's hook (.pre-commit-hooks.yaml): it installs
breaklint from a copy of the working tree into its own environment, fails on a bad file, passes on
a good one, honours the config's excludes for files it is given, and blocks a bad commit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testdata import HANG_GUARD_S, ROOT

pytest.importorskip("pre_commit")
import yaml  # noqa: E402  (pre-commit's own dependency)

if shutil.which("git") is None:
    pytest.skip("git is needed", allow_module_level=True)

BAD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum().item()\n"
GOOD = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sum()\n"
# Only a `possible` note (severity info): shown, but it does not block a commit.
NOTE = ("import torch\nimport warnings\n\n@torch.compile\ndef f(x, legacy=None):\n    if legacy is not None:\n"
        "        warnings.warn('legacy is deprecated')\n    return x + 1\n")


def git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def pre_commit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD_S)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("git-home")
    (home / "gitconfig").write_text("[user]\n\tname = t\n\temail = t@example.invalid\n[commit]\n\tgpgsign = false\n")
    return {
        **os.environ,
        "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),  # the user's own git settings stay out
        "GIT_CONFIG_NOSYSTEM": "1",
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    }


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    """A copy of the working tree (what git would see) committed in a repository of its own:
    pre-commit installs from a commit, and /work's own history is never touched."""
    repo = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, text=True, timeout=HANG_GUARD_S, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    git("init", "-q", cwd=repo, env=env)
    git("add", "-A", cwd=repo, env=env)
    git("commit", "-q", "-m", "hook under test", cwd=repo, env=env)
    return repo


@pytest.fixture
def work(tmp_path: Path, env: dict[str, str]) -> Path:
    git("init", "-q", cwd=tmp_path, env=env)
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "good.py").write_text(GOOD, encoding="utf-8")
    return tmp_path


def test_hook_definition() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "breaklint" and hook["language"] == "python"
    assert hook["entry"] == "breaklint check --force-exclude"
    assert hook["types_or"] == ["python", "pyi"] and hook["require_serial"] is True


def test_try_repo_fails_on_the_bad_file(hook_repo: Path, work: Path, env: dict[str, str]) -> None:
    git("add", "bad.py", "good.py", cwd=work, env=env)
    result = pre_commit("try-repo", str(hook_repo), "breaklint", "--files", "bad.py", "good.py", cwd=work, env=env)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Failed" in output and "bad.py:5:12: BL101" in output
    assert "good.py:" not in output


def readme_config(repo: Path) -> str:
    """The README's `.pre-commit-config.yaml`, pointed at `repo`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## pre-commit"):]
    snippet = section[section.index("```yaml\n") + len("```yaml\n"):section.index("```\n", section.index("```yaml"))]
    (url,) = [line.split("repo:")[1].split("#")[0].strip() for line in snippet.splitlines() if "repo:" in line]
    return snippet.replace(url, repo.as_posix())


def test_installed_hook_blocks_a_bad_commit(hook_repo: Path, work: Path, env: dict[str, str]) -> None:
    """The README's snippet, then `pre-commit autoupdate` as it says: with no tag in the hook's
    repository, the rev becomes its newest commit."""
    (work / ".pre-commit-config.yaml").write_text(readme_config(hook_repo), encoding="utf-8")
    updated = pre_commit("autoupdate", cwd=work, env=env)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    rev = git("rev-parse", "HEAD", cwd=hook_repo, env=env)
    (config,) = yaml.safe_load((work / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"]
    assert config["rev"] == rev and config["hooks"] == [{"id": "breaklint"}]
    (work / "pyproject.toml").write_text('[tool.breaklint]\nextend-exclude = ["vendored"]\n')
    (work / "vendored").mkdir()
    (work / "vendored" / "third_party.py").write_text(BAD, encoding="utf-8")
    installed = pre_commit("install", cwd=work, env=env)
    assert installed.returncode == 0, installed.stderr

    # a good file, one with only a `possible` note, and an excluded bad one (--force-exclude) commit
    (work / "note.py").write_text(NOTE, encoding="utf-8")
    git("add", ".pre-commit-config.yaml", "pyproject.toml", "good.py", "note.py", "vendored/third_party.py",
        cwd=work, env=env)
    commit = subprocess.run(["git", "commit", "-m", "good"], cwd=work, env=env, capture_output=True, text=True,
                            timeout=HANG_GUARD_S)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    assert "breaklint" in commit.stdout + commit.stderr and "Passed" in commit.stdout + commit.stderr

    # a bad file does not
    git("add", "bad.py", cwd=work, env=env)
    blocked = subprocess.run(["git", "commit", "-m", "bad"], cwd=work, env=env, capture_output=True, text=True,
                             timeout=HANG_GUARD_S)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "bad.py:5:12: BL101" in output and "Failed" in output
    assert git("log", "--format=%s", cwd=work, env=env).splitlines() == ["good"]
