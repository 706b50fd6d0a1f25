"""Lateral column aliases: a SELECT item may refer to an alias defined earlier in the same SELECT
list, and WHERE, GROUP BY, HAVING and QUALIFY may refer to any SELECT alias. DataFusion knows
aliases only in ORDER BY, so each such reference is replaced by the aliased expression.

A name that is also a column of the FROM sources means the column (Snowflake resolves columns
before aliases), so the sources' column names are looked up where a reference is ambiguous.
https://docs.snowflake.com/en/sql-reference/constructs/where#usage-notes
https://docs.snowflake.com/en/sql-reference/constructs/group-by#usage-notes
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import SourceText, normalize, projection_name, qualify, table_parts

# Snowflake names of a stored table's columns, by its qualified name; None when unknown.
ColumnLookup = Callable[[list[str]], "list[str] | None"]

_CLAUSES = ("where", "group", "having", "qualify")


def _output_names(node: exp.Expression, ctes: dict[str, exp.Expression]) -> set[str] | None:
    """The column names a query (or table-like node) produces, or None when unknown (a `*`)."""
    while isinstance(node, exp.Subquery):
        node = node.this
    if isinstance(node, exp.SetOperation):
        return _output_names(node.this, ctes)
    if isinstance(node, exp.Values):
        width = len(node.expressions[0].expressions) if node.expressions else 0
        return {f"COLUMN{i + 1}" for i in range(width)}
    if not isinstance(node, exp.Select):
        return None
    names = set()
    for item in node.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
            return None
        names.add(item.alias_or_name if isinstance(item, exp.Alias) else projection_name(item, None) or "")
    return {normalize(n) if n == n.lower() else n for n in names}


class _Sources:
    """The column names visible in one SELECT's FROM clause, computed on first use."""

    def __init__(self, select: exp.Select, ctx: SqlContext | None, lookup: ColumnLookup | None) -> None:
        self.select = select
        self.ctx = ctx
        self.lookup = lookup
        self._names: set[str] | None = None
        self._known = False

    def _ctes(self) -> dict[str, exp.Expression]:
        ctes: dict[str, exp.Expression] = {}
        node: exp.Expression | None = self.select
        while node is not None:
            with_ = node.args.get("with_") or node.args.get("with")
            if isinstance(with_, exp.With):
                for cte in with_.expressions:
                    ctes.setdefault(normalize(cte.args["alias"].this), cte)
            node = node.parent
        return ctes

    def _of(self, source: exp.Expression, ctes: dict[str, exp.Expression]) -> set[str] | None:
        alias = source.args.get("alias")
        if isinstance(alias, exp.TableAlias) and alias.columns:
            return {normalize(c) for c in alias.columns}
        if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
            name = normalize(source.this)
            if source.args.get("db") is None and name in ctes:
                cte = ctes[name]
                cte_alias = cte.args.get("alias")
                if isinstance(cte_alias, exp.TableAlias) and cte_alias.columns:
                    return {normalize(c) for c in cte_alias.columns}
                return _output_names(cte.this, ctes)
            if self.lookup is None or self.ctx is None:
                return None
            try:
                columns = self.lookup(qualify(table_parts(source), self.ctx, "query"))
            except Exception:
                return None
            return set(columns) if columns is not None else None
        if isinstance(source, exp.Subquery | exp.Values):
            return _output_names(source, ctes)
        return None

    def names(self) -> set[str] | None:
        if self._known:
            return self._names
        self._known = True
        from_ = self.select.args.get("from_") or self.select.args.get("from")
        sources = [from_.this] if from_ is not None else []
        sources += [j.this for j in self.select.args.get("joins") or []]
        ctes = self._ctes()
        found: set[str] = set()
        for source in sources:
            names = self._of(source, ctes)
            if names is None:
                return None
            found |= names
        self._names = found
        return found


def _replace_refs(
    node: exp.Expression, aliases: dict[str, exp.Expression], sources: _Sources
) -> exp.Expression:
    """Replaces unqualified references to an alias (that are not source columns) in `node`,
    leaving nested subqueries (their own scopes) alone."""
    targets = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, exp.Column) and not current.table and isinstance(current.this, exp.Identifier):
            targets.append(current)
            continue
        stack.extend(c for c in current.iter_expressions() if not isinstance(c, exp.Query | exp.Subquery))
    for column in targets:
        name = normalize(column.this)
        if name not in aliases:
            continue
        known = sources.names()
        if known is not None and name in known:
            continue
        replacement = _bare(aliases[name])
        if column is node:
            return replacement
        column.replace(replacement)
    return node


def _bare(expression: exp.Expression) -> exp.Expression:
    """A copy without source positions (they would name result columns after the wrong text)
    and wrapped in parentheses where precedence could change."""
    copy = expression.copy()
    for n in copy.walk():
        n.meta.pop("start", None)
        n.meta.pop("end", None)
    if isinstance(copy, exp.Binary | exp.Not | exp.Neg):
        return exp.Paren(this=copy)
    return copy


def _expand(
    select: exp.Select, source: SourceText | None, ctx: SqlContext | None, lookup: ColumnLookup | None
) -> None:
    items = select.expressions
    alias_names = {normalize(i.args["alias"]) for i in items if isinstance(i, exp.Alias)}
    if not alias_names:
        return
    # Only worth the work when some unqualified name is one of the aliases.
    mentioned = {
        normalize(c.this)
        for c in select.find_all(exp.Column)
        if not c.table and isinstance(c.this, exp.Identifier)
    }
    if not mentioned & alias_names:
        return
    sources = _Sources(select, ctx, lookup)
    aliases: dict[str, exp.Expression] = {}
    new_items = []
    for item in items:
        if isinstance(item, exp.Alias):
            inner = item.this
            expanded = _replace_refs(inner, aliases, sources) if aliases else inner
            if expanded is not inner:
                item.set("this", expanded)
            aliases[normalize(item.args["alias"])] = item.this
            new_items.append(item)
            continue
        before = item.sql()
        named = projection_name(item, source)
        expanded = _replace_refs(item, aliases, sources) if aliases else item
        # The result column keeps the name of what the user wrote.
        if (expanded is not item or expanded.sql() != before) and named is not None:
            expanded = exp.alias_(expanded, exp.to_identifier(named, quoted=True))
        new_items.append(expanded)
    select.set("expressions", new_items)
    for key in _CLAUSES:
        clause = select.args.get(key)
        if clause is not None:
            _replace_refs(clause, aliases, sources)


def lateral_aliases(
    tree: exp.Expression,
    source: SourceText | None = None,
    ctx: SqlContext | None = None,
    lookup: ColumnLookup | None = None,
) -> exp.Expression:
    """Replaces references to SELECT aliases outside ORDER BY by the aliased expressions."""
    for select in list(tree.find_all(exp.Select)):
        _expand(select, source, ctx, lookup)
    return tree
