from breaklint.finding import Severity, Stage
from breaklint.rule import Rule


class UnusedSuppression(Rule):
    """## What it does
    Reports a `# breaklint: ignore[...]`, `# breaklint: file-ignore[...]` or `# noqa: BLxxx`
    comment that silenced nothing.

    ## Why is this bad?
    A stale suppression hides the next real finding on that line and misleads readers.

    ## How to fix
    Delete the comment, or narrow it to the codes that still fire.

    ## When it is fine
    Never; selectors for rules that are not enabled are not judged.

    ## Dynamo says
    Nothing.
    """

    code = "BL004"
    name = "unused-suppression"
    stage = Stage.META
    severity = Severity.INFO
    message = "{detail}"
    help = "remove the suppression comment"
    meta = True
    bad = ("@torch.compile\ndef f(x):\n    return x + 1  # breaklint: ignore[BL101]",)
    good = ("@torch.compile\ndef f(x):\n    return x.item()  # breaklint: ignore[BL101] measured: fine",)
