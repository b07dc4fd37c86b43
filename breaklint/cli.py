"""The command line: `breaklint check`, `breaklint rule CODE`, `breaklint rules`.

Exit codes, the same for every command and the pre-commit hook: 0 clean, 1 findings,
2 usage, config or internal error.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import __version__
from breaklint.infra.collector import paused_collector
from breaklint.infra.deferred import defer, when_imported
from breaklint.infra.trusted_nodes import trust_parsed_nodes

defer("libcst")  # a warm check answers from the cache: see deferred.py

from .config import Config, ConfigError, find_pyproject, load_config, python_version, settings_toml
from breaklint.check.engine import CheckResult, Engine
from .finding import Severity
from breaklint.check.registry import RuleSet, all_rules, find_rule
from breaklint.versions import target_torch as known_torch

if TYPE_CHECKING:
    from breaklint.check.units import CheckUnit

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
INTERNAL_ERROR_CODE = "BL005"


def _split_codes(values: tuple[str, ...]) -> tuple[str, ...] | None:
    if not values:
        return None
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


def _load(config_path: Path | None, paths: tuple[Path, ...]) -> Config:
    if config_path is not None:
        return load_config(config_path, explicit=True)
    start = paths[0] if paths else Path.cwd()
    start = start if start.is_absolute() else Path.cwd() / start
    return load_config(find_pyproject(start))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="breaklint")
def cli() -> None:
    """A linter for torch.compile: graph breaks and recompiles, found before anything runs."""


FORMATS = ["text", "concise", "json", "sarif", "github", "lsp"]
# `--fail-on LEVEL`: the severities that make the exit code 1.
FAILING = {
    "error": frozenset({Severity.ERROR}),
    "warning": frozenset({Severity.ERROR, Severity.WARNING}),
    "info": frozenset(Severity),
}
STDIN = "-"


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="Rule codes, code prefixes or names to enable (comma-separated).")
@click.option("--extend-select", multiple=True, help="Rule codes, prefixes or names to enable besides the selected ones.")
@click.option("--ignore", multiple=True, help="Rule codes, code prefixes or names to disable.")
@click.option("--output-format", "--format", "output_format", type=click.Choice(FORMATS), default="text",
              show_default=True,
              help="text (with Dynamo's words and help); concise (one line a finding); json; sarif (SARIF 2.1.0); "
                   "github (Actions annotations); lsp ({uri: [Diagnostic]}).")
@click.option("--output-file", "-o", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--fail-on", type=click.Choice(list(FAILING)), default="warning", show_default=True,
              help="The least severe finding that makes the exit code 1 (info: `possible` notes too).")
@click.option("--scope", type=click.Choice(["compiled", "all"]), default=None,
              help="compiled (default): only code torch.compile traces; all: every function.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="A pyproject.toml (or a TOML file holding the [tool.breaklint] keys at top level).")
@click.option("--target-torch", default=None, help="Judge for this torch version, e.g. 2.11.")
@click.option("--target-python", default=None, help="Judge for the bytecode of this Python, e.g. 3.12.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too.")
@click.option("--stdin-filename", type=click.Path(path_type=Path),
              help="Check the text on stdin as this file (`breaklint check - --stdin-filename src/model.py`).")
@click.option("--statistics", is_flag=True, help="Print a count of findings per rule (text, or json).")
@click.option("--show-settings", is_flag=True, help="Print the settings in effect, as a [tool.breaklint] table.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary.")
@click.option("--verbose", "-v", is_flag=True, help="Show call chains and internal-error tracebacks.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: the available cores).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write .breaklint_cache/.")
def check(
    paths: tuple[Path, ...], select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
    output_format: str, output_file: Path | None, exit_zero: bool, fail_on: str, scope: str | None,
    config_path: Path | None, target_torch: str | None, target_python: str | None, force_exclude: bool,
    stdin_filename: Path | None, statistics: bool, show_settings: bool, show_files: bool, quiet: bool,
    verbose: bool, jobs: int | None, no_cache: bool,
) -> None:
    """Check PATHS (default: the current directory; `-`: the text on stdin)."""
    from .report import RENDERERS
    from .report.text import render_statistics

    from_stdin = STDIN in map(str, paths) or (stdin_filename is not None and not paths)
    if from_stdin and len(paths) > 1:
        raise _fail("`-` (stdin) cannot be checked together with other paths")
    if statistics and output_format not in ("text", "concise", "json"):
        raise _fail(f"--statistics prints text or json, not {output_format}")
    named = (stdin_filename or Path(STDIN),) if from_stdin else paths
    from breaklint.infra.parallel import available_cores
    from breaklint.check.units import check_units, plan

    try:
        target = known_torch(target_torch) if target_torch else None
        python = python_version(target_python) if target_python else None

        def overrides(config: Config) -> Config:
            return config.with_overrides(
                select=_split_codes(select), extend_select=_split_codes(extend_select), ignore=_split_codes(ignore),
                scope=scope, target_torch=target, target_python=python,
            )

        if show_settings or show_files:  # the settings of the first path (as ruff shows them)
            config = overrides(_load(config_path, named))
            RuleSet(config)  # unknown selectors are an error here too
        else:
            units = plan(list(named), overrides, config_path)  # each file takes its nearest settings
    except (ConfigError, ValueError) as error:
        raise _fail(str(error))
    if show_settings:
        click.echo(settings_toml(config), nl=False)
        return
    if show_files:
        click.echo("".join(line + "\n" for line in _files(config, list(named) or [Path(".")], force_exclude)), nl=False)
        return
    try:
        with paused_collector():  # this process's setting for the check (infra/collector.py)
            if from_stdin:
                result = _check_stdin(units, named[0], jobs or available_cores(), not no_cache, force_exclude)
            else:
                result = check_units(units, jobs or available_cores(), not no_cache, force_exclude)
    except (ConfigError, ValueError) as error:
        raise _fail(str(error))
    if statistics:
        rendered = render_statistics(result, as_json=output_format == "json")
    else:
        rendered = RENDERERS[output_format](result, verbose)
        if quiet and output_format in ("text", "concise"):
            rendered = "".join(line + "\n" for line in rendered.splitlines()[:-1])
    if output_file is not None:
        try:
            output_file.write_text(rendered, encoding="utf-8")
        except OSError as error:
            raise _fail(f"cannot write {output_file}: {error.strerror or error}")
    else:
        click.echo(rendered, nl=False)
    raise CheckDone(exit_code(result, exit_zero, FAILING[fail_on]))


class CheckDone(SystemExit):
    """A check's end, with its exit code: everything is written (the report, the cache), so the
    process may end without the interpreter's teardown (see `main`). Elsewhere (click's test
    runner, an embedding program) it is the SystemExit it derives from."""


def _files(config: Config, paths: list[Path], force_exclude: bool) -> list[str]:
    """`--show-files`: what discovery gives, shown as findings show paths (from the working directory)."""
    from breaklint.infra.files import DEFAULT_EXCLUDE, discover, display_path

    exclude = (*(config.exclude or DEFAULT_EXCLUDE), *config.extend_exclude)
    files, _ = discover(paths, config.root, exclude, force_exclude)
    return [display_path(path, Path.cwd()) for path in files]


def _check_stdin(units: list[CheckUnit], name: Path, jobs: int, use_cache: bool, force_exclude: bool) -> CheckResult:
    """The text on stdin, checked as the file `name` (which need not exist) inside its project:
    decoded as Python decodes a file, and reported under that name."""
    from breaklint.check.units import check_units
    from breaklint.check.registry import RuleSet
    from breaklint.infra.files import ReadProblem, decode_source, display_path
    from .finding import Span

    text = decode_source(sys.stdin.buffer.read())
    if isinstance(text, ReadProblem):
        span = Span(text.line, text.col, text.line, text.col)
        shown = display_path(Path.cwd() / name if not name.is_absolute() else name, Path.cwd())
        return CheckResult([RuleSet(units[0].config).meta(text.code).make_finding(shown, span, text.message)], 1, 0.0)
    return check_units(units, jobs, use_cache, force_exclude, overlays={name: text})


def exit_code(result: CheckResult, exit_zero: bool, failing: frozenset[Severity] = FAILING["warning"]) -> int:
    """2 for an internal error; 1 for a finding of a failing severity (by default errors and
    warnings: `possible` notes, severity info, do not fail a run); else 0."""
    if any(f.code == INTERNAL_ERROR_CODE for f in result.findings):
        return EXIT_ERROR
    if not exit_zero and any(f.severity in failing for f in result.findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _fail(message: str) -> click.exceptions.Exit:
    from .report.printable import printable  # messages name paths: one line, writable

    click.echo(f"breaklint: error: {printable(message)}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


@cli.command("clean")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="The settings file whose folder holds the cache (default: found as for check).")
def clean_command(config_path: Path | None) -> None:
    """Remove the cache (.breaklint_cache/ beside the settings, else in the current folder)."""
    from breaklint.infra.cache import CACHE_DIR, clean

    try:
        config = _load(config_path, ())
    except ConfigError as error:
        raise _fail(str(error))
    directory = config.root / CACHE_DIR
    click.echo(f"removed {directory}" if clean(directory) else f"no cache at {directory}")


@cli.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Show a rule's documentation and examples (by code or name)."""
    rule = find_rule(code)
    if rule is None:
        raise _fail(f"unknown rule {code!r}; `breaklint rules` lists them")
    lines = [f"{rule.code} {rule.name} ({rule.stage.value})", "", rule.docs(), ""]
    if rule.gb_ids():
        lines.append("Dynamo ids: " + ", ".join(rule.gb_ids()))
    low, high = rule.torch_versions
    if low or high:
        lines.append(f"Torch versions: {low or 'any'} to {high or 'newest'}")
    for title, examples in (("Flagged", rule.bad), ("Not flagged", rule.good)):
        for example in examples:
            lines += ["", f"{title}:", "", *("    " + line for line in example.rstrip().splitlines())]
    click.echo("\n".join(lines).rstrip() + "\n")


