"""Arithmetic expressions in variant files ("10 + bid", "deck // n", "max_hand if max_hand > 0 else 7").

Parsed once with Python's own parser and checked against a whitelist of node types, so a
variant file can hold a formula but never code. The same expression evaluates on numbers or
on numpy arrays (the score tables are built from whole grids at once).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from simulate.errors import BidlabInputError

_ALLOWED = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Name,
    ast.Load, ast.Constant, ast.Call,
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd, ast.Not,
    ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
)
_FUNCTIONS = {"min", "max", "abs"}


@lru_cache(maxsize=1024)
def compile_expression(text: str) -> tuple[Any, frozenset[str]]:
    """Return (code, names used). Raises BidlabInputError on anything but plain arithmetic."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise BidlabInputError(f"expression {text!r} does not parse: {exc.msg}") from None
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise BidlabInputError(
                f"expression {text!r}: {type(node).__name__} is not allowed; use numbers, names, "
                "+ - * // %, comparisons, and/or/not, 'a if cond else b', min/max/abs")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS or node.keywords:
                raise BidlabInputError(f"expression {text!r}: only min, max and abs may be called")
        elif isinstance(node, ast.Name) and node.id not in _FUNCTIONS:
            names.add(node.id)
        elif isinstance(node, ast.Constant) and not isinstance(node.value, (int, bool)):
            raise BidlabInputError(f"expression {text!r}: only whole numbers and true/false")
    return compile(tree, "<variant expression>", "eval"), frozenset(names)


def evaluate(text: str, variables: Mapping[str, Any], what: str = "expression") -> Any:
    """The value of a rules-file formula over `variables`; errors name it as `what`."""
    code, names = compile_expression(text)
    unknown = sorted(names - set(variables))
    if unknown:
        raise BidlabInputError(
            f"{what}: {text!r} uses unknown name(s) {', '.join(unknown)}; "
            f"known here: {', '.join(sorted(variables))}")
    env = {"min": min, "max": max, "abs": abs}
    return eval(code, {"__builtins__": {}}, {**env, **variables})  # noqa: S307 — whitelisted AST


def evaluate_grid(text: str, variables: Mapping[str, Any], what: str = "expression") -> np.ndarray:
    """Evaluate over numpy arrays (bid, took, h broadcast together); conditionals use np.where."""
    code, names = compile_expression(text)
    unknown = sorted(names - set(variables))
    if unknown:
        raise BidlabInputError(
            f"{what}: {text!r} uses unknown name(s) {', '.join(unknown)}; "
            f"known here: {', '.join(sorted(variables))}")
    tree = ast.parse(text, mode="eval")
    return np.asarray(_eval_array(tree.body, variables))


def _eval_array(node: ast.AST, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        v = _eval_array(node.operand, env)
        if isinstance(node.op, ast.USub):
            return -v
        return np.logical_not(v) if isinstance(node.op, ast.Not) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval_array(node.left, env), _eval_array(node.right, env)
        ops = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
               ast.FloorDiv: np.floor_divide, ast.Mod: np.mod}
        return ops[type(node.op)](a, b)
    if isinstance(node, ast.BoolOp):
        vals = [_eval_array(v, env) for v in node.values]
        fn = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        out = vals[0]
        for v in vals[1:]:
            out = fn(out, v)
        return out
    if isinstance(node, ast.Compare):
        left = _eval_array(node.left, env)
        out = True
        cmp = {ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
               ast.Gt: np.greater, ast.GtE: np.greater_equal}
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval_array(comp, env)
            out = np.logical_and(out, cmp[type(op)](left, right))
            left = right
        return out
    if isinstance(node, ast.IfExp):
        return np.where(_eval_array(node.test, env), _eval_array(node.body, env),
                        _eval_array(node.orelse, env))
    if isinstance(node, ast.Call):
        args = [_eval_array(a, env) for a in node.args]
        name = node.func.id  # type: ignore[attr-defined]
        if name == "abs":
            return np.abs(args[0])
        extreme = np.minimum if name == "min" else np.maximum
        out = args[0]
        for a in args[1:]:
            out = extreme(out, a)
        return out
    raise BidlabInputError(f"unsupported expression node {type(node).__name__}")
