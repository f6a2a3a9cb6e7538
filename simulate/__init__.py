"""bidlab: Monte Carlo bidding analysis for precision-bidding trick-taking games."""

from .errors import BidlabInputError
from .variant import Variant, load_variant, shipped_variants

__all__ = ["BidlabInputError", "Variant", "load_variant", "shipped_variants"]
__version__ = "0.1.0"
