"""Result column names as Snowflake gives them: every top-level projection gets an alias."""

from __future__ import annotations

from sqlglot import exp

from embucket_py import naming
from embucket_py.sql.names import SourceText, projection_name


def first_select(tree: exp.Expression) -> exp.Select | None:
    node = tree
    while isinstance(node, exp.SetOperation):
        node = node.this
    while isinstance(node, exp.Subquery):
        node = node.this
    return node if isinstance(node, exp.Select) else None


# Marks the engine name of a repeated projection of an inner SELECT (`SELECT * FROM (SELECT a + 1,
# a + 1 FROM t)`): DataFusion needs distinct names, the client sees the name without the mark.
DUPLICATE_MARK = "\u2063"


def _is_star(node: exp.Expression) -> bool:
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star))


def inner_projections(tree: exp.Expression, source: SourceText | None, outer: exp.Select | None) -> None:
    """Aliases the projections of every SELECT but the outermost one with their Snowflake names,
    so outer queries see the same names and repeated expressions stay apart."""
    for select in list(tree.find_all(exp.Select)):
        if select is outer:
            continue
        used: set[str] = set()
        new = []
        for node in select.expressions:
            name = None if _is_star(node) else projection_name(node, source)
            if name is None:
                new.append(node)
                continue
            field = naming.stored(name)
            while field in used:
                field += DUPLICATE_MARK
            used.add(field)
            inner = node.this if isinstance(node, exp.Alias) else node
            new.append(exp.alias_(inner, exp.to_identifier(field, quoted=True)))
        select.set("expressions", new)


def projections(tree: exp.Expression, source: SourceText | None) -> list[tuple[str, str] | None]:
    """Aliases the projections of every SELECT; returns, per projection of the query's first
    SELECT, the pair (engine field name, Snowflake name), or None for a `*`."""
    select = first_select(tree)
    inner_projections(tree, source, select)
    if select is None:
        return []
    result: list[tuple[str, str] | None] = []
    used: set[str] = set()
    new = []
    # Beside a `*`, a named column (`SELECT *, a`) would repeat one of the star's names.
    has_star = any(_is_star(node) for node in select.expressions)
    for node in select.expressions:
        name = projection_name(node, source)
        if name is None:
            result.append(None)
            new.append(node)
            continue
        field = naming.stored(name)
        if has_star and isinstance(node, exp.Column):
            field += DUPLICATE_MARK
        while field in used:
            field += "_"
        used.add(field)
        result.append((field, name))
        inner = node.this if isinstance(node, exp.Alias) else node
        new.append(exp.alias_(inner, exp.to_identifier(field, quoted=True)))
    select.set("expressions", new)
    return result


def result_names(
    projected: list[tuple[str, str] | None], fields: list[str], exact: list[str | None] | None = None
) -> list[str]:
    """Snowflake names for the engine's result fields; `*` columns are named by the table (by
    `exact`, a field's own Snowflake name where the table kept one)."""
    names = []
    i = 0
    for k, f in enumerate(fields):
        while i < len(projected) and projected[i] is None and i + 1 < len(projected):
            nxt = projected[i + 1]
            if nxt is not None and nxt[0] == f:
                i += 1
            else:
                break
        entry = projected[i] if i < len(projected) else None
        if entry is not None and entry[0] == f:
            names.append(entry[1])
            i += 1
        elif exact is not None and exact[k] is not None:
            names.append(exact[k])
        else:
            names.append(naming.display(f.rstrip(DUPLICATE_MARK)))
    return names
