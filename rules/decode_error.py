from breaklint.finding import Severity, Stage
from breaklint.rule import Rule


class DecodeError(Rule):
    """## What it does
    Reports a file whose bytes are not valid in its encoding (UTF-8, or the one its PEP 263
    `# -*- coding: ... -*-` line declares), at the first bad byte.

    ## Why is this bad?
    Python refuses to import it and breaklint cannot read it.

    ## How to fix
    Save the file as UTF-8, or declare its real encoding on the first or second line.

    ## When it is fine
    Never; exclude non-Python files.

    ## Dynamo says
    Nothing: the file never imports.
    """

    code = "BL002"
    name = "decode-error"
    stage = Stage.META
    severity = Severity.ERROR
    message = "{detail}"
    help = "save the file as UTF-8 or declare its encoding (PEP 263)"
    meta = True
    bad = ("# -*- coding: ascii -*-\nname = 'caf\\xe9'",)
    good = ("name = 'café'",)
