"""Where bidlab keeps files of its own between runs."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The user's bidlab cache folder: $BIDLAB_CACHE_DIR, else $XDG_CACHE_HOME/bidlab, else
    ~/.cache/bidlab (compiled kernels and trained bid tables live below it)."""
    base = os.environ.get("BIDLAB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "bidlab")
    return Path(base)
