"""What the recompile rules (BL211-BL214) share: each reports the guard model's predictions for
its code (analysis/guards.py, through the rule context) at the line that changes the value."""

from __future__ import annotations

from breaklint.finding import DYNAMO_SAYS, Confidence, Severity
from breaklint.rule import LIMIT, Prediction, Rule, count_phrase


def severity_of(prediction: Prediction) -> Severity:
    """One recompile, then cached or dynamic: info; one per value: warning; to the limit: error."""
    if prediction.recompiles == LIMIT:
        return Severity.ERROR
    return Severity.INFO if prediction.recompiles == 1 else Severity.WARNING


class PredictedRecompile(Rule):
    """A rule that reports the guard model's predictions with its own code."""

    file_scope = True  # the calls and writes that change guards live outside compiled regions

    def file_hooks(self) -> bool:
        facts = self.ctx.module.guard_facts
        return bool(facts.names or facts.imported_calls)  # imported: another module's compiled callables

    def end_file(self) -> None:
        for prediction in self.ctx.recompile_predictions(self.code):
            text = (f"compiled `{prediction.callee}`: {prediction.cause}, so it "
                    f"{count_phrase(prediction.recompiles, prediction.dynamic_after)}"
                    f"{DYNAMO_SAYS}\"Recompiling function ... triggered by the following guard failure(s): "
                    f"{prediction.guard}...\"")
            self.ctx.emit(self.make_finding(
                self.ctx.file.display, self.ctx.span_of(prediction.place), text, Confidence.LIKELY, None, None,
                target=self.ctx.target_torch, severity=severity_of(prediction), help=prediction.fix,
                recompiles=self.ctx.compiled_line(prediction.callee),
            ))
