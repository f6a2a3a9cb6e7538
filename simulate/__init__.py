"""bidlab: Monte Carlo bidding analysis for precision-bidding trick-taking games."""

from .errors import BidlabInputError
from .variant import Variant, load_variant, shipped_variants


def simulate_hands(*args, **kwargs):  # type: ignore[no-untyped-def]
    """See simulate.run.simulate_hands (imported lazily: numba loads only when needed)."""
    from .run import simulate_hands as run

    return run(*args, **kwargs)


simulate_hands.__doc__ = "Deal and play hands with fixed policies; see simulate.run.simulate_hands."

__all__ = ["BidlabInputError", "Variant", "load_variant", "shipped_variants", "simulate_hands"]
__version__ = "0.1.0"
