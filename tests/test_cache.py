"""The cache under .breaklint_cache/: what it keeps, that a broken one only costs time, and that an
edit re-checks the edited file and what reaches it, nothing else."""

from __future__ import annotations

import os
import stat
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from breaklint.check import engine as engine_module
from breaklint.check.salt import project_cache
from breaklint.infra.cache import CACHE_DIR, Cache, Pack, RunPacks, clean
from breaklint.cli import cli
from breaklint.config import Config
from breaklint.check.engine import CheckResult, Engine
from breaklint.finding import Confidence, Stage
from breaklint.check.registry import RuleSet
from breaklint.rule import Rule


class _Flag(Rule):
    """Flags `.item()` and `.nonzero()` calls in regions and nothing else: these tests are about
    what the engine re-checks, so the rule must not depend on anything that changes."""

    code = "BL999"
    name = "flag-for-cache-tests"
    stage = Stage.DYNAMO
    message = "`.{method}()` in {region}"
    help = ""

    def visit_Call(self, node) -> None:  # type: ignore[no-untyped-def]
        method = getattr(getattr(node.func, "attr", None), "value", None)
        if method in ("item", "nonzero"):
            self.report(node, confidence=Confidence.CERTAIN, method=method)

PROJECT = {
    "layers.py": """
        import torch

        def scale(x):
            return x * x.sum().item()
        """,
    "model.py": """
        import torch
        from layers import scale

        @torch.compile
        def step(x):
            return scale(x)
        """,
    "other.py": """
        import torch

        @torch.compile
        def other(x):
            return x.nonzero()
        """,
    "quiet.py": "def plain(x):\n    return x + 1\n",
}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")


def flag_rules(config: Config, rules: tuple[type[Rule], ...] | None = None) -> RuleSet:
    """The run's own problems and _Flag (or `rules`, where given)."""
    rule_set = RuleSet(config)
    rule_set.enabled = rules if rules is not None else (*(rule for rule in rule_set.enabled if rule.meta), _Flag)
    return rule_set


def check(root: Path, cache_dir: Path | None) -> CheckResult:
    config = Config(root=root)
    cache = project_cache(cache_dir) if cache_dir is not None else None
    return Engine(config, flag_rules(config), cache=cache).check([root])


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    write(root, PROJECT)
    monkeypatch.chdir(root)
    return root


def codes(result: CheckResult) -> list[tuple[str, int, str]]:
    return [(f.path, f.span.start_line, f.code) for f in result.findings]


def test_warm_run_answers_from_the_cache(project: Path, rechecked: list[str]) -> None:
    cache = project / CACHE_DIR
    cold = check(project, cache)
    assert sorted(rechecked) == ["layers.py", "model.py", "other.py"]  # quiet.py has no region
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    rechecked.clear()
    warm = check(project, cache)
    assert rechecked == []
    assert codes(warm) == codes(cold) == codes(check(project, None))


def test_an_edit_rechecks_what_it_reaches(project: Path, rechecked: list[str]) -> None:
    cache = project / CACHE_DIR
    check(project, cache)
    rechecked.clear()
    (project / "other.py").write_text((project / "other.py").read_text() + "\n# a comment\n")
    check(project, cache)
    assert rechecked == ["other.py"]  # nothing else looked at other.py
    rechecked.clear()
    write(project, {"layers.py": "import torch\n\ndef scale(x):\n    return x.nonzero()\n"})
    result = check(project, cache)
    assert "other.py" not in rechecked and "layers.py" in rechecked
    assert codes(result) == codes(check(project, None))
    assert ("layers.py", 4, "BL999") in codes(result)


def project_callee(rule: Rule, node):  # type: ignore[no-untyped-def]
    """The project function a call resolves to, or None."""
    from breaklint.index.project import FunctionInfo

    name = rule.ctx.resolve(node.func)
    found = rule.ctx.project.lookup(name, rule.ctx.module) if name and "." in name else None
    return found if isinstance(found, FunctionInfo) else None


class _FlagParam(Rule):
    """Flags calls of project functions that take a parameter named `flag`: it reads the
    callee's index entry in another module, nothing else of it."""

    code = "BL997"
    name = "flag-param-for-cache-tests"
    stage = Stage.DYNAMO
    message = "calls a function with a `flag` parameter in {region}"
    help = ""

    def visit_Call(self, node) -> None:  # type: ignore[no-untyped-def]
        found = project_callee(self, node)
        if found is not None and "flag" in found.header.params:
            self.report(node, confidence=Confidence.CERTAIN)


