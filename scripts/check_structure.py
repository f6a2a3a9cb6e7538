"""Structure checks that ruff, mypy and import-linter do not make (`make lint` runs this).

- no import cycle between bidlab's modules, imports inside functions included (imports under
  `if TYPE_CHECKING:` are excluded: they never run);
- no import of another module's `_private` name (`from m import _x`, or `m._x` on an imported
  bidlab module); a package's own tests may;
- no function longer than MAX_LINES lines, kernel included;
- a docstring on every public module-level function and class, and on every public method
  of a public class.

Exit status 1 with one line per finding, 0 when clean.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOTS = ("simulate", "reports")
MAX_LINES = 120


def module_name(path: Path, base: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(base).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def _is_type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run (inside functions too, not under TYPE_CHECKING)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for other in node.orelse:
                yield from _imports(other)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


class Module:
    def __init__(self, name: str, path: Path, is_package: bool) -> None:
        self.name, self.path, self.is_package = name, path, is_package
        self.tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

    def resolve(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = self.name.split(".")
        if not self.is_package:
            base = base[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))


def load(base: Path) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for root in ROOTS:
        for path in sorted((base / root).rglob("*.py")):
            name, is_package = module_name(path, base)
            modules[name] = Module(name, path, is_package)
    return modules


def edges(modules: dict[str, Module]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, mod in modules.items():
        for node in _imports(mod.tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                target = mod.resolve(node)
                targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                           for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def private_imports(modules: dict[str, Module]) -> Iterator[str]:
    for name, mod in modules.items():
        aliases: dict[str, str] = {}
        for node in _imports(mod.tree):
            if isinstance(node, ast.ImportFrom):
                target = mod.resolve(node)
                if target.split(".")[0] not in ROOTS:
                    continue
                for a in node.names:
                    full = f"{target}.{a.name}"
                    if full in modules:
                        aliases[a.asname or a.name] = full
                    elif a.name.startswith("_") and not a.name.startswith("__") and target != name:
                        yield f"{mod.path}:{node.lineno}: imports private {target}.{a.name}"
            else:
                for a in node.names:
                    if a.name.split(".")[0] in ROOTS:
                        aliases[a.asname or a.name.split(".")[0]] = a.name
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id in aliases and node.attr.startswith("_") and \
                    not node.attr.startswith("__"):
                yield (f"{mod.path}:{node.lineno}: uses private "
                       f"{aliases[node.value.id]}.{node.attr}")


def long_functions(modules: dict[str, Module]) -> Iterator[str]:
    for mod in modules.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_LINES:
                    yield (f"{mod.path}:{node.lineno}: function {node.name} is {length} lines "
                           f"(at most {MAX_LINES})")


def missing_docstrings(modules: dict[str, Module]) -> Iterator[str]:
    def public(node: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
        return [c for c in ast.iter_child_nodes(node)
                if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and not c.name.startswith("_")]

    for mod in modules.values():
        for node in public(mod.tree):
            members = public(node) if isinstance(node, ast.ClassDef) else []
            for item in [node, *members]:
                if ast.get_docstring(item) is None:
                    yield f"{mod.path}:{item.lineno}: {item.name} has no docstring"


def main(argv: list[str]) -> int:
    base = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    modules = load(base)
    problems = [f"import cycle: {' <-> '.join(c)}" for c in cycles(edges(modules))]
    problems += list(private_imports(modules))
    problems += list(long_functions(modules))
    problems += list(missing_docstrings(modules))
    for line in problems:
        print(line)
    if problems:
        print(f"check_structure: {len(problems)} finding(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
