"""What a worker needs to rebuild a job: the variant as it can be loaded again, fingerprints
of compiled tables, and a per-process cache of built jobs.

Dask workers are separate processes, possibly on other machines: they get a small picklable
description of the job, rebuild it there once per process and check that the compiled tables
hash to the same digest as the client's, so a worker with other rules, another bidlab
version or another trained bid table fails loudly instead of merging wrong numbers.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from simulate.errors import BidlabInputError
from simulate.rules.load import load_variant, variant_from_toml

if TYPE_CHECKING:
    from simulate.rules.variant import Variant


@dataclass(frozen=True)
class VariantSpec:
    """A variant as a worker (or a resumed run) can load it again."""

    name: str                               # shipped name, or the file's label
    players: int
    options: tuple[tuple[str, Any], ...]
    canonical: str
    toml: bytes | None = None               # the file itself when it is not a shipped game

    @classmethod
    def of(cls, v: Variant) -> VariantSpec:
        """The spec of a loaded variant (a rules file's bytes travel along; they must still
        hash to what was loaded)."""
        head = v.canonical.split("(", 1)[0]
        toml: bytes | None = None
        if "@" in head:            # not a shipped game: the rules travel with the spec
            toml = v.toml_bytes
            if toml is None:
                try:
                    toml = Path(v.path).read_bytes()
                except OSError as exc:
                    raise BidlabInputError(f"variant file {v.path}: cannot read it again "
                                           f"({exc.strerror})") from None
            if hashlib.sha256(toml).hexdigest()[:10] != head.split("@", 1)[1]:
                raise BidlabInputError(f"variant file {v.path} changed after it was loaded")
        shipped = toml is None
        return cls(v.name if shipped else v.path, v.players, tuple(sorted(v.options.items())),
                   v.canonical, toml)

    def load(self) -> Variant:
        """The variant again; BidlabInputError if it no longer loads as the same game."""
        if self.toml is None:
            v = load_variant(self.name, players=self.players, **dict(self.options))
        else:
            v = variant_from_toml(self.toml, self.name, self.name, self.players,
                                  dict(self.options))
        if v.canonical != self.canonical:
            raise BidlabInputError(f"variant {self.name}: loads as {v.canonical}, expected "
                                   f"{self.canonical}; the rules file or bidlab changed")
        return v


def digest_arrays(arrays: Iterable[np.ndarray]) -> str:
    """SHA-256 of arrays with their order, dtypes and shapes: a set of tables' fingerprint."""
    sha = hashlib.sha256()
    for k, a in enumerate(arrays):
        a = np.ascontiguousarray(a)
        sha.update(f"{k}:{a.dtype.str}:{a.shape};".encode())
        sha.update(a.tobytes())
    return sha.hexdigest()


def check_digest(v: Variant, got: str, want: str) -> None:
    """A worker that compiled other tables than the client must not merge its numbers."""
    if want and got != want:
        raise BidlabInputError(
            f"{v.canonical}: this process compiles different rule tables ({got[:12]}) than "
            f"the run expects ({want[:12]}); every machine needs the same bidlab "
            "version and trained bid tables")


class BuiltOnce:
    """One object per spec and process: building a job compiles tables (and may calibrate),
    so a worker does it once for all the chunks it runs. A spec is hashable and has build()."""

    def __init__(self, limit: int) -> None:
        self._built: dict[Any, Any] = {}
        self._lock = threading.Lock()
        self._limit = limit

    def get(self, spec: Any) -> Any:
        """The object spec.build() made in this process, building it the first time."""
        with self._lock:
            built = self._built.get(spec)
            if built is None:
                if len(self._built) >= self._limit:
                    self._built.clear()
                built = self._built[spec] = spec.build()
            return built
