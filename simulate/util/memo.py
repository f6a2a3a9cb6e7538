"""Explicit, thread-safe caches for values derived from an immutable input (a variant's
canonical string, say): what used to live in a mutable dict on the frozen Variant."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class KeyedCache(Generic[K, V]):
    """A bounded map key -> value, built at most once per key while it stays cached.

    get_or_build(key, build) returns the cached value or calls build() once under the lock
    (two threads asking for the same key never build it twice). The oldest key is dropped
    once `limit` keys are held.
    """

    def __init__(self, limit: int = 64) -> None:
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.RLock()
        self._limit = limit

    def get(self, key: K) -> V | None:
        """The cached value, or None."""
        with self._lock:
            return self._values.get(key)

    def put(self, key: K, value: V) -> V:
        """Store value under key (replacing any) and return it."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._limit:
                self._values.popitem(last=False)
            return value

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The cached value for key, built by build() the first time."""
        with self._lock:
            if key in self._values:
                return self._values[key]
            return self.put(key, build())

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._values

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._values.clear()
