"""The ordered column names (Snowflake spelling) a FROM source or a query produces, where the SQL
layer can tell: stored tables through a lookup, CTEs, subqueries, VALUES, `*` with EXCLUDE/RENAME.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, projection_name, qualify, table_parts

# Snowflake names of a stored table's columns, by its qualified name; None when unknown.
ColumnLookup = Callable[[list[str]], "list[str] | None"]


class SourceColumns:
    """Resolves column names with a lookup for stored tables and the session's context."""

    def __init__(self, ctx: SqlContext | None, lookup: ColumnLookup | None) -> None:
        self.ctx = ctx
        self.lookup = lookup

    @staticmethod
    def ctes_around(node: exp.Expression) -> dict[str, exp.CTE]:
        """CTEs visible from a node, innermost first."""
        ctes: dict[str, exp.CTE] = {}
        current: exp.Expression | None = node
        while current is not None:
            with_ = current.args.get("with_") or current.args.get("with")
            if isinstance(with_, exp.With):
                for cte in with_.expressions:
                    ctes.setdefault(normalize(cte.args["alias"].this), cte)
            current = current.parent
        return ctes

    def of_source(self, source: exp.Expression, ignore_pivots: bool = False) -> list[str] | None:
        """Columns of one FROM item (table, CTE name, subquery, VALUES)."""
        alias = source.args.get("alias")
        if isinstance(alias, exp.TableAlias) and alias.columns:
            return [normalize(c) for c in alias.columns]
        if source.args.get("pivots") and not ignore_pivots:
            return None  # rewritten by the pivot transform before anyone asks
        if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
            name = normalize(source.this)
            ctes = self.ctes_around(source)
            if source.args.get("db") is None and name in ctes:
                cte = ctes[name]
                cte_alias = cte.args.get("alias")
                if isinstance(cte_alias, exp.TableAlias) and cte_alias.columns:
                    return [normalize(c) for c in cte_alias.columns]
                return self.of_query(cte.this)
            if self.lookup is None or self.ctx is None:
                return None
            try:
                return self.lookup(qualify(table_parts(source), self.ctx, "query"))
            except Exception:
                return None
        if isinstance(source, exp.Subquery | exp.Values):
            return self.of_query(source)
        return None

    def of_query(self, node: exp.Expression) -> list[str] | None:
        """Output columns of a query, in order."""
        while isinstance(node, exp.Subquery):
            node = node.this
        if isinstance(node, exp.SetOperation):
            return self.of_query(node.this)
        if isinstance(node, exp.Values):
            width = len(node.expressions[0].expressions) if node.expressions else 0
            return [f"COLUMN{i + 1}" for i in range(width)]
        if not isinstance(node, exp.Select):
            return None
        names: list[str] = []
        for item in node.expressions:
            if isinstance(item, exp.Star) or (
                isinstance(item, exp.Column) and isinstance(item.this, exp.Star)
            ):
                star = item if isinstance(item, exp.Star) else item.this
                expanded = self._star(node, item.table if isinstance(item, exp.Column) else None, star)
                if expanded is None:
                    return None
                names += expanded
            elif isinstance(item, exp.Alias):
                names.append(normalize(item.args["alias"]))
            else:
                names.append(projection_name(item, None) or "")
        return names

    def star_sources(
        self, select: exp.Select, table: str | None, star: exp.Star
    ) -> list[tuple[exp.Expression, list[str]]] | None:
        """The FROM items `[table.]*` reads, each with the columns it contributes (EXCLUDE
        applied); None when one's columns are unknown."""
        from_ = select.args.get("from_") or select.args.get("from")
        sources = [from_.this] if from_ is not None else []
        sources += [j.this for j in select.args.get("joins") or []]
        excluded = {
            normalize(c.this if isinstance(c, exp.Column) else c) for c in star.args.get("except_") or []
        }
        found = []
        for source in sources:
            if table and normalize(source.alias_or_name) != normalize(table):
                continue
            columns = self.of_source(source)
            if columns is None:
                return None
            found.append((source, [n for n in columns if n not in excluded]))
        return found

    def star_references(
        self, select: exp.Select, table: str | None, star: exp.Star
    ) -> list[tuple[str, exp.Column]] | None:
        """Each column `[table.]*` stands for (EXCLUDE applied) with a reference to it; None when
        a source's columns are unknown, or when several sources are read and one has no name."""
        sources = self.star_sources(select, table, star)
        if sources is None or (len(sources) > 1 and any(qualifier_of(s) is None for s, _ in sources)):
            return None
        return [(n, qualified(n, qualifier_of(s))) for s, columns in sources for n in columns]

    def _star(self, select: exp.Select, table: str | None, star: exp.Star) -> list[str] | None:
        sources = self.star_sources(select, table, star)
        if sources is None:
            return None
        renamed = renames(star)
        return [renamed.get(n, n) for _, columns in sources for n in columns]


def renames(star: exp.Star) -> dict[str, str]:
    """`* RENAME (a AS b, ...)`: old name -> new name."""
    return {
        normalize(a.this.this if isinstance(a.this, exp.Column) else a.this): normalize(a.args["alias"])
        for a in star.args.get("rename") or []
        if isinstance(a, exp.Alias)
    }


def qualifier_of(source: exp.Expression) -> exp.Identifier | None:
    """How a FROM item's columns are qualified: its alias, a table's own name, or not at all (a
    subquery without alias)."""
    alias = source.args.get("alias")
    if isinstance(alias, exp.TableAlias) and isinstance(alias.this, exp.Identifier):
        return alias.this
    return source.this if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier) else None


def qualified(name: str, qualifier: exp.Identifier | None) -> exp.Column:
    """A reference to the column of Snowflake name `name`, qualified when `qualifier` is given."""
    return exp.column(exp.to_identifier(name, quoted=True), qualifier.copy() if qualifier else None)
