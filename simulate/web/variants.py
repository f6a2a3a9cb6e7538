"""The games a web query may name: a shipped game, or a variant file uploaded to the server.

A web client never names a path on the server: `game` is a shipped name or the id an upload
was given (`upload:<digest>`). Uploads are size-limited and parsed by the same loader and
checks as the command line (simulate.rules.load), once at upload with the file's defaults and
again with every query's players and options; they are kept (in memory and under a private
temporary folder, at most MAX_UPLOADS, the oldest out first) while the server runs.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from simulate.errors import BidlabInputError
from simulate.hands.forced import earlier_seats
from simulate.rules.load import (
    load_variant,
    parse_option_assignments,
    shipped_variants,
    variant_from_toml,
)
from simulate.rules.variant import Variant

MAX_UPLOAD_BYTES = 64 * 1024
MAX_UPLOADS = 64
UPLOAD_PREFIX = "upload:"


class TooLarge(BidlabInputError):
    """An uploaded file over the size limit (answered with 413)."""


class Games:
    """Shipped games and uploaded variant files (see the module notes)."""

    def __init__(self, folder: Path | None = None, max_bytes: int = MAX_UPLOAD_BYTES) -> None:
        self._tmp = None if folder is not None else tempfile.TemporaryDirectory(
            prefix="bidlab-uploads-")
        self.folder = Path(folder if folder is not None else self._tmp.name)  # type: ignore[union-attr]
        self.max_bytes = max_bytes
        self._uploads: OrderedDict[str, tuple[bytes, str, Path]] = OrderedDict()
        self._lock = threading.Lock()

    def upload(self, raw: bytes, filename: str = "variant.toml") -> dict[str, Any]:
        """Check an uploaded variant file as the CLI would (at its default players and
        options) and keep it; returns its description with its id."""
        if len(raw) > self.max_bytes:
            raise TooLarge(f"variant file: {len(raw):,} bytes is too large; allowed: at most "
                           f"{self.max_bytes:,} bytes")
        if not raw.strip():
            raise BidlabInputError("variant file: the file is empty; upload a variant TOML "
                                   "file such as a copy of simulate/variants/hoffer.toml")
        name = Path(filename or "variant.toml").name[:80] or "variant.toml"
        digest = hashlib.sha256(raw).hexdigest()[:12]
        ident = f"{UPLOAD_PREFIX}{digest}"
        path = self.folder / f"{digest}.toml"
        v = variant_from_toml(raw, f"uploaded file {name!r}", path)
        with self._lock:
            if ident not in self._uploads:
                path.write_bytes(raw)
            self._uploads[ident] = (raw, name, path)
            self._uploads.move_to_end(ident)
            while len(self._uploads) > MAX_UPLOADS:
                _, (_, _, old) = self._uploads.popitem(last=False)
                old.unlink(missing_ok=True)
        return describe(v, ident, name)

    def names(self) -> list[str]:
        """Shipped game names, then the ids of the uploads kept."""
        with self._lock:
            return shipped_variants() + list(self._uploads)

    def load(self, game: str, players: int | None = None, sets: Iterable[str] = (),
             what: str = "game") -> Variant:
        """The variant a query names, with its players and `option=value` settings; one
        BidlabInputError sentence when anything is wrong (`what` names the field)."""
        options = parse_option_assignments(sets)
        game = (game or "").strip()
        if game in shipped_variants():
            return load_variant(game, players=players, **options)
        with self._lock:
            kept = self._uploads.get(game)
        if kept is None:
            shown = "an uploaded file that is no longer kept (upload it again)" \
                if game.startswith(UPLOAD_PREFIX) else f"{game!r}"
            raise BidlabInputError(f"{what}: unknown game {shown}; allowed: "
                                   f"{', '.join(shipped_variants())} or an uploaded file's id")
        raw, name, path = kept
        return variant_from_toml(raw, f"uploaded file {name!r}", path, players, options)

    def close(self) -> None:
        """Remove the uploads' folder (when the server made it)."""
        if self._tmp is not None:
            self._tmp.cleanup()


def describe(v: Variant, ident: str | None = None, filename: str | None = None) -> dict[str, Any]:
    """What the pages need to know of a configuration: deck, seats, trump, options."""
    deck = [{"name": name, "special": card.special or None,
             "suit": None if card.special else "SHDC"[card.suit],
             "rank": None if card.special else card.rank}
            for name, card in zip(v.cards.names, v.cards.cards, strict=True)]
    widow = int(v.rule("deal.widow", 0) or 0)
    return {
        "game": ident or v.name, "name": v.name, "title": v.title, "summary": v.summary,
        "file": filename, "canonical": v.canonical, "players": v.players,
        "player_range": list(v.player_range), "usual_players": v.usual_players,
        "deck": deck, "schedule": list(v.schedule),
        "max_hand": (len(v.cards) - widow) // v.players,
        "trump_chooser": v.trump_chooser, "trump_choices": list(v.trump_choices),
        "bidding": v.bidding_form, "teams": v.teams,
        "better": str(v.rule("end.better", "higher")),
        "earlier": {str(s): list(earlier_seats(v, s)) for s in range(v.players)},
        "options": [{"name": s.name, "type": s.type, "default": s.show(s.default),
                     "value": s.show(v.options.get(s.name, s.default)), "help": s.help,
                     "values": list(s.values) if s.type == "choice" else
                     (["true", "false"] if s.type == "bool" else []),
                     "min": s.min, "max": s.max}
                    for s in v.option_specs.values()],
    }
