"""How bidlab prints numbers in text tables."""

from __future__ import annotations

import math
from typing import Any


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
