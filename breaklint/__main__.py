# `python -m breaklint`: the package's __init__ has already taken the working directory off
# sys.path (safe_path.py), so nothing below imports from the checked tree.
from breaklint.cli import main

if __name__ == "__main__":
    main()
