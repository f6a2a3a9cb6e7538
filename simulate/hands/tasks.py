"""A run of hands as a portable task: what a thread, a dask worker or a run directory gets.

A JobSpec holds every input that changes the numbers (the variant as it can be loaded
again, hand size, hands, seed, policies, trump, fixed hands, round) plus how the run is
chunked and kept; a worker rebuilds the Job from it once per process and checks that the
compiled tables hash to the client's. On the client the Job already built rides along in
the ChunkTask (never pickled), so local threads rebuild nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulate.errors import BidlabInputError
from simulate.hands.chunks import (
    RecordArrays,
    Shapes,
    SummaryArrays,
    records_shapes,
    run_records_chunk,
    run_summary_chunk,
    summary_shapes,
)
from simulate.hands.job import Job, make_job
from simulate.runner.plan import ChunkPlan
from simulate.runner.rundir import MANIFEST, VARIANT_FILE
from simulate.runner.specs import BuiltOnce, VariantSpec, check_digest, digest_arrays


@dataclass(frozen=True)
class JobSpec:
    """Every input of a run that changes its numbers (plus how it is chunked and kept)."""

    variant: VariantSpec
    hand_size: int
    hands: int
    seed: int
    play: tuple[str, ...]
    bid: tuple[str, ...]
    trump: str | None
    fixed: tuple[tuple[int, str], ...]
    round_index: int | None
    chunk_size: int
    keep: str                               # "summary" or "records"
    card_stats: bool = False
    digest: str = ""                        # of the compiled tables, checked on every worker

    @classmethod
    def of(cls, job: Job, chunk_size: int, keep: str, card_stats: bool = False) -> JobSpec:
        """The spec of a built job, chunked and kept as given."""
        c = job.config
        return cls(VariantSpec.of(job.v), c.hand_size, c.hands, c.seed, tuple(c.play),
                   tuple(c.bid), c.trump,
                   tuple(sorted((int(s), " ".join(cards)) for s, cards in c.fixed.items())),
                   c.round_index, chunk_size, keep, card_stats, tables_digest(job))

    def build(self) -> Job:
        """The Job again, in this process; BidlabInputError if its tables differ."""
        v = self.variant.load()
        job = make_job(v, self.hand_size, self.hands, self.seed, list(self.play),
                       list(self.bid), self.trump, dict(self.fixed), self.round_index)
        check_digest(v, tables_digest(job), self.digest)
        return job

    @property
    def plan(self) -> ChunkPlan:
        """How the hands are cut into chunks."""
        return ChunkPlan(self.hands, self.chunk_size)

    @property
    def n_chunks(self) -> int:
        """How many chunks the run has."""
        return self.plan.n_chunks

    def chunk(self, i: int) -> tuple[int, int]:
        """(first hand, count) of chunk i."""
        return self.plan.chunk(i)

    def to_config(self) -> dict[str, Any]:
        """Everything that changes the numbers, as JSON values (a run manifest's body)."""
        var = self.variant
        return {
            "variant": var.canonical,
            "variant_source": {"name": var.name, "players": var.players,
                               "options": dict(var.options),
                               "file": VARIANT_FILE if var.toml is not None else None},
            "hand_size": self.hand_size, "hands": self.hands, "seed": self.seed,
            "play": list(self.play), "bid": list(self.bid), "trump": self.trump,
            "fixed": {str(s): cards for s, cards in self.fixed}, "round": self.round_index,
            "keep": self.keep, "card_stats": self.card_stats, "chunk_size": self.chunk_size,
            "chunks": self.n_chunks, "tables_digest": self.digest,
        }


def spec_from_manifest(manifest: dict[str, Any], folder: Path) -> JobSpec:
    """The JobSpec a run manifest describes (the tables digest is checked when it is built)."""
    try:
        src = manifest["variant_source"]
        toml = (folder / src["file"]).read_bytes() if src.get("file") else None
        var = VariantSpec(str(src["name"]), int(src["players"]),
                          tuple(sorted(dict(src["options"]).items())), str(manifest["variant"]),
                          toml)
        return JobSpec(var, int(manifest["hand_size"]), int(manifest["hands"]),
                       int(manifest["seed"]), tuple(manifest["play"]), tuple(manifest["bid"]),
                       manifest["trump"],
                       tuple(sorted((int(s), str(c)) for s, c in manifest["fixed"].items())),
                       manifest["round"], int(manifest["chunk_size"]), str(manifest["keep"]),
                       bool(manifest["card_stats"]), str(manifest["tables_digest"]))
    except (KeyError, TypeError, ValueError, AttributeError, OSError) as exc:
        raise BidlabInputError(f"{folder / MANIFEST}: not a complete bidlab run manifest "
                               f"({type(exc).__name__}: {exc})") from None


def tables_digest(job: Job) -> str:
    """SHA-256 of every table the kernel reads for this job's hand size."""
    t, h = job.tables, job.config.hand_size
    # other hand sizes of the card rates are filled lazily and never read by this job
    return digest_arrays(a[h] if a is t.card_rate else a for a in [t.P, *t.as_tuple()])


_JOBS = BuiltOnce(16)


def job_for(spec: JobSpec) -> Job:
    """The Job of a spec, built once per process."""
    job: Job = _JOBS.get(spec)
    return job


@dataclass(frozen=True)
class ChunkTask:
    """task(i) → the numpy arrays of chunk i; picklable (only the spec travels). A
    runner Task, and a RunTask a run directory can keep."""

    spec: JobSpec
    job: Job | None = field(default=None, compare=False, repr=False)

    @property
    def portable(self) -> bool:
        """A dask worker can rebuild it from what pickles."""
        return True

    def portable_copy(self) -> ChunkTask:
        """The task without the client's Job."""
        return ChunkTask(self.spec)

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec}                # never the Job: numba tables stay home

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "spec", state["spec"])
        object.__setattr__(self, "job", None)

    def get_job(self) -> Job:
        """The Job: the client's, or one rebuilt (once) in this process."""
        return self.job if self.job is not None else job_for(self.spec)

    @property
    def n_chunks(self) -> int:
        """How many chunks the run has."""
        return self.spec.n_chunks

    @property
    def variant_toml(self) -> bytes | None:
        """The rules file a run directory stores (None for a shipped game)."""
        return self.spec.variant.toml

    def run_config(self) -> dict[str, Any]:
        """The run's configuration as a run directory's manifest keeps it."""
        return self.spec.to_config()

    def expected_shapes(self, i: int) -> Shapes:
        """(shape, dtype) of each array chunk i holds."""
        job = self.get_job()
        if self.spec.keep == "records":
            return records_shapes(job, self.spec.chunk(i)[1])
        return summary_shapes(job)

    def __call__(self, i: int) -> SummaryArrays | RecordArrays:
        job = self.get_job()
        start, count = self.spec.chunk(i)
        if self.spec.keep == "records":
            return run_records_chunk(job, start, count)
        return run_summary_chunk(job, start, count, self.spec.card_stats)
