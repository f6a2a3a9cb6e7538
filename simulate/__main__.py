"""`python -m simulate ...` is the same as `bidlab ...`."""

from .cli import main

main()
