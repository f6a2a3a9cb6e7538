"""bidlab's version, from the installed package's metadata (pyproject.toml is the one source)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bidlab")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
