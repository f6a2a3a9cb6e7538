"""Load a variant file, apply options, validate everything once, and return a frozen Variant.

Loading order: parse TOML → check the shape against `schema` → read the options (defaults,
then the caller's values) → apply the `[[when]]` patches whose conditions hold → resolve
expressions and "$option" references → build the deck, rankings and schedule
(`simulate.rules.assemble`) → check that the result is playable. Every failure is a
BidlabInputError naming the file, key and value.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulate.errors import BidlabInputError
from simulate.rules import schema
from simulate.rules.assemble import Identity, assemble_variant
from simulate.rules.expr import compile_expression
from simulate.rules.schema import input_error
from simulate.rules.variant import Variant

VARIANTS_DIR = Path(__file__).parent.parent / "variants"
SHIPPED = ("hoffer", "horseshoes", "hyjack", "hasenpfeffer", "kings_and_fools", "oh_hell")
RESERVED_OPTION_NAMES = ("n", "deck", "h", "bid", "took", "players", "mult")  # formula variables
FORMULA_NAMES = ("deck", "h", "bid", "took")    # what a scoring formula sees besides n, options


def shipped_variants() -> list[str]:
    """The names of the games shipped in simulate/variants, in display order."""
    return list(SHIPPED)


def load_variant(name_or_path: str | Path, players: int | None = None, **options: Any) -> Variant:
    """Load a shipped game by name or a variant file by path, for `players` and `options`.

    name_or_path: a shipped name (see shipped_variants()) or a path to a .toml file.
    players: the player count (default: the file's usual_players).
    options: the file's [options.NAME] values, typed (True, 3, "A") or as CLI strings ("on").
    Raises BidlabInputError naming the file, key and value when anything is wrong.
    """
    path, label = _locate(name_or_path)
    return variant_from_toml(_read_bytes(path, label), label, path, players, options)


def variant_from_toml(raw: bytes, label: str, path: str | Path, players: int | None = None,
                      options: Mapping[str, Any] | None = None) -> Variant:
    """Build a Variant from a rules file's bytes (a worker rebuilding a job, say).

    raw: the file's bytes; label: how errors name the file; path: where it came from (kept
    on the Variant); players and options as for load_variant.
    """
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BidlabInputError(f"{label}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise BidlabInputError(f"{label}: invalid TOML ({exc})") from None
    return _build(data, raw, label, Path(path), players, dict(options or {}))


def _locate(name_or_path: str | Path) -> tuple[Path, str]:
    text = str(name_or_path)
    if text in SHIPPED:
        return VARIANTS_DIR / f"{text}.toml", text
    path = Path(text)
    if path.suffix == ".toml" or path.exists():
        if not path.is_file():
            raise BidlabInputError(f"variant file {text!r} does not exist")
        return path, str(path)
    raise BidlabInputError(
        f"unknown variant {text!r}: use one of {', '.join(SHIPPED)} or a path to a .toml file")


def _read_bytes(path: Path, label: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BidlabInputError(f"{label}: cannot read ({exc.strerror})") from None


# ----- options ------------------------------------------------------------------------------

@dataclass(frozen=True)
class OptionSpec:
    """One [options.NAME] of a variant file: its type, default, help and allowed values."""

    name: str
    type: str
    default: Any
    help: str
    values: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None

    def allowed(self) -> str:
        """The allowed values, in words (for error messages and `bidlab rules`)."""
        if self.type == "bool":
            return "true or false"
        if self.type == "choice":
            return "one of " + ", ".join(self.values)
        return f"a whole number from {self.min} to {self.max}"

    def coerce(self, value: Any, where: str) -> Any:
        """A value from the API (typed) or the CLI (a string) → the option's type.

        where: how the error names the place (the file or the game). Raises BidlabInputError.
        """
        bad = input_error(where, f"option {self.name}={value!r} is not allowed; {self.allowed()}")
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "on", "off",
                                                             "yes", "no", "1", "0"):
                return value.lower() in ("true", "on", "yes", "1")
            raise bad
        if self.type == "int":
            if isinstance(value, bool):
                raise bad
            if isinstance(value, str):
                try:
                    value = int(value.strip())
                except ValueError:
                    raise bad from None
            if not isinstance(value, int) or self.min is None or self.max is None or \
                    not self.min <= value <= self.max:
                raise bad
            return value
        if not isinstance(value, str) or value not in self.values:
            if isinstance(value, str) and value.upper() in self.values:
                return value.upper()
            raise bad
        return value

    def show(self, value: Any) -> str:
        """A value as the canonical string writes it (booleans lower case)."""
        return str(value).lower() if isinstance(value, bool) else str(value)


def parse_option_assignments(items: Iterable[str]) -> dict[str, str]:
    """CLI `--set key=value` strings → a dict (values typed later by the variant's specs)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BidlabInputError(f"--set {item!r}: write option=value")
        out[key.strip()] = value.strip()
    return out


def _parse_option_specs(data: Mapping[str, Any], label: str) -> dict[str, OptionSpec]:
    if not isinstance(data, dict):
        raise input_error(label, f"options={data!r} must be a table of [options.NAME] tables")
    specs: dict[str, OptionSpec] = {}
    for name, spec in data.items():
        where = f"{label}: [options.{name}]"
        if not isinstance(spec, dict):
            raise input_error(where, "must be a table")
        unknown = set(spec) - schema.OPTION_KEYS
        if unknown:
            raise input_error(where, f"unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                                     f"{', '.join(sorted(schema.OPTION_KEYS))}")
        kind = spec.get("type")
        if kind not in ("bool", "int", "choice"):
            raise input_error(where, f"type={kind!r}; allowed: bool, int, choice")
        if name in RESERVED_OPTION_NAMES:
            raise input_error(where, f"option name {name!r} is reserved")
        values: tuple[str, ...] = ()
        if kind == "choice":
            raw_values = spec.get("values")
            if not isinstance(raw_values, list) or not raw_values or \
                    not all(isinstance(v, str) for v in raw_values):
                raise input_error(where, "a choice option needs values = [\"a\", \"b\", ...]")
            values = tuple(raw_values)
        lo, hi = spec.get("min"), spec.get("max")
        if kind == "int" and not (isinstance(lo, int) and isinstance(hi, int) and lo <= hi):
            raise input_error(where, "an int option needs whole numbers min <= max")
        opt = OptionSpec(name, kind, None, str(spec.get("help", "")), values, lo, hi)
        if "default" not in spec:
            raise input_error(where, "needs a default")
        specs[name] = OptionSpec(name, kind, opt.coerce(spec["default"], where), opt.help,
                                 values, lo, hi)
    return specs


def _condition_holds(cond: Mapping[str, Any], options: Mapping[str, Any], players: int,
                     where: str) -> bool:
    for key, want in cond.items():
        if key == "players":
            allowed = want if isinstance(want, list) else [want]
            if players not in allowed:
                return False
            continue
        if key not in options:
            raise input_error(where, f"condition on unknown option {key!r}")
        if options[key] != want:
            return False
    return True


def _set_path(rules: dict[str, Any], dotted: str, value: Any, where: str) -> None:
    parts = dotted.split(".")
    if parts[0] not in schema.TOP_LEVEL - {"options", "when"}:
        raise input_error(where, f"cannot set {dotted!r}: unknown section {parts[0]!r}")
    node = rules
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise input_error(where, f"cannot set {dotted!r}: {part!r} is not a table")
    node[parts[-1]] = copy.deepcopy(value)


# ----- the build ----------------------------------------------------------------------------

def _check_game(data: Mapping[str, Any], label: str) -> tuple[dict[str, Any], str, list[int], int]:
    """The [game] section: (the section, name, [min, max] players, usual players)."""
    unknown = set(data) - schema.TOP_LEVEL
    if unknown:
        raise input_error(label, f"unknown section(s) {', '.join(sorted(unknown))}; allowed: "
                                 f"{', '.join(sorted(schema.TOP_LEVEL))}")
    game = data.get("game")
    if not isinstance(game, dict):
        raise input_error(label, "missing [game] section")
    name = game.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise input_error(label, f"[game] name={name!r} must be an identifier like my_game")
    prange = game.get("players")
    if not (isinstance(prange, list) and len(prange) == 2 and all(isinstance(p, int) and
            not isinstance(p, bool) for p in prange) and 2 <= prange[0] <= prange[1] <= 16):
        raise input_error(label, f"[game] players={prange!r} must be [min, max] with "
                                 "2 <= min <= max <= 16")
    usual = game.get("usual_players", prange[0])
    if isinstance(usual, bool) or not isinstance(usual, int) or not prange[0] <= usual <= prange[1]:
        raise input_error(label, f"[game] usual_players={usual!r} must be a whole number from "
                                 f"{prange[0]} to {prange[1]}")
    classes = game.get("hand_classes", [])
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise input_error(label, f"[game] hand_classes={classes!r} must be a list of feature "
                                 "names")
    return game, name, prange, usual


def _patched_rules(data: Mapping[str, Any], label: str, name: str, opts: Mapping[str, Any],
                   players: int) -> dict[str, Any]:
    """The file's sections with the `[[when]]` patches whose conditions hold applied."""
    rules: dict[str, Any] = {k: copy.deepcopy(v) for k, v in data.items()
                             if k not in ("options", "when")}
    when = data.get("when", [])
    if not isinstance(when, list):
        raise input_error(label, "[[when]] must be an array of tables")
    for i, patch in enumerate(when):
        where = f"{label}: [[when]] #{i + 1}"
        if not isinstance(patch, dict) or set(patch) - {"if", "set", "error"} or "if" not in patch:
            raise input_error(where, "needs 'if' and 'set' or 'error' (and nothing else)")
        if not isinstance(patch["if"], dict):
            raise input_error(where, "'if' must be a table of option = value")
        # every patch, applied here or not: the formula check reads the others' 'set' too
        if not isinstance(patch.get("set", {}), dict):
            raise input_error(where, "'set' must be a table of \"section.key\" = value")
        if _condition_holds(patch["if"], opts, players, where):
            if "error" in patch:
                raise BidlabInputError(f"{name}: {patch['error']}")
            for dotted, value in (patch.get("set") or {}).items():
                _set_path(rules, dotted, value, where)
    return rules


def _canonical(name: str, raw: bytes, players: int, opts: Mapping[str, Any],
               specs: Mapping[str, OptionSpec]) -> str:
    """`name[@digest](players=n,opt=value,...)`: the digest marks a file other than the
    shipped one of that name, so two different rule sets never share a canonical string."""
    digest = ""
    if name not in SHIPPED or (VARIANTS_DIR / f"{name}.toml").read_bytes() != raw:
        digest = "@" + hashlib.sha256(raw).hexdigest()[:10]
    opt_text = ",".join(f"{k}={specs[k].show(v)}" for k, v in sorted(opts.items()))
    return f"{name}{digest}(players={players}" + (f",{opt_text}" if opt_text else "") + ")"


def _build(data: dict[str, Any], raw: bytes, label: str, path: Path, players: int | None,
           user_options: Mapping[str, Any]) -> Variant:
    game, name, prange, usual = _check_game(data, label)
    specs = _parse_option_specs(data.get("options", {}), label)
    opts = {k: s.default for k, s in specs.items()}
    for key, value in user_options.items():
        if key not in specs:
            allowed = ", ".join(sorted(specs)) or "none"
            raise BidlabInputError(f"{name}: unknown option {key!r}; options of {name}: {allowed}")
        opts[key] = specs[key].coerce(value, name)

    count: Any = usual if players is None else players
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count)
    if not isinstance(count, int) or isinstance(count, bool) or \
            not prange[0] <= count <= prange[1]:
        raise BidlabInputError(
            f"{name}: {count!r} players is not allowed; allowed: {prange[0]} to {prange[1]}")

    rules = _patched_rules(data, label, name, opts, count)
    who = Identity(
        name=name, title=str(game.get("title", name)), summary=str(game.get("summary", "")),
        source=str(game.get("source", "")), path=str(path), players=count,
        player_range=(prange[0], prange[1]), usual_players=int(usual), options=opts,
        option_specs=specs, canonical=_canonical(name, raw, count, opts, specs),
        hand_classes=tuple(game.get("hand_classes", ["trumps", "top3"])), toml_bytes=raw)
    v = assemble_variant(who, rules, label)
    _check_formulas(v, data, label)
    return v


def _check_formulas(v: Variant, data: Mapping[str, Any], label: str) -> None:
    """Every formula of the file (the `expr` keys, scoring), in force or in a [[when]]
    patch this configuration does not apply, uses only names it will see (n, deck, h, bid,
    took and the options): checked at load, so every command refuses a bad formula,
    `bidlab rules` included, naming the file and the key."""
    known = set(v.option_env) | set(FORMULA_NAMES)
    found: list[tuple[str, Any]] = []
    for section, keys in schema.SECTIONS.items():
        for key, (kind, _, _) in keys.items():
            if kind == "expr" and v.rules.get(section, {}).get(key) is not None:
                found.append((f"[{section}] {key}", v.rules[section][key]))
    for i, patch in enumerate(data.get("when", [])):
        for dotted, value in (patch.get("set") or {}).items():
            section, _, key = str(dotted).partition(".")
            if schema.SECTIONS.get(section, {}).get(key, ("",))[0] == "expr":
                found.append((f"[[when]] #{i + 1} {dotted}", value))
    for where, text in found:
        try:
            unknown = sorted(compile_expression(str(text))[1] - known)
        except BidlabInputError as exc:
            raise input_error(label, f"{where}: {exc}") from None
        if unknown:
            raise input_error(label, f"{where}: {str(text)!r} uses unknown name(s) "
                                     f"{', '.join(unknown)}; known here: "
                                     f"{', '.join(sorted(known))}")


# ----- options that change nothing ---------------------------------------------------------

_IDENTITY_FIELDS = {"options", "option_specs", "canonical", "toml_bytes"}


def _rules_fingerprint(v: Variant) -> tuple[Any, ...]:
    """Everything a Variant plays by, without what only names it (options, canonical)."""
    out = []
    for f in dataclasses.fields(v):
        if f.name == "cards":
            out.append(repr((v.cards.names, v.cards.cards)))
        elif f.name not in _IDENTITY_FIELDS:
            out.append(repr(getattr(v, f.name)))
    return tuple(out)


def inert_options(v: Variant) -> list[str]:
    """The options set away from their default that change nothing in this configuration
    (the rules come out identical with the default, and no scoring formula reads them),
    e.g. Hoffer's two_player_max with four players. Empty for a variant without its file."""
    if v.toml_bytes is None:
        return []
    names: set[str] = set()
    for keys_section, keys in schema.SECTIONS.items():
        for key, (kind, _, _) in keys.items():
            text = v.rules.get(keys_section, {}).get(key)
            if kind == "expr" and text is not None:
                names |= compile_expression(str(text))[1]
    mine = _rules_fingerprint(v)
    out = []
    for name, spec in v.option_specs.items():
        if v.options[name] == spec.default or name in names:
            continue
        others = {**v.options, name: spec.default}
        try:
            w = variant_from_toml(v.toml_bytes, v.name, v.path, v.players, others)
        except BidlabInputError:
            continue      # the default is not even allowed here: the value does something
        if _rules_fingerprint(w) == mine:
            out.append(f"{name}={spec.show(v.options[name])}")
    return out


def inert_note(v: Variant) -> str | None:
    """A warning line for inert_options, or None."""
    inert = inert_options(v)
    if not inert:
        return None
    return (f"warning: {', '.join(inert)} change{'s' if len(inert) == 1 else ''} nothing in "
            f"{v.name} with {v.players} players (the rules are the same as with the default)")
