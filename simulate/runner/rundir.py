"""Run directories: every finished chunk on disk, so a long run survives an interruption.

Layout of a run directory::

    manifest.json         the configuration (the task's own, e.g. canonical variant, policies,
                          seed, hands, chunk size; plus the format and bidlab versions) and its
                          hash
    variant.toml          the rules file, for a variant that is not a shipped game
    chunk-000000.npz ...  one file per finished chunk: its arrays, their SHA-256 and the
                          configuration hash

Every file is written atomically (temporary file, then rename), so a kill leaves whole files
or none. Chunks are saved as they finish, in any order; the result is always merged from the
files in chunk order, so a resumed run gives exactly what an uninterrupted one gives. A chunk
file that does not verify (unreadable, wrong arrays, bad checksum, another configuration) is
reported, deleted and computed again; it is never merged.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import signal
import sys
import threading
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from simulate.errors import BidlabInputError
from simulate.runner.backends import Backend, Task
from simulate.runner.specs import digest_arrays as arrays_checksum
from simulate.util.files import write_atomically
from simulate.util.version import __version__

FORMAT = "bidlab-run"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
VARIANT_FILE = "variant.toml"
CHUNK_RE = re.compile(r"^chunk-(\d{6,})\.npz$")


class RunInterrupted(Exception):
    """A signal stopped the run; every finished chunk is on disk."""

    def __init__(self, path: Path, kept: int, total: int, signum: int | None) -> None:
        super().__init__(f"interrupted: {kept} of {total} chunks kept; resume with "
                         f"bidlab simulate --resume {path}")
        self.path, self.kept, self.total, self.signum = path, kept, total, signum

    @property
    def exit_status(self) -> int:
        """The process exit status for the signal that stopped the run (128 + signal)."""
        return 128 + (self.signum or signal.SIGINT)


class ChunkError(Exception):
    """A chunk file that must not be merged (the message says why)."""


# ----- what a run directory needs from a task ------------------------------------------------

Shapes = tuple[tuple[tuple[int, ...], str], ...]


class RunTask(Task, Protocol):
    """A task whose chunks a run directory can keep: its configuration as JSON values
    (everything that changes the numbers), the (shape, dtype) of each array chunk i holds,
    and the rules file to store beside the manifest (None for a shipped game)."""

    @property
    def n_chunks(self) -> int:
        """How many chunks the run has."""
        ...

    @property
    def variant_toml(self) -> bytes | None:
        """The rules file to store beside the manifest, or None for a shipped game."""
        ...

    def run_config(self) -> dict[str, Any]:
        """Everything that changes the numbers, as JSON values."""
        ...

    def expected_shapes(self, i: int) -> Shapes:
        """(shape, dtype) of each array chunk i holds."""
        ...


def task_config(task: RunTask) -> dict[str, Any]:
    """The manifest's configuration: format and versions, then the task's own settings."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "bidlab_version": __version__,
            **task.run_config()}


def config_hash(config: dict[str, Any]) -> str:
    """SHA-256 of a configuration without its own hash and the CLI-only settings."""
    body = {k: v for k, v in config.items() if k not in ("config_hash", "cli")}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


# ----- chunk files ------------------------------------------------------------------------------

def chunk_name(i: int) -> str:
    """File name of chunk i."""
    return f"chunk-{i:06d}.npz"


# ----- signals ----------------------------------------------------------------------------------

class StopFlag:
    """Set by SIGINT/SIGTERM while a run directory is being filled; remembers which signal."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signum: int | None = None

    def set(self, signum: int) -> None:
        """Remember the signal and raise the flag."""
        self.signum = signum
        self.event.set()


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopFlag]:
    """While inside: the first SIGINT or SIGTERM asks the run to stop after the chunks in
    flight (nothing is submitted any more); a second SIGINT gives up at once."""
    flag = StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield flag                       # signal handlers can only live in the main thread
        return

    def handler(signum: int, frame: Any) -> None:
        if flag.event.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        flag.set(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def _filesystem(what: str) -> Iterator[None]:
    """An OSError while touching the run directory → one clear line, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise BidlabInputError(f"{what}: {exc.strerror or exc}") from None


def _stderr_line(message: str) -> None:
    print(f"bidlab: {message}", file=sys.stderr, flush=True)


