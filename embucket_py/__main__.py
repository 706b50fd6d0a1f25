"""`python -m embucket_py` runs the command line."""

from embucket_py.cli import main

main()
