"""User-defined SQL functions, inlined where they are called (Python and JavaScript ones become calls of their
UDF: engine/python_functions.py): which function a call means for
the statement's roles, and the calls replaced, nested calls too (the replacing trees:
sql/user_functions.py). The engine then plans the whole statement at once: the optimizer sees
through the call, and no row goes through Python.
https://docs.snowflake.com/en/developer-guide/udf/sql/udf-sql-introduction
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.catalog.grants import Securable
from embucket_py.catalog.routines import FUNCTION, Routine
from embucket_py.catalog.tables import Tables
from embucket_py.engine import access, python_functions
from embucket_py.errors import InvalidArgumentTypes, SqlCompilationError
from embucket_py.sql import user_functions as inline
from embucket_py.sql.context import SqlContext
from embucket_py.sql.nodes import Nodes

# A function whose body calls functions that call it again never ends: refused.
MAX_DEPTH = 16


class Functions:
    """The user functions a statement's roles may call, looked up once per name: those of a
    schema the roles see (a function runs with its owner's rights, checked when it was created)."""

    def __init__(self, tables: Tables, ctx: SqlContext) -> None:
        self.tables, self.ctx = tables, ctx
        self._roles: set[str] | None = None  # the statement's, once a call is looked up
        self._found: dict[tuple[str, str, str], list[Routine]] = {}

    def named(self, database: str, schema: str, name: str) -> list[Routine]:
        key = (database, schema, name)
        if key not in self._found:
            grants = self.tables.metastore.grants
            if self._roles is None:
                self._roles = access.context_roles(grants, self.ctx)
            usable = access.visible(grants, self._roles, Securable("SCHEMA", database, schema))
            self._found[key] = self.tables.routines.list(FUNCTION, *key) if usable else []
        return self._found[key]


def calls_any(functions: Functions, nodes: Nodes, database: str | None, schema: str | None) -> bool:
    """Whether the statement calls a user-defined function (only calls of functions sqlglot does
    not know are looked up: one metastore query per name)."""
    return any(_resolve(functions, call, database, schema)[1] for call in nodes.of(exp.Anonymous))


def expand(
    functions: Functions, tree: exp.Expression, database: str | None, schema: str | None, depth: int = 0
) -> None:
    """Replaces (in place) each call of a user-defined function in `tree`; names without a
    database or schema resolve in `database` / `schema`."""
    for call in list(tree.find_all(exp.Anonymous)):
        node, routine = _resolve(functions, call, database, schema)
        if routine is None:
            continue
        if depth >= MAX_DEPTH:
            raise SqlCompilationError(f"Function {routine.name} calls itself (or nests too deeply).")
        table_call = isinstance(node.parent, exp.TableFromRows)
        if routine.returns_table != table_call:
            use = "in FROM TABLE(...)" if routine.returns_table else "as a scalar expression"
            raise SqlCompilationError(f"Function {routine.name} can only be called {use}.")
        values = inline.arguments(routine, call)
        if routine.language in ("PYTHON", "JAVASCRIPT"):
            replacement = python_functions.call(routine, list(values.values()))
            expand(functions, replacement, database, schema, depth + 1)
            node.replace(replacement)
            continue
        if table_call:
            holder = node.parent
            table = inline.table(routine, values, holder.args.get("alias"))
            expand(functions, table.this, routine.database, routine.schema, depth + 1)
            holder.replace(table)
        else:
            replacement = inline.scalar(routine, values, node)
            expand(functions, replacement, routine.database, routine.schema, depth + 1)
            node.replace(replacement)


def _resolve(
    functions: Functions, call: exp.Anonymous, database: str | None, schema: str | None
) -> tuple[exp.Expression, Routine | None]:
    """The node the call stands as and the user function it calls (None: not a user function)."""
    node, key = inline.call_target(call, database, schema)
    if key is None:
        return node, None
    routines = functions.named(*key)
    given = len(call.expressions)
    fitting = next((r for r in routines if r.takes(given)), None)
    if routines and fitting is None:
        raise InvalidArgumentTypes(
            f"Invalid argument types for function '{key[2]}': {given} argument(s) given."
        )
    return node, fitting
