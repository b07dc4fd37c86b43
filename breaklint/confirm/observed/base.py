"""What every observed (runtime-only) finding shares."""

from __future__ import annotations

from breaklint.finding import Severity
from breaklint.rule import Rule

SECTIONS = """
    ## When it is fine
    When the event is expected and measured to be cheap; otherwise it is a gap in the static
    rules worth reporting.

    ## Dynamo says
    The message is quoted from the compiler's own log, with its GB id where torch has one.
"""


class _Observed(Rule):
    meta = True  # emitted by confirm, never by visiting code
    severity = Severity.WARNING
    message = "{detail}"
    help = "see the quoted compiler message; `breaklint rule <code>` for what the stage does"


class Observed(Rule):
    """Base of the rules `confirm` emits from runtime events; they never visit code."""

    meta = True
    severity = Severity.WARNING
    message = "{detail}"
    help = "see the quoted compiler message; `breaklint rule <code>` for what the stage does"
