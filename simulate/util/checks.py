"""Argument checks shared by the public API and the CLI: one clear message per bad value."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from simulate.errors import BidlabInputError


def positive_int(value: Any, what: str) -> int:
    """value as an int if it is a positive whole number (not a bool); else BidlabInputError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise BidlabInputError(f"{what} must be a positive whole number, got {value!r}")
    return int(value)


def check_seed(value: Any) -> int:
    """A seed: a whole number from 0 to 2**63-1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not 0 <= value < 2**63:
        raise BidlabInputError(f"seed must be a whole number from 0 to 2**63-1, got {value!r}")
    return int(value)


def worker_count(workers: int | None) -> int:
    """Threads or processes to use: the given positive count, or every core for None."""
    if workers is None:
        return max(1, os.cpu_count() or 1)
    return positive_int(workers, "workers")