@cli.command("rules")
def rules_command() -> None:
    """List every rule: stage, code, name, torch versions, status and Dynamo's ids."""
    click.echo(f"{'stage':<13} {'code':<6} {'name':<28} {'torch':<7} {'status':<8} dynamo ids")
    for rule in all_rules():
        status = ("runtime" if rule.code[3] == "9" else "meta") if rule.meta else rule.status
        ids = ",".join(rule.gb_ids())
        click.echo(f"{rule.stage.value:<13} {rule.code:<6} {rule.name:<28} {rule.versions():<7} {status:<8} {ids}".rstrip())


class _ConfirmCommand(click.Command):
    """`breaklint confirm [TARGETS] -- COMMAND ARGS...`: what follows `--` is the observed command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta["observe"] = args[cut + 1:]
            args = args[:cut]
        return super().parse_args(ctx, args)


@cli.command("confirm", cls=_ConfirmCommand)
@click.argument("targets", nargs=-1)
@click.option("--check", "check_paths", multiple=True, type=click.Path(path_type=Path),
              help="Paths to check statically for the join (default: the targets' folders, or . when observing).")
@click.option("--stages", default="eager,dynamo,aot_eager,inductor,cudagraphs", show_default=True,
              help="Comma-separated stages to run.")
@click.option("--timeout", default=600.0, show_default=True,
              help="Seconds per target (or for the observed command, per stage with --ladder).")
@click.option("--budget", type=float, default=None,
              help="Seconds for the whole run: no target (or --ladder stage) starts after them, each gets what is left.")
@click.option("--nproc", type=click.IntRange(min=1), default=None,
              help="Run each target as N processes with a process group, launched as torchrun does (gloo on CPU, NCCL with a GPU per rank).")
@click.option("--ladder", is_flag=True,
              help="With a command after `--`: run it once per stage, every torch.compile forced to that stage.")
@click.option("--repeat", default=20, show_default=True, help="Timed calls per stage (the median is reported).")
@click.option("--warmup", default=3, show_default=True, help="Untimed calls before timing.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--output-file", "-o", type=click.Path(path_type=Path),
              help="Write the report here instead of stdout (rewritten as each target finishes).")
@click.option("--plot", type=click.Path(path_type=Path), help="Draw the stage ladder to this PNG (needs matplotlib).")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False))
@click.pass_context
def confirm_command(
    ctx: click.Context, targets: tuple[str, ...], check_paths: tuple[Path, ...], stages: str, timeout: float,
    budget: float | None, nproc: int | None, ladder: bool, repeat: int, warmup: int, output_format: str, output_file: Path | None,
    plot: Path | None, config_path: Path | None,
) -> None:
    """Run TARGETS (FILE.py, FILE.py::provider, or a folder of example providers) through the real
    torch.compile pipeline, or observe a command: `breaklint confirm -- python train.py`
    (`--ladder`: once per stage)."""
    from .confirm.progress import Display
    from .confirm.session import (ConfirmReport, confirm_observed, confirm_program, confirm_targets,
                                  render_json, render_target, render_text)
    from .confirm.stages import STAGE_NAMES
    from .confirm.targets import TargetError, discover_targets

    observed: list[str] | None = ctx.meta.get("observe")
    wanted = [s.strip() for s in stages.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in STAGE_NAMES]
    if unknown:
        raise _fail(f"unknown stage(s) {', '.join(unknown)}; known: {', '.join(STAGE_NAMES)}")
    if not targets and not observed:
        raise _fail("give targets (FILE.py[::provider] or a folder) or a command after `--`")
    if ladder and not observed:
        raise _fail("--ladder runs a command: give it after `--` (`breaklint confirm --ladder -- python train.py`)")
    if nproc is not None and observed:
        raise _fail("--nproc runs example targets; launch a command with torchrun yourself: breaklint confirm -- torchrun ...")
    if budget is not None and budget <= 0:
        raise _fail("--budget must be a positive number of seconds")
    try:
        found = [t for spec in targets for t in discover_targets(spec)]
    except TargetError as error:
        raise _fail(str(error))
    if targets and not found:
        raise _fail("no example providers found (decorate one with @breaklint.example)")
    cwd = Path.cwd()
    roots = list(check_paths) or ([cwd] if observed else sorted({t.path.parent for t in found}))
    try:
        config = _load(config_path, tuple(roots))
        with paused_collector():
            static = Engine(config, RuleSet(config)).check(roots)
    except (ConfigError, ValueError) as error:
        raise _fail(str(error))

    def render(report: ConfirmReport) -> str:
        return render_json(report) if output_format == "json" else render_text(report)

    def write(report: ConfirmReport) -> None:
        """The report so far, replacing the file whole: a reader never sees half of it."""
        assert output_file is not None
        partial = output_file.with_name(output_file.name + ".partial")
        partial.write_text(render(report), encoding="utf-8")
        partial.replace(output_file)

    display = Display(sys.stderr, len(found))
    if observed and ladder:
        report = confirm_program(observed, static, cwd, wanted, timeout, budget, display.stage)
        display.clear()
    elif observed:
        report = confirm_observed(observed, static, cwd, timeout)
    else:
        streaming = output_file is None and output_format == "text"

        def done(partial: ConfirmReport) -> None:
            run = partial.runs[-1]
            display.finished(run, len(partial.runs) - 1)
            if streaming:  # each target's ladder as soon as it is measured
                click.echo(render_target(run))
            elif output_file is not None:
                write(partial)

        report = confirm_targets(found, static, wanted, [r.resolve() for r in roots], timeout, repeat, warmup,
                                 cwd, budget, display.target, done, nproc)
        if streaming:
            from .confirm.session import render_findings

            click.echo(render_findings(report), nl=False)
    if output_file is not None:
        write(report)
    elif observed or output_format == "json":
        click.echo(render(report), nl=False)
    if plot is not None:
        try:
            from .confirm.ladder import plot_ladders, plot_program_ladder

            if report.program:
                command = observed or []  # titled by the program's name and arguments, not the interpreter's path
                plot_program_ladder(report.program, shlex.join([Path(command[0]).name, *command[1:]]), plot)
            else:
                plot_ladders([(run.target.label, run.result) for run in report.runs], plot)
        except (ImportError, ValueError) as error:
            raise _fail(f"cannot plot: {error}")
    if report.failures:
        sys.exit(EXIT_ERROR)
    # Recompiles the probe provoked on purpose are information (severity info), not findings.
    runtime = [f for f in report.joined.runtime_only if f.severity is not Severity.INFO]
    sys.exit(EXIT_FINDINGS if report.count("confirmed") or runtime else EXIT_CLEAN)


@cli.command("lsp")
def lsp_command() -> None:
    """Run the language server on stdin/stdout (needs the `lsp` extra: pygls)."""
    try:
        from breaklint.lsp.server import serve  # pygls is optional and only ever imported here
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        raise _fail(f"`breaklint lsp` needs pygls ({error}); install it with: pip install 'breaklint[lsp]'") from None
    serve()


def run() -> None:
    """The command line in this process; a check raises CheckDone (a SystemExit)."""
    when_imported("libcst", trust_parsed_nodes)  # this process reads parsed trees only: trusted_nodes.py
    cli(prog_name="breaklint")


def main() -> None:
    """The process entry point (the console script, `python -m breaklint`). A check ends here
    without the interpreter's teardown, which frees what the run kept object by object: 0.58 s
    of a 6.2 s one-job check of timm, the part of the run after its report was written."""
    try:
        run()
    except CheckDone as done:
        code = done.code if isinstance(done.code, int) else 0
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: Python's own exit would fail to flush too
            code = code or EXIT_ERROR
        os._exit(code)
