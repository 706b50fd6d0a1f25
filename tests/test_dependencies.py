"""Every package the server imports is one `pip install .` installs (what `make run` does).

The test environment has the dev extras too, so a module imported only through them would pass
every other test and still fail `embucket-py serve` on a fresh machine (numpy and cryptography once
did). Imports at module level must come from the runtime dependencies; imports inside functions
(optional features) and the benchmark package may also use the extras.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "embucket_py"
# Folders that run only with an extra installed (`embucket-py bench` needs `.[bench]`, Spark jobs
# `.[spark]`; the server reaches them only from inside functions).
EXTRA_ONLY = ("bench", "spark")


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


def _declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _names(project["dependencies"])
    extras = set().union(*(_names(r) for r in project["optional-dependencies"].values()))
    return runtime, runtime | extras


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """Top-level module names imported at module level, and inside functions."""
    tree = ast.parse(path.read_text())
    module_level: set[str] = set()
    nested: set[str] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = [child.module]
            (nested if inside else module_level).update(n.split(".")[0] for n in names)
            visit(child, inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(tree, False)
    return module_level, nested


def _distributions(module: str, installed: bool) -> set[str]:
    """The distributions that provide `module`; for an extra that this environment lacks (CI
    installs no bench extra), the distribution named like the module."""
    found = {d.lower().replace("_", "-") for d in packages_distributions().get(module, [])}
    return found or (set() if installed else {module.lower().replace("_", "-")})


def test_imports_come_from_declared_dependencies() -> None:
    runtime, everything = _declared()
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module_level, nested = _imports(path)
        extra_only = path.relative_to(PACKAGE).parts[0] in EXTRA_ONLY
        for module, allowed in [(m, everything if extra_only else runtime) for m in module_level] + [
            (m, everything) for m in nested
        ]:
            if module in sys.stdlib_module_names or module in ("embucket_py", "__future__"):
                continue
            dists = _distributions(module, installed=allowed is runtime)
            if not dists & allowed:
                missing.append(f"{path.relative_to(ROOT)}: {module} ({', '.join(sorted(dists)) or '?'})")
    assert not missing, "imports not covered by pyproject.toml:\n" + "\n".join(missing)