# ----- the run directory ------------------------------------------------------------------------

class RunDir:
    """A folder that holds one run's manifest and finished chunks."""

    def __init__(self, path: str | os.PathLike[str], stop: StopFlag | None = None,
                 report: Callable[[str], None] = _stderr_line) -> None:
        if "\x00" in os.fspath(path) or not os.fspath(path).strip():
            raise BidlabInputError(f"run directory {os.fspath(path)!r}: not a usable folder name")
        self.path = Path(path)
        self.stop = stop
        self.report = report
        self.manifest: dict[str, Any] | None = None
        self.cli: dict[str, Any] = {}      # CLI-only settings kept for --resume (e.g. --out)

    # manifest
    def read_manifest(self) -> dict[str, Any]:
        """The stored manifest; a clear BidlabInputError if there is none or it is damaged."""
        if not self.path.is_dir():
            raise BidlabInputError(f"run directory {str(self.path)!r} does not exist")
        file = self.path / MANIFEST
        try:
            manifest = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BidlabInputError(f"{str(self.path)!r} is not a bidlab run directory (no "
                                   f"{MANIFEST})") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BidlabInputError(f"{file}: unreadable run manifest ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise BidlabInputError(f"{file}: not a bidlab run manifest")
        if manifest.get("format_version") != FORMAT_VERSION:
            raise BidlabInputError(f"{file}: run format {manifest.get('format_version')!r}; this "
                                   f"bidlab reads format {FORMAT_VERSION}")
        if manifest.get("config_hash") != config_hash(manifest):
            raise BidlabInputError(f"{file}: the manifest was edited or damaged (its hash does "
                                   "not match its contents)")
        return manifest

    def prepare(self, task: RunTask) -> None:
        """Start a new run here, or continue the same run; never take over another run."""
        with _filesystem(f"run directory {self.path}"):
            self._prepare(task)

    def _prepare(self, task: RunTask) -> None:
        config = task_config(task)
        config["config_hash"] = config_hash(config)
        if self.path.exists() and not self.path.is_dir():
            raise BidlabInputError(f"run directory {str(self.path)!r} is a file, not a folder")
        if (self.path / MANIFEST).exists():
            manifest = self.read_manifest()
            if manifest["config_hash"] != config["config_hash"]:
                differ = [k for k in config if k not in ("config_hash", "cli")
                          and manifest.get(k) != config[k]]
                if set(differ) <= {"bidlab_version", "tables_digest"}:
                    raise BidlabInputError(
                        f"run directory {str(self.path)!r} was made by another bidlab version "
                        f"or with other trained tables (differs in {', '.join(differ)}); its "
                        "chunks cannot be merged with this one's: start a new run directory")
                raise BidlabInputError(
                    f"run directory {str(self.path)!r} holds another run (differs in "
                    f"{', '.join(differ) or 'its configuration'}); continue it with "
                    f"bidlab simulate --resume {self.path}, or choose a new folder")
            self.manifest = manifest
            return
        if self.path.is_dir() and any(p for p in self.path.iterdir()
                                      if not p.name.endswith(".part")):
            raise BidlabInputError(f"run directory {str(self.path)!r} is not empty and holds no "
                                   f"bidlab run ({MANIFEST}); choose a new or empty folder")
        self.path.mkdir(parents=True, exist_ok=True)
        toml = task.variant_toml
        if toml is not None:
            write_atomically(self.path / VARIANT_FILE, lambda tmp: Path(tmp).write_bytes(toml))
        if self.cli:
            config["cli"] = self.cli
        text = json.dumps(config, indent=2, sort_keys=True) + "\n"
        write_atomically(self.path / MANIFEST, lambda tmp: Path(tmp).write_text(text, "utf-8"))
        self.manifest = config

    # chunks
    def save_chunk(self, i: int, arrays: tuple[np.ndarray, ...], chash: str) -> None:
        """Write chunk i's arrays with their checksum and the configuration hash."""
        payload = {f"a{k}": a for k, a in enumerate(arrays)}
        payload["checksum"] = np.array(arrays_checksum(arrays))
        payload["config_hash"] = np.array(chash)

        def write(tmp: str) -> None:
            with open(tmp, "wb") as fh:   # a file object: np.savez would add ".npz" to a name
                np.savez_compressed(fh, **payload)  # type: ignore[arg-type]
                fh.flush()
                os.fsync(fh.fileno())

        with _filesystem(f"run directory {self.path}: cannot write {chunk_name(i)}"):
            write_atomically(self.path / chunk_name(i), write)

    def load_chunk(self, task: RunTask, i: int, chash: str) -> tuple[np.ndarray, ...]:
        """The verified arrays of chunk i, or ChunkError saying what is wrong with the file."""
        file = self.path / chunk_name(i)
        try:
            data = file.read_bytes()
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                names = set(z.files)
                stored_config = str(z["config_hash"]) if "config_hash" in names else None
                stored_sum = str(z["checksum"]) if "checksum" in names else None
                count = sum(1 for n in names if re.fullmatch(r"a\d+", n))
                arrays = tuple(z[f"a{k}"] for k in range(count))
        except FileNotFoundError:
            raise ChunkError("missing") from None
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
            raise ChunkError(f"unreadable ({type(exc).__name__})") from None
        if stored_config != chash:
            raise ChunkError("belongs to another configuration")
        shapes = task.expected_shapes(i)
        if len(arrays) != len(shapes) or any(
                a.shape != tuple(shape) or a.dtype != np.dtype(dtype)
                for a, (shape, dtype) in zip(arrays, shapes, strict=False)):
            raise ChunkError("has the wrong arrays or shapes")
        if stored_sum != arrays_checksum(arrays):
            raise ChunkError("checksum mismatch")
        return arrays

    def _discard(self, name: str, why: str) -> None:
        self.report(f"{self.path / name}: {why}; deleted, it will be computed again")
        with contextlib.suppress(FileNotFoundError), \
                _filesystem(f"run directory {self.path}: cannot delete {name}"):
            (self.path / name).unlink()

    def verified_chunks(self, task: RunTask, chash: str) -> set[int]:
        """Indices of the chunk files that verify; every other chunk-like file is reported
        and removed (as are temporary files a kill left behind)."""
        good: set[int] = set()
        n = task.n_chunks
        with _filesystem(f"run directory {self.path}"):
            entries = sorted(self.path.iterdir())
        for entry in entries:
            if entry.name.startswith(".chunk-") and entry.name.endswith(".part"):
                with contextlib.suppress(FileNotFoundError):
                    entry.unlink()
                continue
            m = CHUNK_RE.match(entry.name)
            if not m:
                continue
            i = int(m.group(1))
            if i >= n or entry.name != chunk_name(i):
                self._discard(entry.name, f"is not a chunk of this run ({n} chunks)")
                continue
            try:
                self.load_chunk(task, i, chash)
            except ChunkError as exc:
                self._discard(entry.name, str(exc))
                continue
            good.add(i)
        return good

    def run(self, task: RunTask, backend: Backend, take: Callable[[int, Any], None],
            tick: Callable[[int], None] | None = None) -> None:
        """Compute the missing chunks (saving each as it finishes), then merge all of them
        from disk in chunk order through `take`. RunInterrupted if a signal stopped it."""
        if self.manifest is None:
            self.prepare(task)
        assert self.manifest is not None
        chash = self.manifest["config_hash"]
        n = task.n_chunks
        have = self.verified_chunks(task, chash)
        if have and tick:
            for i in sorted(have):
                tick(i)
        missing = [i for i in range(n) if i not in have]
        if have:
            self.report(f"{self.path}: {len(have)} of {n} chunks already done, "
                        f"{len(missing)} to compute")
        done = len(have)

        def save(i: int, arrays: tuple[np.ndarray, ...]) -> None:
            nonlocal done
            self.save_chunk(i, arrays, chash)
            done += 1
            if tick:
                tick(i)

        stop = self.stop.event if self.stop is not None else None
        if missing:
            backend.run(task, missing, save, ordered=False, stop=stop)
        if stop is not None and stop.is_set() and done < n:
            raise RunInterrupted(self.path, done, n, self.stop.signum if self.stop else None)
        for i in range(n):
            try:
                arrays = self.load_chunk(task, i, chash)
            except ChunkError as exc:    # changed on disk since it was checked: never merge it
                self._discard(chunk_name(i), str(exc))
                backend.run(task, [i], lambda j, a: self.save_chunk(j, a, chash))
                arrays = self.load_chunk(task, i, chash)
            take(i, arrays)
