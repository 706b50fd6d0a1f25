"""Masking and row access policy statements, read from their text (sqlglot has no grammar for
most of them): CREATE / ALTER / DROP / SHOW / DESCRIBE of the policies, and the ALTER TABLE |
VIEW clauses that attach them to columns and tables.

https://docs.snowflake.com/en/sql-reference/sql/create-masking-policy
https://docs.snowflake.com/en/sql-reference/sql/create-row-access-policy
https://docs.snowflake.com/en/sql-reference/sql/alter-table (masking and row access clauses)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.errors import SqlCompilationError, SyntaxError_, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import (
    OBJECT_NAME,
    name_parts,
    normalize,
    show_pattern,
    show_scope,
    split_top_level,
)
from embucket_py.sql.scripting import command_parts
from embucket_py.types import parse_sql_type

HEAD = "POLICY"  # the Command head word parse.py gives these statements

_NAME = OBJECT_NAME
_COLUMN = r'(?:"(?:[^"]|"")*"|[\w$]+)'
_KIND = r"(?P<kind>MASKING|ROW\s+ACCESS)"
_STATEMENT = re.compile(
    r"\s*(?:(?:CREATE(?:\s+OR\s+REPLACE)?|ALTER|DROP|DESC(?:RIBE)?)\s+(?:MASKING|ROW\s+ACCESS)\s+POLICY\b"
    r"|SHOW\s+(?:MASKING|ROW\s+ACCESS)\s+POLICIES\b"
    r"|ALTER\s+(?:TABLE|VIEW)\s+[^;]*?\b(?:MASKING\s+POLICY|ROW\s+ACCESS\s+POLIC(?:Y|IES))\b)",
    re.IGNORECASE | re.DOTALL,
)


def is_policy_statement(text: str) -> bool:
    """Whether a statement's text is one of these (then parsed here, not by sqlglot)."""
    return _STATEMENT.match(text) is not None and ";" not in text.strip().rstrip(";")


@dataclass(frozen=True)
class PolicyStatement:
    # CREATE | ALTER | DROP | SHOW | DESCRIBE, or on a table or view: SET_MASKING | UNSET_MASKING |
    # ADD_ROW_ACCESS | DROP_ROW_ACCESS | DROP_ALL_ROW_ACCESS
    action: str
    kind: str  # MASKING_POLICY | ROW_ACCESS_POLICY
    parts: tuple[str, str, str] = ("", "", "")  # the policy
    signature: tuple[tuple[str, str], ...] = ()
    returns: str = ""
    body: str = ""
    comment: str | None = None
    replace: bool = False
    if_exists: bool = False  # IF NOT EXISTS for CREATE
    changes: dict[str, object] = field(default_factory=dict)  # ALTER: body | comment | rename
    # On a table or view: the object, its masked column and the columns given to the policy.
    target: tuple[str, str, str] = ("", "", "")
    target_kind: str = "TABLE"
    column: str = ""
    columns: tuple[str, ...] = ()
    force: bool = False
    then_add: PolicyStatement | None = None  # DROP ROW ACCESS POLICY p, ADD ROW ACCESS POLICY q ON (...)
    like: str | None = None  # SHOW ... LIKE
    scope: list[str] = field(default_factory=list)  # SHOW ... IN: [] account, [db], [db, schema]


def policy_statement(tree: exp.Expression, ctx: SqlContext) -> PolicyStatement | None:
    """The policy statement `tree` is, or None.

    Raises:
        SyntaxError_: a policy statement this grammar does not read.
        SqlCompilationError: a signature or return type that is no Snowflake type.
    """
    command = command_parts(tree)
    if command is None or command[0] != HEAD:
        return None
    text = command[1].strip().rstrip(";").strip()
    for reader in (_create, _alter_policy, _drop, _show, _describe, _on_object):
        found = reader(text, ctx)
        if found is not None:
            return found
    if re.match(r"ALTER\s+(?:TABLE|VIEW)\b", text, re.IGNORECASE):  # e.g. ADD COLUMN ... WITH MASKING POLICY
        raise Unsupported(f"Statement '{text[:60]}' is not supported yet.")
    raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{text.split()[0]}'.")


