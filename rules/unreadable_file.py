from breaklint.finding import Severity, Stage
from breaklint.rule import Rule


class UnreadableFile(Rule):
    """## What it does
    Reports a path that was skipped: it cannot be read (permissions, a broken symlink, it vanished),
    it is binary (NUL bytes), it is too large, or it does not exist.

    ## Why is this bad?
    Whatever the file holds goes unchecked; the report says so instead of staying silent.

    ## How to fix
    Fix the path or its permissions, or exclude it.

    ## When it is fine
    Generated or vendored files: exclude them with `extend-exclude`.

    ## Dynamo says
    Nothing.
    """

    code = "BL003"
    name = "unreadable-file"
    stage = Stage.META
    severity = Severity.ERROR
    message = "{detail}"
    help = "fix the path or its permissions, or exclude it"
    meta = True
