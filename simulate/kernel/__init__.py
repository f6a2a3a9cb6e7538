"""The numba kernel. Imported before any kernel module, this points numba's on-disk cache at
a folder named after a hash of the kernel's own source: numba checks only the file of the
function it caches, so a change in a module it inlines would otherwise reuse stale code."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _cache_dir() -> str:
    here = Path(__file__).parent
    # the kernel's own modules and the constant modules it compiles in
    sources = [*here.glob("*.py"), *(here.parent / "tables").glob("layout.py"),
               *(here.parent / "rules").glob("codes.py")]
    digest = hashlib.sha256()
    for path in sorted(sources):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    base = os.environ.get("BIDLAB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "bidlab")
    return os.path.join(base, "numba", digest.hexdigest()[:16])


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = _cache_dir()
