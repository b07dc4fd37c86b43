"""The command line: `breaklint check`, `breaklint rule CODE`, `breaklint rules`.

Exit codes, the same for every command and the pre-commit hook: 0 clean, 1 findings,
2 usage, config or internal error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .config import Config, ConfigError, find_pyproject, load_config
from .engine import CheckResult, Engine
from .registry import RuleSet, all_rules, find_rule
from .versions import TorchVersion

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
@click.version_option(__version__, prog_name="breaklint")
def cli() -> None:
    """A linter for torch.compile: graph breaks and recompiles, found before anything runs."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="Rule codes, code prefixes or names to enable (comma-separated).")
@click.option("--ignore", multiple=True, help="Rule codes, code prefixes or names to disable.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--output-file", "-o", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--scope", type=click.Choice(["compiled", "all"]), default=None,
              help="compiled (default): only code torch.compile traces; all: every function.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="A pyproject.toml (or a TOML file holding the [tool.breaklint] keys at top level).")
@click.option("--target-torch", default=None, help="Judge for this torch version, e.g. 2.11.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too.")
@click.option("--statistics", is_flag=True, help="Print a count of findings per rule.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary.")
@click.option("--verbose", "-v", is_flag=True, help="Show call chains and internal-error tracebacks.")
def check(
    paths: tuple[Path, ...], select: tuple[str, ...], ignore: tuple[str, ...], output_format: str,
    output_file: Path | None, exit_zero: bool, scope: str | None, config_path: Path | None,
    target_torch: str | None, force_exclude: bool, statistics: bool, quiet: bool, verbose: bool,
) -> None:
    """Check PATHS (default: the current directory)."""
    from .report import RENDERERS
    from .report.text import render_statistics

    try:
        config = _load(config_path, paths)
        target = TorchVersion.parse(target_torch) if target_torch else None
        config = config.with_overrides(
            select=_split_codes(select), ignore=_split_codes(ignore), scope=scope, target_torch=target
        )
        rules = RuleSet(config)
    except (ConfigError, ValueError) as error:
        raise _fail(str(error))
    result = Engine(config, rules).check(list(paths) or [Path(".")], force_exclude=force_exclude)
    if statistics:
        rendered = render_statistics(result)
    else:
        rendered = RENDERERS[output_format](result, verbose)
        if quiet and output_format == "text":
            rendered = "".join(line + "\n" for line in rendered.splitlines()[:-1])
    if output_file is not None:
        try:
            output_file.write_text(rendered, encoding="utf-8")
        except OSError as error:
            raise _fail(f"cannot write {output_file}: {error.strerror or error}")
    else:
        click.echo(rendered, nl=False)
    sys.exit(exit_code(result, exit_zero))


def exit_code(result: CheckResult, exit_zero: bool) -> int:
    if any(f.code == INTERNAL_ERROR_CODE for f in result.findings):
        return EXIT_ERROR
    if result.findings and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _fail(message: str) -> click.exceptions.Exit:
    click.echo(f"breaklint: error: {message}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


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
    """List every rule."""
    for rule in all_rules():
        ids = ",".join(rule.gb_ids())
        click.echo(f"{rule.code}  {rule.name:<28} {rule.stage.value:<13} {ids}")


def main() -> None:
    cli(prog_name="breaklint")
