"""The kernel's one compile decorator, typed so mypy sees the decorated function unchanged.

numba's own hints reject the option combinations the kernel uses (`_nrt` is a private
flag), so every kernel function goes through `kernel_jit`, and every LLVM intrinsic through
`kernel_intrinsic`. The options are the same everywhere: cached on disk, no reference-
counting runtime (the kernel allocates nothing), numpy's error model (no division checks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
from numba.extending import intrinsic

F = TypeVar("F", bound=Callable[..., Any])


def kernel_jit(*, inline: bool = False, nogil: bool = False) -> Callable[[F], F]:
    """njit(cache=True, _nrt=False, error_model="numpy"), plus inline="always" (small
    helpers numba inlines into its callers' IR) or nogil=True (entry points Python threads
    call)."""
    options: dict[str, Any] = {"cache": True, "_nrt": False, "error_model": "numpy"}
    if inline:
        options["inline"] = "always"
    if nogil:
        options["nogil"] = True

    def decorate(fn: F) -> F:
        return cast(F, numba.njit(**options)(fn))

    return decorate


def kernel_intrinsic(fn: Callable[..., Any]) -> Callable[..., Any]:
    """numba.extending.intrinsic, typed as kernel code calls it: with the arguments only
    (numba supplies the typing context, the first parameter of `fn`)."""
    return cast(Callable[..., Any], intrinsic(fn))
