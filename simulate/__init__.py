"""bidlab: Monte Carlo bidding analysis for precision-bidding trick-taking games."""

from simulate.errors import BidlabInputError
from simulate.rules.load import load_variant, shipped_variants
from simulate.rules.variant import Variant


def simulate_hands(*args, **kwargs):  # type: ignore[no-untyped-def]
    """See simulate.run.simulate_hands (imported lazily: numba loads only when needed)."""
    from simulate.hands.simulate import simulate_hands as run

    return run(*args, **kwargs)


simulate_hands.__doc__ = "Deal and play hands with fixed policies; see simulate.run.simulate_hands."


def bid_odds(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Every legal bid for a fixed hand on common deals; see simulate.odds.bid_odds."""
    from simulate.hands.odds import bid_odds as run

    return run(*args, **kwargs)


def simulate_games(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Whole games with balance metrics; see simulate.games.simulate_games."""
    from simulate.games.simulate import simulate_games as run

    return run(*args, **kwargs)


def compare_games(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Two configurations on the same deals, paired differences; see
    simulate.compare.compare_games."""
    from simulate.games.compare import compare_games as run

    return run(*args, **kwargs)


__all__ = ["BidlabInputError", "Variant", "load_variant", "shipped_variants", "simulate_hands",
           "bid_odds", "simulate_games", "compare_games"]
__version__ = "0.1.0"