def test_an_edit_rechecks_only_the_readers_of_what_changed(project: Path, rechecked: list[str]) -> None:
    """Cached results depend on the parts of another module they read (scan.part_digests):
    model.py's rule read `scale` in layers.py. A function added to layers.py, or another
    function's body changed there, leaves model.py alone; a change to `scale` does not."""
    write(project, {"layers.py": PROJECT["layers.py"] + "\n        def unrelated(y):\n            return y\n"})
    cache = project / CACHE_DIR

    def run(cache_dir: Path | None) -> list[tuple[str, int, str]]:
        config = Config(root=project)
        rules = RuleSet(config)
        rules.enabled = (*(rule for rule in rules.enabled if rule.meta), _FlagParam)
        return codes(Engine(config, rules, cache=project_cache(cache_dir) if cache_dir else None).check([project]))

    assert run(cache) == []
    layers = project / "layers.py"
    for edit in (lambda t: t + "\ndef added(z):\n    return z\n", lambda t: t.replace("return y", "return -y")):
        rechecked.clear()
        layers.write_text(edit(layers.read_text()))
        found = run(cache)
        assert rechecked == ["layers.py"]
        assert found == run(None) == []
    rechecked.clear()
    layers.write_text(layers.read_text().replace("def scale(x):", "def scale(x, flag=False):"))
    found = run(cache)
    assert sorted(rechecked) == ["layers.py", "model.py"]
    assert found == run(None) == [("model.py", 7, "BL997")]


def test_only_the_parts_of_changed_files_are_checked_one_by_one(project: Path, monkeypatch,
                                                                rechecked: list[str]) -> None:
    """A cached result keeps the digest of each file it read (engine.py, `_recorded`): a warm run
    looks at the parts it read of a file one by one only when that file changed: after an edit
    of other.py, other.py's parts alone (the regions read every file); after a function is
    appended to layers.py, layers.py's alone (and they still hold: model.py, which reads it, is
    answered from the cache)."""
    cache = project / CACHE_DIR
    weighed: list[str] = []
    real = engine_module._Run._fingerprints

    def spied(run):  # type: ignore[no-untyped-def]
        fingerprint = real(run)

        def spy(name: str):  # type: ignore[no-untyped-def]
            if name.startswith(("#", "@")):
                weighed.append(name[1:].partition("\0")[0])
            return fingerprint(name)
        return spy

    monkeypatch.setattr(engine_module._Run, "_fingerprints", spied)
    cold = codes(check(project, cache))
    other = project / "other.py"
    other.write_text(other.read_text() + "\n# a comment\n")
    weighed.clear()
    assert codes(check(project, cache)) == cold
    assert weighed and set(weighed) == {str(other)}
    layers = project / "layers.py"
    layers.write_text(layers.read_text() + "\n\ndef added(z):\n    return z\n")
    weighed.clear()
    rechecked.clear()
    assert codes(check(project, cache)) == cold
    assert weighed and set(weighed) == {str(layers)}
    assert rechecked == ["layers.py"]


def test_regions_are_computed_again_only_when_what_they_read_changed(project: Path, monkeypatch) -> None:
    """A function added to a file, or a body changed in a way no call resolution reads, keeps
    the cached regions; a new call from a compiled function to another file does not."""
    computed: list[int] = []
    original = engine_module.compute_regions

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        computed.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(engine_module, "compute_regions", spy)
    cache = project / CACHE_DIR
    check(project, cache)
    assert computed == [1]
    layers, quiet = project / "layers.py", project / "quiet.py"
    layers.write_text(layers.read_text() + "\ndef added(z):\n    return z\n")
    quiet.write_text(quiet.read_text().replace("x + 1", "x + 2"))
    model = project / "model.py"  # holds a compile site: its classes and sites were read
    model.write_text(model.read_text() + "\ndef helper_added(z):\n    return z\n")
    assert codes(check(project, cache)) == codes(check(project, None))
    assert computed == [1, 1]  # the second is the uncached run's
    (project / "other.py").write_text("import torch\nfrom quiet import plain\n\n@torch.compile\n"
                                      "def other(x):\n    return plain(x)\n")
    quiet.write_text("def plain(x):\n    return x.nonzero()\n")
    result = check(project, cache)
    assert computed == [1, 1, 1]
    assert codes(result) == codes(check(project, None))
    assert ("quiet.py", 2, "BL999") in codes(result)


