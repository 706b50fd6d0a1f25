"""SHOW, DESCRIBE, SET and UNSET trees -> plain descriptions, so the engine never walks them.

sqlglot parses most SHOW forms into `exp.Show`; SHOW PARAMETERS, SHOW VARIABLES and the SHOWs of
kinds this server has no objects of fall back to `exp.Command`, and UNSET is not a statement to it
at all (it reads `UNSET x` as a column alias), so those are read back from tokens here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from sqlglot import exp
from sqlglot.tokens import Tokenizer, TokenType

from embucket_py.errors import SqlCompilationError, SyntaxError_, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts
from embucket_py.sql.parse import parse
from embucket_py.sql.scripting import command_parts

# What each SHOW lists; the commands' own pages define the output columns.
# https://docs.snowflake.com/en/sql-reference/sql/show
SHOW_KINDS = (
    "DATABASES",
    "SCHEMAS",
    "TABLES",
    "COLUMNS",
    "OBJECTS",
    "VIEWS",
    "PARAMETERS",
    "VARIABLES",
    "PROCEDURES",
    "FUNCTIONS",
    "SEQUENCES",
    "WAREHOUSES",
)
# Declared constraints: https://docs.snowflake.com/en/sql-reference/sql/show-primary-keys
KEY_KINDS = ("PRIMARY KEYS", "UNIQUE KEYS", "IMPORTED KEYS")
# Kinds of objects this server has none of: SHOW answers with their columns and no rows
# (engine/metadata_columns.py EMPTY_KINDS). Those in schemas take IN as SHOW TABLES does; account
# objects take LIKE only (SHOW LOCKS: IN ACCOUNT).
EMPTY_SCHEMA_KINDS = (
    "MATERIALIZED VIEWS",
    "PIPES",
    "EXTERNAL TABLES",
    "ALERTS",
    "EVENT TABLES",
    "HYBRID TABLES",
)
EMPTY_ACCOUNT_KINDS = (
    "INTEGRATIONS",
    "API INTEGRATIONS",
    "EXTERNAL ACCESS INTEGRATIONS",
    "NOTIFICATION INTEGRATIONS",
    "SECURITY INTEGRATIONS",
    "STORAGE INTEGRATIONS",
    "NETWORK POLICIES",
    "SHARES",
    "LOCKS",
)
_EMPTY_KIND = re.compile(
    r"^(?P<terse>TERSE\s+)?(?P<kind>"
    + "|".join(k.replace(" ", r"\s+") for k in (*EMPTY_SCHEMA_KINDS, *EMPTY_ACCOUNT_KINDS))
    + r")\b(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)

_STRING_TOKENS = (TokenType.STRING, TokenType.RAW_STRING)


@dataclass(frozen=True)
class ShowDef:
    """SHOW [TERSE] <kind> [LIKE] [IN ...] [STARTS WITH] [LIMIT n [FROM]], scope resolved.

    `scope` is ACCOUNT, DATABASE, SCHEMA, TABLE or SESSION; `database`, `schema` and `table`
    name the object the scope refers to (None where the scope is wider).
    """

    kind: str
    terse: bool = False
    like: str | None = None
    starts_with: str | None = None
    limit: int | None = None
    from_name: str | None = None
    scope: str = "ACCOUNT"
    database: str | None = None
    schema: str | None = None
    table: str | None = None


@dataclass(frozen=True)
class DescribeDef:
    """DESCRIBE/DESC DATABASE | SCHEMA | TABLE | VIEW name, fully qualified."""

    kind: str
    parts: list[str]


@dataclass(frozen=True)
class SetDef:
    """SET var = expr | SET (a, b) = (x, y): the names and one query producing one row of values.

    https://docs.snowflake.com/en/sql-reference/sql/set
    """

    names: list[str]
    query: exp.Expression


@dataclass(frozen=True)
class UnsetDef:
    """UNSET var | UNSET (a, b). https://docs.snowflake.com/en/sql-reference/sql/unset"""

    names: list[str] = field(default_factory=list)


# --- SHOW ----------------------------------------------------------------------------------------


def _text(node: exp.Expression | None) -> str | None:
    if node is None or not isinstance(node, exp.Expression):
        return None
    return node.name


def _default_scope(kind: str, ctx: SqlContext) -> tuple[str, str | None]:
    """Without IN, the scope is the current database if there is one, else the account.
    https://docs.snowflake.com/en/sql-reference/sql/show-tables#parameters"""
    if kind == "DATABASES" or ctx.database is None:
        return "ACCOUNT", None
    return "DATABASE", ctx.database


