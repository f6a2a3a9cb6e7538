"""`python -m simulate ...` is the same as `bidlab ...`."""

from simulate.cli.main import main

main()
