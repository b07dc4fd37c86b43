from breaklint.finding import Severity, Stage
from breaklint.rule import Rule


class InternalError(Rule):
    """## What it does
    Reports that breaklint itself failed on a file; the other files are still checked and the
    exit code is 2. `--verbose` prints the traceback.

    ## Why is this bad?
    The file's findings may be incomplete.

    ## How to fix
    Report it with the traceback from `--verbose`; meanwhile exclude the file if it blocks you.

    ## When it is fine
    Never.

    ## Dynamo says
    Nothing.
    """

    code = "BL005"
    name = "internal-error"
    stage = Stage.META
    severity = Severity.ERROR
    message = "{detail}"
    help = "report this with the output of --verbose"
    meta = True