def show_def(tree: exp.Expression, ctx: SqlContext) -> ShowDef:
    """Describes a SHOW statement (exp.Show, or exp.Command for PARAMETERS/VARIABLES).

    Raises:
        Unsupported: a SHOW of objects this server does not have.
        SqlCompilationError: a scope needing a current database or schema the session lacks.
    """
    if isinstance(tree, exp.Command):
        rest = tree.expression
        text = (rest.name if isinstance(rest, exp.Expression) else str(rest or "")).strip()
        if text.upper().startswith(("USER FUNCTIONS", "USER PROCEDURES")):
            # The user's own, as SHOW FUNCTIONS / PROCEDURES (which list no built-ins here).
            (tree,) = parse(f"SHOW {text[len('USER') :]}")
        elif (empty := _EMPTY_KIND.match(text)) is not None:
            return _show_empty(empty, ctx)
        else:
            return _show_command(text)
    assert isinstance(tree, exp.Show)
    kind = tree.name.upper()
    if kind not in SHOW_KINDS and kind not in KEY_KINDS:
        raise Unsupported(f"SHOW {kind} is not supported.")
    limit = tree.args.get("limit")
    scope, database, schema, table = _scope(kind, str(tree.args.get("scope_kind") or "").upper(), tree, ctx)
    return ShowDef(
        kind,
        terse=bool(tree.args.get("terse")),
        like=_text(tree.args.get("like")),
        starts_with=_text(tree.args.get("starts_with")) or None,
        limit=int(limit.expression.name) if isinstance(limit, exp.Limit) else None,
        from_name=_text(tree.args.get("from_")) or _text(tree.args.get("from")),
        scope=scope,
        database=database,
        schema=schema,
        table=table,
    )


def _scope(
    kind: str, scope_kind: str, tree: exp.Show, ctx: SqlContext
) -> tuple[str, str | None, str | None, str | None]:
    target = tree.args.get("scope")
    table = target if isinstance(target, exp.Table) else None
    if not scope_kind:
        scope, database = _default_scope(kind, ctx)
        return scope, database, None, None
    if scope_kind == "ACCOUNT":
        return "ACCOUNT", None, None, None
    if scope_kind == "DATABASE" or (kind == "SCHEMAS" and scope_kind in ("TABLE", "SCHEMA")):
        # `SHOW SCHEMAS IN x` names a database; sqlglot reads the bare name as a table.
        database = normalize(table.this) if table is not None else ctx.database
        if database is None:
            qualify([None, None, None], ctx, "show")
        return "DATABASE", database, None, None
    if scope_kind == "SCHEMA":
        if table is None:
            database, schema, _ = qualify([None, None, None], ctx, "show")
        else:
            database, schema, _ = qualify([table.args.get("db"), table.this, None], ctx, "show")
        return "SCHEMA", database, schema, None
    if scope_kind in ("TABLE", "VIEW") and table is not None:
        database, schema, name = qualify(table_parts(table), ctx, "show")
        return "TABLE", database, schema, name
    raise Unsupported(f"SHOW {kind} IN {scope_kind} is not supported.")


def _show_empty(match: re.Match[str], ctx: SqlContext) -> ShowDef:
    """SHOW of a kind in EMPTY_SCHEMA_KINDS or EMPTY_ACCOUNT_KINDS: its clauses read as those of
    SHOW TABLES (schema objects) or SHOW DATABASES (account objects), whose forms they share."""
    kind = " ".join(match["kind"].upper().split())
    stand_in = "TABLES" if kind in EMPTY_SCHEMA_KINDS else "DATABASES"
    (tree,) = parse(f"SHOW {'TERSE ' if match['terse'] else ''}{stand_in}{match['rest']}")
    shown = replace(show_def(tree, ctx), kind=kind)
    if shown.scope == "TABLE" or (stand_in == "DATABASES" and shown.scope != "ACCOUNT"):
        raise Unsupported(f"SHOW {kind} IN {shown.scope} is not supported.")
    return shown


def _show_command(text: str) -> ShowDef:
    """SHOW PARAMETERS [LIKE '...'] [IN|FOR SESSION | ACCOUNT] and SHOW VARIABLES [LIKE '...'].
    https://docs.snowflake.com/en/sql-reference/sql/show-parameters"""
    tokens = Tokenizer(dialect="snowflake").tokenize(text)
    if not tokens or tokens[0].text.upper() not in ("PARAMETERS", "VARIABLES"):
        word = tokens[0].text.upper() if tokens else ""
        raise Unsupported(f"SHOW {word} is not supported.")
    kind = tokens[0].text.upper()
    rest = tokens[1:]
    like = None
    if len(rest) >= 2 and rest[0].token_type == TokenType.LIKE and rest[1].token_type in _STRING_TOKENS:
        like = rest[1].text
        rest = rest[2:]
    words = [t.text.upper() for t in rest]
    scope = "SESSION"
    if (
        kind == "PARAMETERS"
        and len(words) == 2
        and words[0] in ("IN", "FOR")
        and words[1] in ("SESSION", "ACCOUNT")
    ):
        scope, words = words[1], []
    if words:
        raise Unsupported(f"SHOW {kind} {' '.join(words)} is not supported.")
    return ShowDef(kind, like=like, scope=scope)


# --- DESCRIBE ------------------------------------------------------------------------------------


_RESULT = re.compile(r"^RESULT\s+(.+)$", re.IGNORECASE | re.DOTALL)


