"""Index constants for the flat parameter vector `P` and the codes the kernel reads.

Globals are compile-time constants in numba, so naming every slot costs nothing at run time.
"""

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
MAX_EVENTS = 4
N_TRUMP_CHOICES = EVENT0 + 3 * MAX_EVENTS        # 38
TRUMP_CHOICE0 = N_TRUMP_CHOICES + 1              # up to 5 trump choices
MAX_HAND = TRUMP_CHOICE0 + 5                     # 44
MAX_BID = MAX_HAND + 1                           # largest unit bid in score tables
OVERRIDE_SEAT = MAX_BID + 1     # training: this seat bids OVERRIDE_BID when legal (-1: nobody)
OVERRIDE_BID = OVERRIDE_SEAT + 1
OVERTRICKS_PAY = OVERRIDE_BID + 1   # contract makers still gain from tricks past the contract
DEFENDERS_PAY = OVERTRICKS_PAY + 1  # defenders gain from every trick they take
P_SIZE = DEFENDERS_PAY + 1

# --- codes --------------------------------------------------------------------------------
CH_FIXED, CH_DEALER, CH_FIRST_BIDDER, CH_MAKER, CH_TURN_UP = range(5)
FORM_SIMULTANEOUS, FORM_SEQUENTIAL, FORM_AUCTION = range(3)
CON_NONE, CON_HOOK, CON_MAX_BET = range(3)
AP_JOKER_HOLDER, AP_REDEAL, AP_STICK_DEALER = range(3)
EV_ZERO_HAND, EV_LOSE_BONUS, EV_ADD, EV_AS_EXACT = range(4)

# mechanics (same values as simulate.variant)
M_PLAIN, M_ALWAYS, M_LAST, M_NEVER, M_IF_LED, M_FOOL = range(6)

# decision kinds in traces (same order as the reference engine's)
D_TRUMP, D_BID, D_AUCTION, D_DISCARD, D_ALONE, D_DEFEND_ALONE, D_PLAY = range(7)

# policies
PLAY_RANDOM, PLAY_GREEDY, PLAY_PRECISION = 0, 1, 2
BID_RANDOM, BID_GREEDY, BID_HEURISTIC, BID_TABLE = 0, 1, 2, 3
NT = 4
