"""How bidlab prints numbers in text tables."""

from __future__ import annotations

import math
from typing import Any, SupportsInt


def fmt_num(x: Any) -> str:
    """Four decimals for small numbers, fewer for big ones; — for none (not a finite number)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "—"
    if not math.isfinite(x):
        return "—"
    a = abs(x)
    return f"{x:.1f}" if a >= 100 else f"{x:.2f}" if a >= 10 else f"{x:.4f}"


def fmt_signed(x: Any) -> str:
    """fmt_num with a sign: +0.0123, -0.0456."""
    s = fmt_num(x)
    return s if s.startswith("-") or s == "—" else "+" + s


def seat_label(seat: SupportsInt, players: int, dealer: str = "dealer") -> str:
    """A seat for an axis or legend: seat 0 is the dealer's left, players-1 the dealer.
    Whole games rotate the dealer, so their charts say dealer="first dealer"."""
    seat = int(seat)
    if seat == players - 1:
        return f"{seat} ({dealer})"
    if seat == 0:
        return f"0 ({dealer}'s left)"
    return str(seat)
