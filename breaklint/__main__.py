import os
import sys

# `python -m` puts the working directory first on sys.path: a `click.py` or `libcst.py` in the
# checked tree would then run on import. breaklint's own modules resolve through its package.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from breaklint.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