def _kind(word: str) -> str:
    return "MASKING_POLICY" if word.upper() == "MASKING" else "ROW_ACCESS_POLICY"


def object_parts(name: str, ctx: SqlContext) -> tuple[str, str, str]:
    """A policy's, table's or view's name as written -> its qualified parts."""
    database, schema, last = name_parts(name, ctx, "POLICY")
    return (database, schema, last)


def _identifier(text: str) -> str:
    return normalize(exp.parse_identifier(text.strip(), dialect="snowflake"))


def _string(literal: str) -> str:
    return literal[1:-1].replace("''", "'")


_CREATE = re.compile(
    rf"CREATE(?P<replace>\s+OR\s+REPLACE)?\s+{_KIND}\s+POLICY\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?"
    rf"(?P<name>{_NAME})\s+AS\s*\(",
    re.IGNORECASE,
)
_RETURNS = re.compile(
    r"\s*RETURNS\s+(?P<returns>[\w ]+?(?:\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)\s*->\s*(?P<rest>.+)$",
    re.IGNORECASE | re.DOTALL,
)
# Options after the body, in any order.
_TRAILING = re.compile(
    r"\s+(?:COMMENT\s*=\s*(?P<comment>'(?:[^']|'')*')|EXEMPT_OTHER_POLICIES\s*=\s*(?:TRUE|FALSE))\s*$",
    re.IGNORECASE,
)


def _create(text: str, ctx: SqlContext) -> PolicyStatement | None:
    found = _CREATE.match(text)
    if found is None:
        return None
    # The signature runs to its closing parenthesis (types have parentheses of their own).
    depth, end = 1, found.end()
    while depth and end < len(text):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    tail = _RETURNS.match(text, end)
    if depth or tail is None:
        raise SyntaxError_("syntax error: CREATE ... POLICY needs AS (arg type, ...) RETURNS type -> body.")
    kind = _kind(found["kind"])
    body, comment = tail["rest"].strip(), None
    while (option := _TRAILING.search(body)) is not None:
        if option["comment"] is not None:
            comment = _string(option["comment"])
        body = body[: option.start()].rstrip()
    signature = _signature(text[found.end() : end - 1])
    returns = _type(tail["returns"])
    if kind == "ROW_ACCESS_POLICY" and returns != "BOOLEAN":
        raise SqlCompilationError("Row access policy must return BOOLEAN.")
    if kind == "MASKING_POLICY":
        if not signature:
            raise SqlCompilationError("Masking policy requires at least one argument.")
        if parse_sql_type(returns).kind != parse_sql_type(signature[0][1]).kind:
            raise SqlCompilationError("Masking policy return type must match the type of its first argument.")
    return PolicyStatement(
        "CREATE",
        kind,
        object_parts(found["name"], ctx),
        signature,
        returns,
        body,
        comment,
        replace=bool(found["replace"]),
        if_exists=bool(found["exists"]),
    )


def _signature(text: str) -> tuple[tuple[str, str], ...]:
    args = []
    for piece in split_top_level(text):
        found = re.fullmatch(rf"\s*({_COLUMN})\s+(.+?)\s*", piece, re.DOTALL)
        if found is None:
            raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{piece.strip()}'.")
        args.append((_identifier(found[1]), _type(found[2])))
    return tuple(args)


def _type(text: str) -> str:
    """The type as Snowflake shows it (`string` -> VARCHAR(16777216))."""
    try:
        return parse_sql_type(text).sql
    except ValueError as e:
        raise SqlCompilationError(str(e)) from None


