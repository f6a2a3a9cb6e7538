"""The one exception type for bad input: the CLI turns it into one line and exit status 2."""


class BidlabInputError(ValueError):
    """Bad input from a user: a variant file, an option, a card, a player count, ..."""
