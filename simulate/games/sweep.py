"""A sweep's summary: every metric's paired difference B − A for each option value in one
table (the marks Holm-corrected over the whole sweep)."""

from __future__ import annotations

import pandas as pd

from simulate.util.format import fmt_signed


def format_sweep(sweep: pd.DataFrame, option: str) -> str:
    """One row per metric, one column per value of `option`: B − A with * where it is
    significant after Holm's correction over every difference of the sweep.

    sweep: the comparison frames of every value concatenated (holm_marks applied to the
    whole), with a `value` column."""
    values = list(dict.fromkeys(sweep["value"]))
    width = min(48, max(30, int(sweep.label.str.len().max()) + 2)) if len(sweep) else 44
    cells = {v: 12 for v in values}
    for v in values:
        cells[v] = max(12, len(str(v)) + 1)
    head = f"  {'B − A by ' + option:<{width}} " + " ".join(f"{str(v):>{cells[v]}}"
                                                              for v in values)
    lines = [head]
    for group, part in sweep.groupby("group", sort=False):
        lines.append(f"{group}")
        for (_metric, label), rows in part.groupby(["metric", "label"], sort=False):
            by_value = rows.set_index("value")
            out = []
            for v in values:
                if v not in by_value.index:
                    out.append(f"{'—':>{cells[v]}}")
                    continue
                r = by_value.loc[v]
                text = fmt_signed(r["diff"]) + ("*" if bool(r["significant"]) else " ")
                out.append(f"{text:>{cells[v]}}")
            lines.append(f"  {label:<{width}} " + " ".join(out))
    return "\n".join(lines)