_ALTER = re.compile(
    rf"ALTER\s+{_KIND}\s+POLICY\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{_NAME})\s+"
    rf"(?:RENAME\s+TO\s+(?P<rename>{_NAME})"
    r"|SET\s+BODY\s*->\s*(?P<body>.+)"
    r"|SET\s+COMMENT\s*=\s*(?P<comment>'(?:[^']|'')*')"
    r"|(?P<unset>UNSET\s+COMMENT))\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _alter_policy(text: str, ctx: SqlContext) -> PolicyStatement | None:
    if re.match(r"ALTER\s+(?:MASKING|ROW\s+ACCESS)\s+POLICY\b", text, re.IGNORECASE) is None:
        return None
    found = _ALTER.match(text)
    if found is None:
        raise SyntaxError_("ALTER ... POLICY supports RENAME TO, SET BODY ->, SET COMMENT and UNSET COMMENT.")
    changes: dict[str, object] = {}
    if found["rename"] is not None:
        changes["rename"] = object_parts(found["rename"], ctx)
    elif found["body"] is not None:
        changes["body"] = found["body"].strip()
    elif found["comment"] is not None:
        changes["comment"] = _string(found["comment"])
    else:
        changes["comment"] = None
    return PolicyStatement(
        "ALTER",
        _kind(found["kind"]),
        object_parts(found["name"], ctx),
        if_exists=bool(found["exists"]),
        changes=changes,
    )


_DROP = re.compile(rf"DROP\s+{_KIND}\s+POLICY\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{_NAME})\s*$", re.I)
_DESCRIBE = re.compile(rf"DESC(?:RIBE)?\s+{_KIND}\s+POLICY\s+(?P<name>{_NAME})\s*$", re.I)
_SHOW = show_pattern(r"(?:MASKING|ROW\s+ACCESS)\s+POLICIES")


def _drop(text: str, ctx: SqlContext) -> PolicyStatement | None:
    found = _DROP.match(text)
    if found is None:
        return None
    return PolicyStatement(
        "DROP", _kind(found["kind"]), object_parts(found["name"], ctx), if_exists=bool(found["exists"])
    )


def _describe(text: str, ctx: SqlContext) -> PolicyStatement | None:
    found = _DESCRIBE.match(text)
    return (
        None
        if found is None
        else PolicyStatement("DESCRIBE", _kind(found["kind"]), object_parts(found["name"], ctx))
    )


def _show(text: str, ctx: SqlContext) -> PolicyStatement | None:
    head = re.match(r"SHOW\s+(MASKING|ROW\s+ACCESS)\s", text, re.IGNORECASE)
    found = _SHOW.match(text[head.start(1) :]) if head else None
    if head is None or found is None:
        return None
    scope, like = show_scope(found, ctx)
    if found["scope"] is None and (found["kind"] or "DATABASE").upper() == "DATABASE":
        # No IN, or IN DATABASE: the current database's policies (the account's without one).
        scope = [ctx.database] if ctx.database else []
    return PolicyStatement("SHOW", _kind(head[1]), like=like, scope=scope)


_ON_OBJECT = re.compile(
    rf"ALTER\s+(?P<object>TABLE|VIEW)\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{_NAME})\s+(?P<clause>.+)$",
    re.I | re.DOTALL,
)
_SET_MASKING = re.compile(
    rf"(?:MODIFY|ALTER)\s+(?:COLUMN\s+)?(?P<column>{_COLUMN})\s+SET\s+MASKING\s+POLICY\s+(?P<policy>{_NAME})"
    r"(?:\s+USING\s*\((?P<using>[^)]*)\))?(?P<force>\s+FORCE)?\s*$",
    re.I,
)
_UNSET_MASKING = re.compile(
    rf"(?:MODIFY|ALTER)\s+(?:COLUMN\s+)?(?P<column>{_COLUMN})\s+UNSET\s+MASKING\s+POLICY\s*$", re.I
)
_ADD_ROW_ACCESS = re.compile(
    rf"ADD\s+ROW\s+ACCESS\s+POLICY\s+(?P<policy>{_NAME})\s+ON\s*\((?P<on>[^)]*)\)\s*$", re.I
)
_DROP_ROW_ACCESS = re.compile(
    rf"DROP\s+ROW\s+ACCESS\s+POLICY\s+(?P<policy>{_NAME})(?:\s*,\s*(?P<then>ADD\s+ROW\s+ACCESS\s+POLICY.+))?\s*$",
    re.I | re.DOTALL,
)
_DROP_ALL = re.compile(r"DROP\s+ALL\s+ROW\s+ACCESS\s+POLICIES\s*$", re.I)


def _on_object(text: str, ctx: SqlContext) -> PolicyStatement | None:
    found = _ON_OBJECT.match(text)
    if found is None:
        return None
    target = object_parts(found["name"], ctx)
    target_kind = found["object"].upper()
    clause = found["clause"].strip()
    common = {"target": target, "target_kind": target_kind, "if_exists": bool(found["exists"])}
    if (masking := _SET_MASKING.match(clause)) is not None:
        column = _identifier(masking["column"])
        using = tuple(_identifier(c) for c in masking["using"].split(",")) if masking["using"] else (column,)
        if using[0] != column:
            raise SqlCompilationError(
                "The first column in the USING clause must be the column the masking policy is set on."
            )
        return PolicyStatement(
            "SET_MASKING", "MASKING_POLICY", object_parts(masking["policy"], ctx), column=column,
            columns=using, force=bool(masking["force"]), **common,
        )  # fmt: skip
    if (unset := _UNSET_MASKING.match(clause)) is not None:
        return PolicyStatement(
            "UNSET_MASKING", "MASKING_POLICY", column=_identifier(unset["column"]), **common
        )
    if (add := _ADD_ROW_ACCESS.match(clause)) is not None:
        columns = tuple(_identifier(c) for c in add["on"].split(",") if c.strip())
        return PolicyStatement(
            "ADD_ROW_ACCESS", "ROW_ACCESS_POLICY", object_parts(add["policy"], ctx), columns=columns, **common
        )
    if (drop := _DROP_ROW_ACCESS.match(clause)) is not None:
        then = (
            _on_object(f"ALTER {target_kind} {found['name']} {drop['then']}", ctx) if drop["then"] else None
        )
        return PolicyStatement(
            "DROP_ROW_ACCESS", "ROW_ACCESS_POLICY", object_parts(drop["policy"], ctx), then_add=then, **common
        )
    if _DROP_ALL.match(clause):
        return PolicyStatement("DROP_ALL_ROW_ACCESS", "ROW_ACCESS_POLICY", **common)
    return None


def declared_in_create(tree: exp.Expression, table: list[str], ctx: SqlContext) -> list[PolicyStatement]:
    """CREATE TABLE's own policy clauses (`col type [WITH] MASKING POLICY p [USING (...)]`, `WITH
    ROW ACCESS POLICY p ON (...)`) as the ALTER TABLE statements that attach them."""
    if not isinstance(tree, exp.Create) or not isinstance(tree.this, exp.Schema):
        return []
    target = (table[0], table[1], table[2])
    declared = []
    for column in tree.this.expressions:
        for constraint in (
            column.find_all(exp.MaskingPolicyColumnConstraint) if isinstance(column, exp.ColumnDef) else ()
        ):
            name = normalize(column.this)
            using = tuple(normalize(i) for i in constraint.expressions or []) or (name,)
            policy = object_parts(constraint.this.sql(dialect="snowflake"), ctx)
            declared.append(
                PolicyStatement(
                    "SET_MASKING", "MASKING_POLICY", policy, target=target, column=name, columns=using
                )
            )
    for prop in tree.find_all(exp.RowAccessProperty):
        columns = tuple(normalize(i) for i in prop.expressions or [])
        policy = object_parts(prop.this.sql(dialect="snowflake"), ctx)
        declared.append(
            PolicyStatement("ADD_ROW_ACCESS", "ROW_ACCESS_POLICY", policy, target=target, columns=columns)
        )
    return declared
