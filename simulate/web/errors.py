"""Bad input on the web: one sentence and the field it belongs to, as a 4xx JSON answer.

Every refusal is {"error": sentence, "field": name or null}; the pages show the sentence
next to that field. The sentences are the ones the command line prints (BidlabInputError),
or, for a parameter of the wrong type, one built from FastAPI's validation error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi.responses import JSONResponse

# message prefix (lower case) -> the query field it is about, first match wins
FIELD_PREFIXES = (
    ("hand", "hand"), ("malformed card", "hand"), ("card", "hand"),
    ("bids before", "bids_before"), ("seat", "seat"), ("trump", "trump"),
    ("samples", "samples"), ("seed", "seed"), ("field", "field"), ("play", "play"),
    ("unknown bid policy", "field"), ("unknown play policy", "play"), ("games", "games"),
    ("sweep", "sweep"), ("policies", "policies"), ("variant file", "file"),
    ("uploaded file", "file"), ("game", "game"), ("unknown variant", "game"),
    ("compare", "set"), ("--set", "set"), ("vs", "vs"),
)


def field_of(message: str, names: Sequence[str] = (), policies: str | None = None) -> str | None:
    """The query field a BidlabInputError sentence is about (None: the query as a whole);
    `policies` names the field of a bad policy where one field holds PLAY+BID."""
    low = message.lower().lstrip()
    if policies is not None and "polic" in low[:40]:
        return policies
    if "unknown option" in low or "option " in low and " is not allowed" in low:
        return "set"
    if " players is not allowed" in low or "players:" in low[:12]:
        return "players"
    if "hand size" in low:
        return "hand"
    for prefix, name in FIELD_PREFIXES:
        if low.startswith(prefix):
            return name
    for name in names:
        if low.startswith(name.lower()):
            return "game"
    return None


def one_line(message: str) -> str:
    """A message on one line (as the CLI prints it)."""
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def refusal(message: str, status: int = 422, field: str | None = None,
            headers: Mapping[str, str] | None = None, policies: str | None = None
            ) -> JSONResponse:
    """The JSON answer of a refused query (field: where it belongs, None: guess it from the
    sentence; policies: see field_of)."""
    text = one_line(message) or "bad input"
    where = field if field is not None else field_of(text, policies=policies)
    return JSONResponse({"error": text, "field": where},
                        status_code=status, headers=dict(headers or {}))


def validation_sentence(errors: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    """FastAPI's list of validation errors as one sentence about the first, and its field."""
    if not errors:
        return "the request is malformed", None
    e = errors[0]
    loc = [str(x) for x in e.get("loc", ()) if x not in ("query", "body")]
    name = ".".join(loc) or "request"
    field = loc[0] if loc else None
    kind = str(e.get("type", ""))
    if kind == "missing":
        return f"{name}: missing; it is required", field
    if kind == "extra_forbidden":
        return f"{name}: not a known parameter; see /docs for the allowed ones", field
    if kind == "json_invalid":
        return "the request body is not valid JSON; send a JSON object", None
    msg = str(e.get("msg", "not allowed"))
    msg = msg[0].lower() + msg[1:] if msg else msg
    given = e.get("input")
    shown = f" {given!r}" if isinstance(given, (str, int, float)) else ""
    return f"{name}{shown} is not allowed: {msg}", field