def described_result(tree: exp.Expression) -> exp.Expression | None:
    """DESCRIBE RESULT { '<query id>' | LAST_QUERY_ID([n]) } as the query reading that result;
    None for another statement.
    https://docs.snowflake.com/en/sql-reference/sql/desc-result"""
    head, rest = command_parts(tree) or ("", "")
    if head != "DESCRIBE" or not (match := _RESULT.match(rest.strip().rstrip(";").strip())):
        return None
    return parse(f"SELECT * FROM TABLE(RESULT_SCAN({match[1]}))")[0]


def describe_def(tree: exp.Describe, ctx: SqlContext) -> DescribeDef:
    """Describes DESCRIBE DATABASE | SCHEMA | TABLE | VIEW (no kind means TABLE).
    https://docs.snowflake.com/en/sql-reference/sql/desc-table

    Raises:
        Unsupported: another kind, or DESCRIBE TABLE ... TYPE = STAGE.
    """
    kind = str(tree.args.get("kind") or "TABLE").upper()
    target = tree.this
    if not isinstance(target, exp.Table):
        raise Unsupported("DESCRIBE of a query is not supported.")
    for prop in tree.args.get("expressions") or []:
        if isinstance(prop, exp.Property) and prop.name.upper() == "TYPE":
            value = prop.args["value"].name.upper()
            if value != "COLUMNS":
                raise Unsupported(f"DESCRIBE TABLE ... TYPE = {value} is not supported.")
    if kind == "DATABASE":
        return DescribeDef(kind, [normalize(target.this)])
    if kind == "SCHEMA":
        database, schema, _ = qualify([target.args.get("db"), target.this, None], ctx, "describe")
        return DescribeDef(kind, [database, schema])
    if kind in ("TABLE", "VIEW"):
        return DescribeDef(kind, qualify(table_parts(target), ctx, "describe"))
    raise Unsupported(f"DESCRIBE {kind} is not supported.")


# --- SET / UNSET ---------------------------------------------------------------------------------


def _variable_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Column) and not node.table:
        return normalize(node.this)
    if isinstance(node, exp.Identifier):
        return normalize(node)
    raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{node.sql(dialect='snowflake')}'.")


def set_def(tree: exp.Set) -> SetDef:
    """Describes SET var = expr or SET (vars) = (exprs | query).

    Raises:
        SqlCompilationError: the numbers of names and values differ.
    """
    items = tree.expressions
    if len(items) != 1 or not isinstance(items[0], exp.SetItem) or not isinstance(items[0].this, exp.EQ):
        raise Unsupported(f"Statement '{tree.sql(dialect='snowflake')[:60]}' is not supported yet.")
    eq = items[0].this
    left, right = eq.this, eq.expression
    if isinstance(left, exp.Tuple | exp.Paren):
        names = [
            _variable_name(n) for n in (left.expressions if isinstance(left, exp.Tuple) else [left.this])
        ]
    else:
        names = [_variable_name(left)]
    if isinstance(right, exp.Tuple):
        values = list(right.expressions)
        query: exp.Expression = exp.select(*[v.copy() for v in values])
    elif isinstance(right, exp.Subquery) and isinstance(right.this, exp.Select):
        # SET (a, b) = (SELECT 1, 2): the query's own row.
        query = right.this.copy()
        values = list(right.this.expressions)
    else:
        values = [right.this if isinstance(right, exp.Paren) else right]
        query = exp.select(values[0].copy())
    if len(values) != len(names):
        raise SqlCompilationError("Mismatch between number of variables and expressions in SET statement.")
    return SetDef(names, query)


def unset_def(tree: exp.Expression) -> UnsetDef | None:
    """UNSET var | UNSET (a, b), which sqlglot reads as an alias or a call named UNSET; None when
    the tree is something else."""
    if isinstance(tree, exp.Alias) and isinstance(tree.this, exp.Column) and _is_unset(tree.this.this):
        return UnsetDef([normalize(tree.args["alias"])])
    if isinstance(tree, exp.Anonymous) and tree.name.upper() == "UNSET":
        return UnsetDef([_variable_name(e) for e in tree.expressions])
    if isinstance(tree, exp.Column) and _is_unset(tree.this):
        raise SyntaxError_("syntax error line 1 at position 5 unexpected '<EOF>'.")
    return None


def _is_unset(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Identifier) and not node.quoted and node.name.upper() == "UNSET"


def is_show(tree: exp.Expression) -> bool:
    """SHOW in either form sqlglot produces (exp.Show, or exp.Command for PARAMETERS/VARIABLES)."""
    if isinstance(tree, exp.Show):
        return True
    return isinstance(tree, exp.Command) and str(tree.this).upper() == "SHOW"


def select_all(parts: list[str]) -> exp.Expression:
    """SELECT * FROM "db"."schema"."name": the query whose result shape is a view's columns."""
    database, schema, name = parts
    return exp.select("*").from_(exp.table_(name, db=schema, catalog=database, quoted=True))
