"""The architecture, enforced: which package may import which, and no import cycle.

Each subpackage's ``__init__`` docstring says what it may import; this test holds the code to it by
reading every module's imports (``ast``, nothing is executed). Imports under ``if TYPE_CHECKING:`` are
annotations only and do not count; imports inside functions do count — a lazy import is still a
dependency, and hiding a cycle inside a function is what this test exists to stop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# package -> the packages it may import (besides itself). Lower layers first.
ALLOWED: dict[str, set[str]] = {
    # The hook client is standard library only (tests/test_engine.py checks its imports too); its
    # matcher (hooks.match) is what every layer uses to check a call against a lesson's signature.
    "hooks": set(),
    "base": set(),
    "lesson": {"base", "hooks"},
    "plugin": {"base"},
    "memory": {"base", "hooks", "lesson"},
    "brain": {"base"},
    "learning": {"base", "hooks", "lesson", "memory", "brain"},
    "recall": {"base", "hooks", "lesson", "memory", "brain", "learning"},
    "guidance": {"base", "hooks", "lesson", "plugin", "memory", "brain", "learning", "recall"},
    "engine": {"base", "hooks", "lesson", "plugin", "memory", "brain", "learning", "recall", "guidance"},
    "ops": {"base", "hooks", "lesson", "plugin", "memory", "brain", "learning", "recall", "guidance", "engine"},
    # Builtin plugins wire the packages into hooks and commands: they may use any of them.
    "builtins": {
        "base",
        "hooks",
        "lesson",
        "plugin",
        "memory",
        "brain",
        "learning",
        "recall",
        "guidance",
        "engine",
        "ops",
    },
    # Agent plugins translate payloads and settings; they see only the core vocabulary.
    "plugins": {"base", "plugin", "hooks"},
    # The package root re-exports ``hookimpl``; ``python -m twiceshy`` runs the CLI.
    "__init__": {"plugin"},
    "__main__": {"ops"},
}
PACKAGES = set(ALLOWED) - {"__init__", "__main__"}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    head = {"core": ["twiceshy"], "plugins": ["twiceshy", "plugins"], "hooks": ["twiceshy", "hooks"]}[rel.parts[0]]
    parts = [*head, *rel.parts[1:]]
    parts[-1] = parts[-1].removesuffix(".py")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for folder in ("core", "plugins", "hooks") for p in (ROOT / folder).rglob("*.py")}


def package_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def twiceshy_imports(path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int, bool]]:
    """(imported module, line, at module level) for every twiceshy import outside TYPE_CHECKING."""

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("twiceshy") and (target := resolve(alias.name)):
                        yield target, child.lineno, top
            elif isinstance(child, ast.ImportFrom) and child.module and child.module.startswith("twiceshy"):
                assert child.level == 0, f"{path}:{child.lineno}: relative import (use absolute imports)"
                for alias in child.names:
                    target = resolve(f"{child.module}.{alias.name}") or resolve(child.module)
                    if target:
                        yield target, child.lineno, top
            elif isinstance(child, ast.ImportFrom) and child.level:
                raise AssertionError(f"{path}:{child.lineno}: relative import (use absolute imports)")
            else:
                inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                yield from walk(child, inner)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), True)


def test_every_package_is_in_the_table() -> None:
    found = {package_of(m) for m in all_modules()}
    assert found <= set(ALLOWED), f"packages without layering rules: {sorted(found - set(ALLOWED))}"
    for pkg in PACKAGES - {"plugins", "hooks"}:
        init = ROOT / "core" / pkg / "__init__.py"
        if pkg in found:
            assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{init} needs a docstring"


def test_no_import_crosses_a_forbidden_edge() -> None:
    known = all_modules()
    bad = []
    for module, path in sorted(known.items()):
        source = package_of(module)
        for target, line, _ in twiceshy_imports(path, known):
            dest = package_of(target)
            # The package root (``__version__``, ``hookimpl``) sits on ``plugin``: allowed wherever that is.
            dest = "plugin" if target == "twiceshy" else dest
            if dest != source and dest not in ALLOWED[source]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {source} -> {dest} ({target})")
    assert not bad, "forbidden imports:\n" + "\n".join(bad)


def test_no_import_cycle_between_modules() -> None:
    """Tarjan over the module graph, function-level imports included."""
    known = all_modules()
    graph = {
        m: sorted({t for t, _, _ in twiceshy_imports(p, known) if t != m and t in known}) for m, p in known.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def strongconnect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strongconnect(w)
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
            # A package's __init__ importing its own submodules is not a cycle worth reporting.
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            strongconnect(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_checker_sees_a_forbidden_edge(tmp_path: Path) -> None:
    """The rule has teeth: a memory module importing the engine is reported."""
    known = dict(all_modules())
    fake = tmp_path / "bad.py"
    fake.write_text("def f():\n    from twiceshy.engine.server import submit\n", encoding="utf-8")
    found = list(twiceshy_imports(fake, known))
    assert found == [("twiceshy.engine.server", 2, False)]
    assert package_of(found[0][0]) not in ALLOWED["memory"]