def test_a_config_set_in_the_entry_file_rechecks_the_callee_file(project: Path, monkeypatch) -> None:
    """layers.py's `.item()` is BL101 unless the entry's file (model.py) switches on
    capture_scalar_outputs: the rule reads model.py's text and tree — once, without checking
    layers.py a second time against that tree — and the cached result depends on its bytes."""
    runs: list[str] = []
    original = engine_module.Engine._run_rules

    def spy(self, module, *args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(module.file.display)
        return original(self, module, *args, **kwargs)

    monkeypatch.setattr(engine_module.Engine, "_run_rules", spy)
    cache = project / CACHE_DIR

    def run(cache_dir: Path | None) -> list[tuple[str, int, str]]:
        config = Config(root=project)
        return codes(Engine(config, RuleSet(config), cache=project_cache(cache_dir) if cache_dir else None).check([project]))

    assert ("layers.py", 5, "BL101") in run(cache)
    assert runs.count("layers.py") == 1
    model = project / "model.py"
    model.write_text(model.read_text().replace("from layers import scale\n",
                                               "from layers import scale\n\ntorch._dynamo.config.capture_scalar_outputs = True\n"))
    runs.clear()
    found = run(cache)
    assert "layers.py" in runs and ("layers.py", 5, "BL101") not in found
    assert found == run(None)


class _Marked(Rule):
    """Flags calls of project functions whose source carries `# MARK`: a comment, which no
    summary holds, so only the called file's tree can tell."""

    code = "BL998"
    name = "marked-callee-for-cache-tests"
    stage = Stage.DYNAMO
    message = "calls a marked function in {region}"
    help = ""

    def visit_Call(self, node) -> None:  # type: ignore[no-untyped-def]
        found = project_callee(self, node)
        if found is not None and found.module is not self.ctx.module:
            if "# MARK" in found.module.file.tree.code_for_node(found.node):
                self.report(node, confidence=Confidence.CERTAIN)


# A configuration class whose `gated` defaults to False, and a module that breaks (its `.item()`,
# line 7) where a model builds or calls it under that setting.
GATED = {
    "config.py": """
        class Config:
            def __init__(self, gated=False):
                self.gated = gated
        """,
    "gated.py": """
        import torch
        from torch import nn

        class Gated(nn.Module):
            def forward(self, x):
                return x * x.sum().item()

        class Plain(nn.Module):
            def forward(self, x):
                return x
        """,
}


def gated_findings(project: Path, cached: bool) -> set[tuple[str, int, str]]:
    """gated.py's findings (line, confidence), with forwards compiled only where compiled."""
    config = Config(root=project, assume_forward_compiled=False)
    result = Engine(config, RuleSet(config), cache=project_cache(project / CACHE_DIR) if cached else None).check([project])
    return {(f.path, f.span.start_line, f.confidence.value) for f in result.findings if f.path == "gated.py"}


def test_a_configuration_default_read_in_another_file_is_a_dependency(project: Path, rechecked: list[str]) -> None:
    """model.py builds `Gated` only when `config.gated`: its `.item()` is `possible` while the
    configuration class (config.py) defaults it to False. The regions read config.py's
    parameter defaults; flipping the default makes it likely, through the cache as fresh."""
    write(project, {
        **GATED,
        "net.py": """
            import torch
            from torch import nn
            from config import Config
            from gated import Gated, Plain

            class Net(nn.Module):
                def __init__(self, config: Config):
                    super().__init__()
                    self.mix = Gated() if config.gated else Plain()

                def forward(self, x):
                    return self.mix(x)

            fast = torch.compile(Net(Config()))
            """,
    })

    assert gated_findings(project, True) == {("gated.py", 7, "possible")}
    config_file = project / "config.py"
    config_file.write_text(config_file.read_text().replace("gated=False", "gated=True"))
    rechecked.clear()
    assert gated_findings(project, True) == {("gated.py", 7, "likely")} == gated_findings(project, False)
    assert "gated.py" in rechecked


def test_an_inits_own_copy_of_a_setting_is_a_dependency(project: Path, rechecked: list[str]) -> None:
    """`self.gated = config.gated`, a statement of `__init__`'s own body, makes `if self.gated:`
    a settings test (the pre-pass's FunctionSummary.stores); moved under an `if`, it no longer
    is: the cached answer follows the edit of `__init__` as a fresh run does."""
    write(project, {
        **GATED,
        "net.py": """
            import torch
            from torch import nn
            from config import Config
            from gated import Gated

            class Net(nn.Module):
                def __init__(self, config: Config):
                    super().__init__()
                    self.gated = config.gated
                    self.mix = Gated()

                def forward(self, x):
                    if self.gated:
                        return self.mix(x)
                    return x

            fast = torch.compile(Net(Config()))
            """,
    })

    assert gated_findings(project, True) == {("gated.py", 7, "possible")} == gated_findings(project, False)
    net = project / "net.py"
    net.write_text(net.read_text().replace("        self.gated = config.gated\n",
                                           "        if config:\n            self.gated = config.gated\n"))
    assert gated_findings(project, True) == {("gated.py", 7, "likely")} == gated_findings(project, False)


def test_reading_another_files_tree_ties_the_result_to_its_bytes(project: Path) -> None:
    write(project, {"layers.py": "import torch\n\ndef scale(x):\n    return x  # MARK\n"})
    cache = project / CACHE_DIR

    def marked() -> list[tuple[str, int, str]]:
        config = Config(root=project)
        rules = RuleSet(config)
        rules.enabled = (*(rule for rule in rules.enabled if rule.meta), _Marked)
        found = Engine(config, rules, cache=project_cache(cache)).check([project])
        return [c for c in codes(found) if c[2] == "BL998"]

    assert marked() == [("model.py", 7, "BL998")]
    write(project, {"layers.py": "import torch\n\ndef scale(x):\n    return x  # gone\n"})
    assert marked() == []  # same summary, other bytes: model.py was checked again


class _Scan(Rule):
    """Looks through every module for a def named `magic`, as rules that find an entry point's
    module do: such a result depends on that name in every module, not on every module whole."""

    code = "BL997"
    name = "scan-for-cache-tests"
    stage = Stage.DYNAMO
    message = "a magic function exists, seen from {region}"
    help = ""

    def visit_Call(self, node) -> None:  # type: ignore[no-untyped-def]
        if any(module.functions.get("magic") is not None for module in self.ctx.project.modules):
            self.report(node, confidence=Confidence.CERTAIN)


def test_a_scan_of_every_module_depends_on_what_it_asked(project: Path, rechecked: list[str]) -> None:
    cache = project / CACHE_DIR

    def scanned() -> list[tuple[str, int, str]]:
        config = Config(root=project)
        rules = RuleSet(config)
        rules.enabled = (*(rule for rule in rules.enabled if rule.meta), _Scan)
        found = Engine(config, rules, cache=project_cache(cache)).check([project])
        return sorted({(path, code) for path, _, code in codes(found)})  # type: ignore[misc]

    assert scanned() == []
    rechecked.clear()
    quiet = project / "quiet.py"
    quiet.write_text(quiet.read_text() + "\n\ndef unrelated(x):\n    return x\n")
    assert scanned() == [] and rechecked == []  # quiet.py has no region; nobody asked for `unrelated`
    quiet.write_text(quiet.read_text() + "\n\ndef magic(x):\n    return x\n")
    assert scanned() == [("layers.py", "BL997"), ("model.py", "BL997"), ("other.py", "BL997")]
    assert sorted(rechecked) == ["layers.py", "model.py", "other.py"]


def test_a_new_caller_puts_a_file_in_a_region(project: Path, rechecked: list[str]) -> None:
    cache = project / CACHE_DIR
    check(project, cache)
    write(project, {"quiet.py": "import torch\n\n@torch.compile\ndef plain(x):\n    return x.item()\n"})
    rechecked.clear()
    result = check(project, cache)
    assert "quiet.py" in rechecked
    assert codes(result) == codes(check(project, None))


def test_a_subclass_in_another_file_is_a_dependency_of_the_regions(project: Path, rechecked: list[str]) -> None:
    """`self.step(x)` in a base's `forward` runs every subclass's override (regions.py, dispatch):
    the regions depend on which classes of the tree derive from the base, wherever they are."""
    cache = project / CACHE_DIR
    write(project, {"base.py": """
        from torch import nn

        class Base(nn.Module):
            def forward(self, x):
                return self.step(x)

            def step(self, x):
                raise NotImplementedError
        """})
    check(project, cache)
    subclass = "from base import Base\n\nclass Syncing(Base):\n    def step(self, x):\n        return x.item()\n"
    write(project, {"quiet.py": subclass})  # no entry of its own: reached only through Base.forward
    rechecked.clear()
    result = check(project, cache)
    assert "quiet.py" in rechecked and ("quiet.py", 5, "BL999") in codes(result)
    assert codes(result) == codes(check(project, None))
    write(project, {"quiet.py": subclass.replace("(Base)", "(object)")})  # not a subclass any more
    result = check(project, cache)
    assert ("quiet.py", 5, "BL999") not in codes(result)
    assert codes(result) == codes(check(project, None))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip", "empty"])
def test_a_damaged_cache_is_a_cold_run(project: Path, damage: str) -> None:
    cache = project / CACHE_DIR
    expected = codes(check(project, cache))
    for pack in cache.glob("*.pack"):
        data = pack.read_bytes()
        if damage == "truncate":
            pack.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            pack.write_bytes(os.urandom(len(data)))
        elif damage == "flip":
            pack.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
        else:
            pack.write_bytes(b"")
    assert codes(check(project, cache)) == expected
    assert codes(check(project, cache)) == expected  # and it was rewritten whole


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_cache_is_used_but_not_written(project: Path) -> None:
    cache = project / CACHE_DIR
    expected = codes(check(project, cache))
    write(project, {"other.py": "import torch\n\n@torch.compile\ndef other(x):\n    return x.item()\n"})
    cache.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert codes(check(project, cache)) == codes(check(project, None)) != expected
    finally:
        cache.chmod(stat.S_IRWXU)


def test_a_cache_that_cannot_be_written_is_used_but_not_updated(project: Path, monkeypatch) -> None:
    cache = project / CACHE_DIR
    check(project, cache)
    write(project, {"other.py": "import torch\n\n@torch.compile\ndef other(x):\n    return x.item()\n"})

    def refuse(*args: object) -> None:
        raise PermissionError(13, "read-only file system")

    monkeypatch.setattr("breaklint.infra.cache._write_pack", refuse)
    assert codes(check(project, cache)) == codes(check(project, None))
    assert ("other.py", 5, "BL999") in codes(check(project, cache))


def test_an_unwritable_cache_location_is_no_cache(project: Path) -> None:
    blocker = project / "blocker"
    blocker.write_text("a file where the cache folder would go")
    assert codes(check(project, blocker / CACHE_DIR)) == codes(check(project, None))


def test_a_pack_from_another_version_is_ignored(tmp_path: Path) -> None:
    pack: Pack[int] = Pack(tmp_path / "x.pack", "salt-1", keep_unused=10)
    pack.put("a", 1)
    pack.save()
    assert Pack(tmp_path / "x.pack", "salt-1", keep_unused=10).get("a") == 1
    assert Pack(tmp_path / "x.pack", "salt-2", keep_unused=10).get("a") is None


def test_a_pack_keeps_this_runs_entries_and_the_newest_others(tmp_path: Path) -> None:
    first: Pack[int] = Pack(tmp_path / "x.pack", "s", keep_unused=2)
    for number in range(5):
        first.put(str(number), number)
    first.save()
    second: Pack[int] = Pack(tmp_path / "x.pack", "s", keep_unused=2)
    assert second.get("0") == 0
    second.put("new", 9)
    second.save()
    third: Pack[int] = Pack(tmp_path / "x.pack", "s", keep_unused=2)
    kept = {key for key in ("0", "1", "2", "3", "4", "new") if third.get(key) is not None}
    assert kept == {"0", "new", "3", "4"}


def test_each_run_has_a_pack_of_its_own_and_the_newest_stay(tmp_path: Path) -> None:
    """RunPacks: a run reads and writes only its own pack; a save keeps it and the newest others,
    and drops older ones and the single pack all runs shared before (`runs.pack`)."""
    (tmp_path / "runs.pack").write_bytes(b"the old single pack")
    for number in range(5):
        runs = RunPacks(tmp_path, "s", keep_others=2)
        runs.put(f"k{number}", number)
        runs.save()
        os.utime(tmp_path / f"run-k{number}.pack", ns=(number * 10**9, number * 10**9))  # in the order written
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == ["run-k2.pack", "run-k3.pack", "run-k4.pack"]
    (tmp_path / "run-k3.pack").write_bytes(b"damaged")  # another run's: nothing to this one
    again = RunPacks(tmp_path, "s", keep_others=2)
    assert again.get("k4") == 4 and again.get("k2") == 2 and again.get("k0") is None
    assert RunPacks(tmp_path, "other salt", keep_others=2).get("k4") is None
    unchanged = RunPacks(tmp_path, "s", keep_others=0)
    assert unchanged.get("k4") == 4
    unchanged.save()  # nothing written: nothing dropped
    assert len(list(tmp_path.iterdir())) == 3


def test_cli_no_cache_and_clean(project: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["check", ".", "--no-cache", "--jobs", "1"])
    assert first.exit_code == 1 and not (project / CACHE_DIR).exists()
    second = runner.invoke(cli, ["check", ".", "-j", "2"])
    assert second.output.splitlines()[:-1] == first.output.splitlines()[:-1]  # the last: the time
    assert (project / CACHE_DIR / ".gitignore").is_file()
    cleaned = runner.invoke(cli, ["clean"])
    assert cleaned.exit_code == 0 and "removed" in cleaned.output
    assert not (project / CACHE_DIR).exists()
    assert "no cache" in runner.invoke(cli, ["clean"]).output


def test_clean_leaves_other_folders_alone(tmp_path: Path) -> None:
    folder = tmp_path / CACHE_DIR
    folder.mkdir()
    (folder / "precious.txt").write_text("not ours")
    assert not clean(folder)
    assert (folder / "precious.txt").exists()


def test_a_loop_in_a_caller_in_another_file_escalates_through_the_cache(tmp_path: Path, monkeypatch) -> None:
    # The break is in layers.py; the loop that makes Dynamo skip the frame is in model.py's
    # forward. Editing only model.py must change layers.py's finding in a warm run.
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    looping = """
        import torch
        from layers import Block

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = torch.nn.ModuleList([Block(), Block()])

            def forward(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

        model = torch.compile(Net())
        """
    write(root, {"layers.py": """
        import torch

        class Block(torch.nn.Module):
            def forward(self, x):
                return x * x.sum().item()
        """, "model.py": looping})

    def escalated() -> list[bool]:
        config = Config(root=root)
        found = Engine(config, RuleSet(config), cache=project_cache(root / CACHE_DIR)).check([root])
        return [f.message.find("reached from a loop in `Net.forward`") >= 0 for f in found.findings if f.code == "BL101"]

    assert escalated() == [True]
    write(root, {"model.py": looping.replace("for block in self.blocks:\n                    x = block(x)",
                                             "x = self.blocks[0](x)")})
    assert escalated() == [False]
    write(root, {"model.py": looping})
    assert escalated() == [True]


CALLER_PROJECT = {
    "helpers.py": """
        import torch


        def gate(x, flag):
            if flag:
                return x * 2
            return x
        """,
    "model.py": """
        import torch
        from torch import nn
        from helpers import gate


        class Net(nn.Module):
            def forward(self, x):
                return gate(x, x.sum() > 0)


        def unrelated(y):
            return y
        """,
}


def _edits_of_model(tmp_path: Path, monkeypatch, files: dict[str, str], rechecked: list[str]):  # type: ignore[no-untyped-def]
    """A project of `files` with the real rules: `found(cached)`, its findings; `warm_after(edit)`,
    the findings and the files re-checked after `edit` (text -> text) of its model.py."""
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    write(root, files)
    model = root / "model.py"

    def found(cached: bool) -> list[tuple[str, int, str]]:
        config = Config(root=root)
        cache = project_cache(root / CACHE_DIR) if cached else None
        return codes(Engine(config, RuleSet(config), cache=cache).check([root]))

    def warm_after(edit) -> tuple[list[tuple[str, int, str]], list[str]]:  # type: ignore[no-untyped-def]
        model.write_text(edit(model.read_text()))
        rechecked.clear()
        return found(True), sorted(rechecked)

    return found, warm_after


def test_a_callers_code_is_a_dependency_of_its_own_lines_only(tmp_path: Path, monkeypatch, rechecked: list[str]) -> None:
    """helpers.py's finding comes from what its caller in model.py passes (a tensor as `flag`:
    arguments.py reads the caller's code, parsed from its own lines). It depends on that
    caller's index entry and the lines of its class (view._content_view, scan.text_digests),
    not on the rest of model.py: a function appended there, or another def's body changed,
    re-checks model.py alone; an edit to the caller's lines re-checks helpers.py too."""
    found, warm_after = _edits_of_model(tmp_path, monkeypatch, CALLER_PROJECT, rechecked)
    assert found(True) == [("helpers.py", 6, "BL102")]
    appended = warm_after(lambda t: t + "\n\ndef added(z):\n    return z\n")  # what the benchmark's touch does
    assert appended == ([("helpers.py", 6, "BL102")], ["model.py"])
    elsewhere = warm_after(lambda t: t.replace("return y", "return -y"))
    assert elsewhere == ([("helpers.py", 6, "BL102")], ["model.py"])
    assert found(False) == [("helpers.py", 6, "BL102")]
    # A comment in the call: the same summary, other lines of the caller.
    commented = warm_after(lambda t: t.replace("return gate(", "return gate(  # the same call\n            "))
    assert commented == ([("helpers.py", 6, "BL102")], ["helpers.py", "model.py"])
    passed_bool = warm_after(lambda t: t.replace("x.sum() > 0", "True"))  # a Python bool: no graph break
    assert passed_bool == ([], ["helpers.py", "model.py"])
    assert found(False) == []


SUBMODULE_PROJECT = {
    "helpers.py": """
        def to_int(x):
            return int(x)
        """,
    "model.py": """
        import torch
        from torch import nn
        from helpers import to_int


        class WindowBias(nn.Module):
            def __init__(self):
                super().__init__()
                self.table = nn.Parameter(torch.zeros(4, 4))

            def forward(self, window, dim=None):
                return self.table[: to_int(2 * window[0] - 1)]


        class WindowedAttention(nn.Module):
            def __init__(self):
                super().__init__()
                self.bias = WindowBias()

            def forward(self, x):
                return x + self.bias((x.shape[1], x.shape[2] // 2), dim=x.shape[1]).sum()


        class Unrelated(nn.Module):
            def forward(self, y):
                return y + 1


        def unrelated(y):
            return y
        """,
}


def test_a_submodules_users_are_read_by_name(tmp_path: Path, monkeypatch, rechecked: list[str]) -> None:
    """helpers.py's verdict depends on what WindowedAttention passes WindowBias (arguments.
    submodule_callers reads which classes may build a WindowBias, then those classes and their
    methods by name): a function appended to model.py, or another class edited, re-checks
    model.py alone; a tensor passed instead re-checks both."""
    found, warm_after = _edits_of_model(tmp_path, monkeypatch, SUBMODULE_PROJECT, rechecked)
    assert found(True) == []
    assert warm_after(lambda t: t + "\n\ndef added(z):\n    return z\n") == ([], ["model.py"])
    assert warm_after(lambda t: t.replace("return y\n", "return -y\n")) == ([], ["model.py"])
    assert warm_after(lambda t: t.replace("return y + 1", "return y + 2")) == ([], ["model.py"])
    tensor = warm_after(lambda t: t.replace("(x.shape[1], x.shape[2] // 2)", "(x.sum(), 2)"))
    assert tensor == ([("helpers.py", 3, "BL101")], ["helpers.py", "model.py"])
    assert found(False) == [("helpers.py", 3, "BL101")]


COMPILED_ELSEWHERE = {
    "model.py": """
        import torch


        @torch.compile
        def step(x, scale):
            return x * scale
        """,
    "train.py": """
        import torch

        from model import step

        X = torch.randn(8, 8)


        def run():
            for scale in range(10):
                step(X, scale)
        """,
}


def test_a_compiled_name_read_from_another_module_depends_on_its_guard_facts_only(
        tmp_path: Path, monkeypatch, rechecked: list[str]) -> None:
    """train.py's BL211 comes from model.py's compiled names (view.GuardFacts, read through the
    guard model). It depends on what those facts are made of (scan.part_digests), not on the
    whole of model.py's index: a function appended there re-checks model.py alone (a whole
    summary's key re-checked 40 files of transformers when one was appended to llama's model);
    `dynamic=True` on the compile re-checks train.py, and its finding goes."""
    found, warm_after = _edits_of_model(tmp_path, monkeypatch, COMPILED_ELSEWHERE, rechecked)
    assert found(True) == [("train.py", 11, "BL211")]
    appended = warm_after(lambda t: t + "\n\ndef added(z):\n    return z\n")
    assert appended == ([("train.py", 11, "BL211")], ["model.py"])
    dynamic = warm_after(lambda t: t.replace("@torch.compile\n", "@torch.compile(dynamic=True)\n"))
    assert dynamic == (found(False), ["model.py", "train.py"])
    assert ("train.py", 11, "BL211") not in dynamic[0]


def test_a_settled_save_writes_the_facts_and_regions_not_the_findings(tmp_path: Path) -> None:
    """Cache.save(settled=True), written while a ready worker checks: what the check cannot change."""
    cache = Cache(tmp_path / CACHE_DIR, salt="s")
    for pack in (cache.facts, cache.regions, cache.findings):
        pack.put("k", "v")
    cache.save(settled=True)
    assert (tmp_path / CACHE_DIR / "facts.pack").is_file() and (tmp_path / CACHE_DIR / "regions.pack").is_file()
    assert not (tmp_path / CACHE_DIR / "findings.pack").exists()
    cache.save()
    assert Cache(tmp_path / CACHE_DIR, salt="s").findings.get("k") == "v"


def _whole(root: Path, cache_dir: Path, config: Config | None = None, report: list[Path] | None = None,
           rules: tuple[type[Rule], ...] | None = None) -> tuple[CheckResult, bool]:
    """A check, and whether it was answered whole (Cache.runs): its facts were never loaded."""
    config = config or Config(root=root)
    cache = project_cache(cache_dir)
    result = Engine(config, flag_rules(config, rules), cache=cache).check([root], report=report)
    return result, cache.facts._entries is None


def test_a_run_whose_inputs_are_unchanged_is_answered_whole(project: Path, rechecked: list[str]) -> None:
    cache = project / CACHE_DIR
    cold, whole = _whole(project, cache)
    assert not whole and codes(cold)
    rechecked.clear()
    warm, whole = _whole(project, cache)
    assert whole and rechecked == []
    assert codes(warm) == codes(cold) and warm.files_checked == cold.files_checked


@pytest.mark.parametrize("change", ["edit", "new file", "settings", "rules", "reported", "shown from", "unreadable"])
def test_any_change_of_a_runs_inputs_checks_it_again(project: Path, tmp_path: Path, monkeypatch, change: str) -> None:
    """The whole answer is keyed by all that a run's findings depend on: each change here
    leads to the pipeline (the facts are loaded) and to the findings of a run without a cache."""
    cache = project / CACHE_DIR
    config, report, rules = Config(root=project), None, None
    _whole(project, cache)
    if change == "edit":
        write(project, {"quiet.py": "import torch\n\n@torch.compile\ndef plain(x):\n    return x.item()\n"})
    elif change == "new file":
        write(project, {"extra.py": "import torch\n\n@torch.compile\ndef extra(x):\n    return x.nonzero()\n"})
    elif change == "settings":
        config = Config(root=project, assume_forward_compiled=False)
    elif change == "rules":
        rules = tuple(rule for rule in RuleSet(config).enabled if rule.meta)  # without _Flag
    elif change == "reported":
        report = [project / "other.py"]
    elif change == "shown from":
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        monkeypatch.chdir(elsewhere)
    else:  # a file that is no longer one breaklint reads (a FIFO: BL003, whoever runs the test)
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        (project / "quiet.py").unlink()
        os.mkfifo(project / "quiet.py")
    again, whole = _whole(project, cache, config, report, rules)
    fresh = Engine(config, flag_rules(config, rules)).check([project], report=report)
    assert not whole
    assert [(f.path, f.span.start_line, f.code, f.message) for f in again.findings] == \
        [(f.path, f.span.start_line, f.code, f.message) for f in fresh.findings]
    _, whole = _whole(project, cache, config, report, rules)
    assert whole  # and now that one is kept too


def test_a_run_with_an_internal_error_is_not_kept_whole(project: Path, monkeypatch) -> None:
    """A BL005 (a rule's crash, a dead worker) may not happen again: such a run is checked again."""
    def crash(rule: Rule, node) -> None:  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setattr(_Flag, "visit_Call", crash)
    cache = project / CACHE_DIR
    first, _ = _whole(project, cache)
    assert any(f.code == "BL005" for f in first.findings)
    _, whole = _whole(project, cache)
    assert not whole


def test_unsaved_buffers_are_never_answered_whole(project: Path) -> None:
    config = Config(root=project)
    rule_set = RuleSet(config)
    cache = project_cache(project / CACHE_DIR)
    Engine(config, rule_set, cache=cache).check([project])
    cache = project_cache(project / CACHE_DIR)
    buffers = {project / "quiet.py": "import torch\n\n@torch.compile\ndef plain(x):\n    return x.item()\n"}
    result = Engine(config, rule_set, cache=cache).check([project], overlays=buffers)
    assert cache.facts._entries is not None
    assert ("quiet.py", 5, "BL101") in codes(result)
