"""Which rules run: the catalog filtered by select / ignore / per-file-ignores and torch version."""

from __future__ import annotations

import fnmatch
from typing import Iterable, Sequence

from breaklint.config import Config, ConfigError
from breaklint.rule import Rule

ALWAYS_SHOWN = frozenset({"BL001", "BL002", "BL003", "BL005"})  # the run's own problems


def all_rules() -> tuple[type[Rule], ...]:
    """The static catalog (`rules/`, shipped as breaklint.rules) and the findings only `confirm`
    makes (breaklint/confirm/observed), sorted by code."""
    from breaklint.confirm.observed import OBSERVED_RULES
    from breaklint.rules import ALL_RULES

    return tuple(sorted((*ALL_RULES, *OBSERVED_RULES), key=lambda rule: rule.code))


def find_rule(code_or_name: str) -> type[Rule] | None:
    for rule in all_rules():
        if code_or_name.upper() == rule.code or code_or_name == rule.name:
            return rule
    return None


def _matches(rule: type[Rule], selector: str) -> bool:
    if selector.upper() == "ALL":
        return True
    return rule.code.startswith(selector.upper()) or rule.name == selector


def validate_selectors(selectors: Iterable[str], where: str) -> None:
    for selector in selectors:
        if not selector.strip():
            raise ConfigError(f"{where}: an empty rule selector (it would select every rule)")
        if not any(_matches(rule, selector) for rule in all_rules()):
            raise ConfigError(f"{where}: unknown rule code or name {selector!r}")


class RuleSet:
    def __init__(self, config: Config) -> None:
        source = str(config.source or "command line")
        validate_selectors(config.select, f"{source}: select")
        validate_selectors(config.extend_select, f"{source}: extend-select")
        validate_selectors(config.ignore, f"{source}: ignore")
        for glob, codes in config.per_file_ignores.items():
            validate_selectors(codes, f"{source}: per-file-ignores {glob!r}")
        self.config = config
        self.enabled: tuple[type[Rule], ...] = tuple(
            rule for rule in all_rules()
            if (rule.code in ALWAYS_SHOWN)
            or (
                any(_matches(rule, s) for s in (*config.select, *config.extend_select))
                and not any(_matches(rule, s) for s in config.ignore)
                and rule.applies_to(config.target_torch)
            )
        )

    def meta(self, code: str) -> type[Rule]:
        rule = find_rule(code)
        assert rule is not None and rule.meta, code
        return rule

    def _file_ignores(self, path: str) -> Sequence[str]:
        ignored: list[str] = []
        for glob, codes in self.config.per_file_ignores.items():
            if fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path, f"*/{glob}"):
                ignored.extend(codes)
        return ignored

    def for_file(self, path: str) -> tuple[type[Rule], ...]:
        ignored = self._file_ignores(path)
        if not ignored:  # the common case, asked for every file of the tree
            return self.enabled
        return tuple(
            rule for rule in self.enabled
            if rule.code in ALWAYS_SHOWN or not any(_matches(rule, s) for s in ignored)
        )

    def enabled_for(self, code: str, path: str) -> bool:
        return any(rule.code == code for rule in self.for_file(path))

    def selects_enabled(self, selector: str, path: str) -> bool:
        """Whether a suppression's selector names a rule that runs on this file."""
        return any(_matches(rule, selector) for rule in self.for_file(path))
