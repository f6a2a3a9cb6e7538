"""The numba kernel. Imported before any kernel module, this points numba's on-disk cache at
a folder named after a hash of the kernel's own source: numba checks only the file of the
function it caches, so a change in a module it inlines would otherwise reuse stale code."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

from simulate.util.paths import cache_dir


def _numba_cache_dir() -> str:
    here = Path(__file__).parent
    # the kernel's own modules and the constant modules it compiles in
    sources = [*here.glob("*.py"), *(here.parent / "tables").glob("layout.py"),
               *(here.parent / "rules").glob("codes.py")]
    digest = hashlib.sha256()
    for path in sorted(sources):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return str(cache_dir() / "numba" / digest.hexdigest()[:16])


if not os.environ.get("NUMBA_CACHE_DIR"):
    # numba's stubs omit the settings numba.config builds at import time
    numba.config.CACHE_DIR = _numba_cache_dir()  # type: ignore[attr-defined]
