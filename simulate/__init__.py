"""bidlab: Monte Carlo bidding analysis for precision-bidding trick-taking games.

The public API loads lazily (module-level __getattr__), so `import simulate` stays light:
numba and pandas load only when a name that needs them is first used. Type checkers and
IDEs see the real signatures through the TYPE_CHECKING imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from simulate.errors import BidlabInputError
from simulate.util.version import __version__ as __version__

if TYPE_CHECKING:
    from simulate.games.compare import compare_games
    from simulate.games.simulate import simulate_games
    from simulate.hands.odds import bid_odds
    from simulate.hands.simulate import simulate_hands
    from simulate.rules.load import load_variant, shipped_variants
    from simulate.rules.variant import Variant

# public name -> module that defines it
_HOMES = {
    "Variant": "simulate.rules.variant",
    "load_variant": "simulate.rules.load",
    "shipped_variants": "simulate.rules.load",
    "simulate_hands": "simulate.hands.simulate",
    "bid_odds": "simulate.hands.odds",
    "simulate_games": "simulate.games.simulate",
    "compare_games": "simulate.games.compare",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'simulate' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value          # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = ["BidlabInputError", "Variant", "load_variant", "shipped_variants", "simulate_hands",
           "bid_odds", "simulate_games", "compare_games"]
