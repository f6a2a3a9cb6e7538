"""The integer codes shared by the rules, the reference engine, the rule tables and the kernel.

One home for each code: `simulate.tables.layout` derives its plain-int constants from these
(numba wants plain int globals), so the kernel and the Python side cannot drift apart. This
module imports nothing (no numpy, no numba), so the rules load without either; the kernel's
compile cache hashes this file, so changing a code recompiles the kernel.
"""

from __future__ import annotations

from enum import IntEnum

NT = 4               # trump index of no trump (after S H D C = 0..3)
MAX_EVENTS = 4       # capture events a variant may define (slots in the kernel's P vector)
TRUMP_BASE = 100     # trump powers sit above every plain power


class Mechanic(IntEnum):
    """How a card takes tricks, per trump (the variant's mechanic_table)."""

    PLAIN = 0             # follows the ranking of its effective suit
    ALWAYS_WINS = 1       # the first such card in a trick wins it
    LAST_PLAYED_WINS = 2  # the last such card in a trick wins it (above ALWAYS_WINS)
    NEVER_WINS = 3        # suitless, never takes a trick
    WINS_IF_LED = 4       # wins the trick when led, and frees everyone from following
    FOOLS_KING = 5        # takes the trick from a foolable card (a King) that would win it


class TrumpChooser(IntEnum):
    """Who names trump ([trump] chooser); member names are the file's values upper-cased."""

    FIXED = 0
    DEALER = 1
    FIRST_BIDDER = 2
    MAKER = 3
    TURN_UP = 4


class BiddingForm(IntEnum):
    """How bids are made ([bidding] form)."""

    SIMULTANEOUS = 0
    SEQUENTIAL = 1
    AUCTION = 2


class BidConstraint(IntEnum):
    """What limits sequential bids ([bidding] constraint)."""

    NONE = 0
    HOOK = 1
    MAX_BET = 2


class AllPass(IntEnum):
    """What happens when every player passes an auction ([bidding] all_pass)."""

    JOKER_HOLDER = 0
    REDEAL = 1
    STICK_DEALER = 2


class EventEffect(IntEnum):
    """What capturing an event card does to the capturing unit's score ([events.NAME] effect)."""

    ZERO_HAND = 0
    LOSE_BONUS = 1
    ADD = 2
    AS_EXACT = 3


class DecisionKind(IntEnum):
    """Decision kinds in kernel traces, in the order a hand asks for them (as the reference
    engine's decision names: trump, bid, auction, discard, alone, defend_alone, play)."""

    TRUMP = 0
    BID = 1
    AUCTION = 2
    DISCARD = 3
    ALONE = 4
    DEFEND_ALONE = 5
    PLAY = 6



# The mechanics by their bare names as plain ints (what the tables hold), for modules that
# compare codes in many places: derived from Mechanic, never set apart from it.
PLAIN = int(Mechanic.PLAIN)
ALWAYS_WINS = int(Mechanic.ALWAYS_WINS)
LAST_PLAYED_WINS = int(Mechanic.LAST_PLAYED_WINS)
NEVER_WINS = int(Mechanic.NEVER_WINS)
WINS_IF_LED = int(Mechanic.WINS_IF_LED)
FOOLS_KING = int(Mechanic.FOOLS_KING)
