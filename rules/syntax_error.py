from breaklint.finding import Severity, Stage
from breaklint.rule import Rule


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that libcst cannot parse, at the parser's location.

    ## Why is this bad?
    breaklint cannot see into the file, so findings in it are lost; Python will not import it either.

    ## How to fix
    Fix the syntax error. If the file is not Python (a template, a fixture), exclude it with
    `extend-exclude` in `[tool.breaklint]`.

    ## When it is fine
    Never silently: exclude the file instead.

    ## Dynamo says
    Nothing: Dynamo never sees code that does not import.
    """

    code = "BL001"
    name = "syntax-error"
    stage = Stage.META
    severity = Severity.ERROR
    message = "{detail}"
    help = "fix the syntax error, or exclude the file"
    meta = True
    bad = ("def f(:\n    pass",)
    good = ("def f():\n    pass",)
