"""`python -m breaklint` imports nothing from the folder it is run in.

`python -m` puts the working directory first on sys.path and then imports this package, before
its `__main__`: a `dataclasses.py`, `typing.py` or `click.py` in the checked tree would run at the
first import of that name. The package's `__init__` calls this first, so every later import
(the standard library's too) resolves past that folder. This module imports only what the
interpreter has loaded before any user code (`os`, `sys`), and has no `from __future__` import:
that statement imports a module named `__future__`, from the working directory too.
"""

import os
import sys


def run_by_dash_m() -> bool:
    """True while `python -m breaklint` imports the package: runpy keeps sys.argv[0] == "-m"
    until the module runs. Not when another `python -m` target imports breaklint on the way."""
    if sys.argv[:1] != ["-m"] or getattr(sys.flags, "safe_path", False):  # -P / -I: not on the path
        return False
    command = getattr(sys, "orig_argv", None)  # Python 3.10+
    for position, arg in enumerate(command or ()):
        if position and arg.startswith("-m"):
            target = arg[2:] or (command[position + 1] if position + 1 < len(command) else "")
            return target == "breaklint"
    return True  # the target is not known: assume the safe answer


def drop_working_directory() -> None:
    try:
        here = os.getcwd()
    except OSError:  # the folder was deleted under us: Python put "" or its old path first
        here = None
    if sys.path and sys.path[0] in ("", here):
        del sys.path[0]
