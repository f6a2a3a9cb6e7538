"""Index constants for the flat parameter vector `P` and the codes the kernel reads.

Globals are compile-time constants in numba, so naming every slot costs nothing at run time.
The codes are derived from `simulate.rules.codes` (their one home) as plain ints, which is
what numba folds into constants.
"""

from simulate.rules.codes import (  # noqa: F401  (MAX_EVENTS, NT: read as layout.X)
    MAX_EVENTS,
    NT,
    AllPass,
    BidConstraint,
    BiddingForm,
    DecisionKind,
    EventEffect,
    Mechanic,
    TrumpChooser,
)

# --- P slots (int64 vector) -------------------------------------------------------------
N_PLAYERS = 0
DECK_SIZE = 1
CHOOSER = 2             # CH_* below
FIXED_TRUMP = 3
FORM = 4                # FORM_* below
CONSTRAINT = 5          # CON_* below
FIRST_BIDDER = 6        # seat (0 = dealer's left)
FIRST_LEAD = 7          # seat, or -1 for the maker
TEAMS = 8
WIDOW = 9
DISCARD = 10
BREAKING_TRUMP = 11
ACE_CHOICE = 12
KIND = 13               # 0 bids, 1 contract
STARS = 14
FOOL_POINTS = 15
FOOL_NEEDS_EXACT = 16
HAS_ALL_EXACT = 17
ALONE_MULT = 18
ALL_PASS = 19           # AP_* below
ALL_PASS_CARD = 20      # deck index or -1
ALL_PASS_STEP = 21      # ladder step (1-based) forced on the joker holder
STICK_STEP = 22         # ladder step forced on the dealer
ALLOW_ALONE = 23
N_STEPS = 24            # ladder length
N_EVENTS = 25
EVENT0 = 26             # then (card, effect, points) triples for up to MAX_EVENTS events
N_TRUMP_CHOICES = EVENT0 + 3 * MAX_EVENTS        # 38
TRUMP_CHOICE0 = N_TRUMP_CHOICES + 1              # up to 5 trump choices
MAX_HAND = TRUMP_CHOICE0 + 5                     # 44
MAX_BID = MAX_HAND + 1                           # largest unit bid in score tables
OVERRIDE_SEAT = MAX_BID + 1     # training: this seat bids OVERRIDE_BID when legal (-1: nobody)
OVERRIDE_BID = OVERRIDE_SEAT + 1
OVERTRICKS_PAY = OVERRIDE_BID + 1   # contract makers still gain from tricks past the contract
DEFENDERS_PAY = OVERTRICKS_PAY + 1  # defenders gain from every trick they take
FACE_UP_LEFTOVERS = DEFENDERS_PAY + 1   # the undealt cards lie face up (seen by all)
LOWER_WINS = FACE_UP_LEFTOVERS + 1      # the lowest total wins (bidders minimise the score)
TRUMP_BLIND = LOWER_WINS + 1            # the dealer names trump before looking at the hand
AUCTION_SEAT = TRUMP_BLIND + 1          # training: this seat bids in the auction up to ...
AUCTION_LIMIT = AUCTION_SEAT + 1        # ... this ladder step (0: passes); -1: nobody
ALONE_FORCE = AUCTION_LIMIT + 1         # training: the maker goes alone (1) or not (0); -1: own choice
P_SIZE = ALONE_FORCE + 1

# --- codes --------------------------------------------------------------------------------
CH_FIXED = int(TrumpChooser.FIXED)
CH_DEALER = int(TrumpChooser.DEALER)
CH_FIRST_BIDDER = int(TrumpChooser.FIRST_BIDDER)
CH_MAKER = int(TrumpChooser.MAKER)
CH_TURN_UP = int(TrumpChooser.TURN_UP)
FORM_SIMULTANEOUS = int(BiddingForm.SIMULTANEOUS)
FORM_SEQUENTIAL = int(BiddingForm.SEQUENTIAL)
FORM_AUCTION = int(BiddingForm.AUCTION)
CON_NONE = int(BidConstraint.NONE)
CON_HOOK = int(BidConstraint.HOOK)
CON_MAX_BET = int(BidConstraint.MAX_BET)
AP_JOKER_HOLDER = int(AllPass.JOKER_HOLDER)
AP_REDEAL = int(AllPass.REDEAL)
AP_STICK_DEALER = int(AllPass.STICK_DEALER)
EV_ZERO_HAND = int(EventEffect.ZERO_HAND)
EV_LOSE_BONUS = int(EventEffect.LOSE_BONUS)
EV_ADD = int(EventEffect.ADD)
EV_AS_EXACT = int(EventEffect.AS_EXACT)

# mechanics
M_PLAIN = int(Mechanic.PLAIN)
M_ALWAYS = int(Mechanic.ALWAYS_WINS)
M_LAST = int(Mechanic.LAST_PLAYED_WINS)
M_NEVER = int(Mechanic.NEVER_WINS)
M_IF_LED = int(Mechanic.WINS_IF_LED)
M_FOOL = int(Mechanic.FOOLS_KING)

# decision kinds in traces
D_TRUMP = int(DecisionKind.TRUMP)
D_BID = int(DecisionKind.BID)
D_AUCTION = int(DecisionKind.AUCTION)
D_DISCARD = int(DecisionKind.DISCARD)
D_ALONE = int(DecisionKind.ALONE)
D_DEFEND_ALONE = int(DecisionKind.DEFEND_ALONE)
D_PLAY = int(DecisionKind.PLAY)

# the learned bidder (simulate.tables.bid_model): trumps above this share the strength x
# trumps column
MODEL_TRUMP_CAP = 6
# added to the weight of a model cell's constant bid (simulate.hands.train_model's cell
# check): above any prediction, so the cell bids it; the trump chooser compares trumps
# with it taken off, so a cell's constant bid changes the bid, never the trump named
CELL_BID = 10_000.0

# policies
PLAY_RANDOM, PLAY_GREEDY, PLAY_PRECISION = 0, 1, 2
BID_RANDOM, BID_GREEDY, BID_HEURISTIC, BID_TABLE = 0, 1, 2, 3

# an auction's trained table (RuleTables.bid_table, whose last axis, the sum of the bids
# heard, an auction does not have): the highest step a seat bids to, and whether a maker
# goes alone
AUCTION_LIMIT_AT, ALONE_AT = 0, 1
