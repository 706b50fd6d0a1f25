"""Tag statements, read from their text (sqlglot reads few of them): CREATE / ALTER / DROP / SHOW
of tags, and the SET TAG / UNSET TAG clauses of ALTER DATABASE | SCHEMA | TABLE | VIEW and of a
table's or view's columns.

https://docs.snowflake.com/en/sql-reference/sql/create-tag
https://docs.snowflake.com/en/sql-reference/sql/alter-tag
https://docs.snowflake.com/en/user-guide/object-tagging/work
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.errors import SqlCompilationError, SyntaxError_, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import OBJECT_NAME, name_parts, normalize, show_pattern, show_scope
from embucket_py.sql.scripting import command_parts

HEAD = "TAG"  # the Command head word parse.py gives these statements

_NAME = OBJECT_NAME
_COLUMN = r'(?:"(?:[^"]|"")*"|[\w$]+)'
_STRING = r"'(?:[^']|'')*'"
_STATEMENT = re.compile(
    rf"\s*(?:(?:CREATE(?:\s+OR\s+(?:REPLACE|ALTER))?|ALTER|DROP)\s+TAG\b|SHOW\s+TAGS\b"
    rf"|ALTER\s+(?:DATABASE|SCHEMA|TABLE|VIEW)\s+(?:IF\s+EXISTS\s+)?{_NAME}\s+"
    rf"(?:(?:MODIFY|ALTER)\s+(?:COLUMN\s+)?{_COLUMN}\s+)?(?:UN)?SET\s+TAG\b)",
    re.IGNORECASE | re.DOTALL,
)


def is_tag_statement(text: str) -> bool:
    """Whether a statement's text is one of these (then parsed here, not by sqlglot)."""
    return _STATEMENT.match(text) is not None and ";" not in text.strip().rstrip(";")


@dataclass(frozen=True)
class TagStatement:
    # CREATE | ALTER | DROP | SHOW, or on an object: SET | UNSET
    action: str
    parts: tuple[str, str, str] = ("", "", "")  # the tag
    allowed_values: tuple[str, ...] | None = None
    comment: str | None = None
    replace: bool = False
    or_alter: bool = False  # CREATE OR ALTER: an existing tag takes the statement's properties
    if_exists: bool = False  # IF NOT EXISTS for CREATE
    # ALTER TAG: rename | comment | add_values | drop_values | unset_values | set_policies |
    # unset_policies (policy lists as tuples of parts)
    changes: dict[str, object] = field(default_factory=dict)
    # SET / UNSET: the object (DATABASE: (db, "", ""), SCHEMA: (db, s, "")), its column, and the
    # tags with their values (UNSET: values "").
    target_kind: str = "TABLE"
    target: tuple[str, str, str] = ("", "", "")
    column: str = ""
    values: tuple[tuple[tuple[str, str, str], str], ...] = ()
    like: str | None = None  # SHOW ... LIKE
    scope: list[str] = field(default_factory=list)  # SHOW ... IN: [] account, [db], [db, schema]


def tag_statement(tree: exp.Expression, ctx: SqlContext) -> TagStatement | None:
    """The tag statement `tree` is, or None.

    Raises:
        SyntaxError_: a tag statement this grammar does not read.
    """
    command = command_parts(tree)
    if command is None or command[0] != HEAD:
        return None
    text = command[1].strip().rstrip(";").strip()
    for reader in (_create, _alter_tag, _drop, _show, _on_object):
        found = reader(text, ctx)
        if found is not None:
            return found
    raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{text.split()[0]}'.")


def tag_parts(name: str, ctx: SqlContext) -> tuple[str, str, str]:
    """A tag's name as written (or given to SYSTEM$GET_TAG) -> its qualified parts."""
    database, schema, last = name_parts(name, ctx, "TAG")
    return (database, schema, last)


def _string(literal: str) -> str:
    return literal[1:-1].replace("''", "'")


def _strings(text: str) -> tuple[str, ...]:
    """`'a', 'b'` -> ('a', 'b')."""
    if not re.fullmatch(rf"\s*{_STRING}(?:\s*,\s*{_STRING})*\s*", text):
        raise SyntaxError_(f"syntax error: expected a list of strings, got '{text.strip()[:40]}'.")
    return tuple(_string(m) for m in re.findall(_STRING, text))


_CREATE = re.compile(
    rf"CREATE(?:\s+OR\s+(?:(?P<replace>REPLACE)|(?P<alter>ALTER)))?\s+TAG\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?"
    rf"(?P<name>{_NAME})"
    rf"(?:\s+ALLOWED_VALUES\s+(?P<allowed>{_STRING}(?:\s*,\s*{_STRING})*))?"
    r"(?:\s+PROPAGATE\s*=\s*\w+(?:\s+ON_CONFLICT\s*=\s*(?:'(?:[^']|'')*'|\w+))?)?"
    rf"(?:\s+COMMENT\s*=\s*(?P<comment>{_STRING}))?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _create(text: str, ctx: SqlContext) -> TagStatement | None:
    if re.match(r"CREATE(?:\s+OR\s+(?:REPLACE|ALTER))?\s+TAG\b", text, re.IGNORECASE) is None:
        return None
    found = _CREATE.match(text)
    if found is None:
        raise SyntaxError_("syntax error: CREATE TAG takes a name, ALLOWED_VALUES '...' and COMMENT = '...'.")
    allowed = _strings(found["allowed"]) if found["allowed"] else None
    return TagStatement(
        "CREATE",
        tag_parts(found["name"], ctx),
        allowed_values=allowed,
        comment=_string(found["comment"]) if found["comment"] else None,
        replace=bool(found["replace"]),
        or_alter=bool(found["alter"]),
        if_exists=bool(found["exists"]),
    )


_ALTER = re.compile(
    rf"ALTER\s+TAG\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{_NAME})\s+(?P<clause>.+)$", re.I | re.S
)
_POLICY_LIST = re.compile(rf"MASKING\s+POLICY\s+(?P<policy>{_NAME})", re.IGNORECASE)


def _alter_tag(text: str, ctx: SqlContext) -> TagStatement | None:
    found = _ALTER.match(text)
    if found is None:
        return None
    clause = found["clause"].strip()
    changes: dict[str, object] = {}
    if (m := re.fullmatch(rf"RENAME\s+TO\s+({_NAME})", clause, re.I)) is not None:
        changes["rename"] = tag_parts(m[1], ctx)
    elif (m := re.fullmatch(r"(ADD|DROP)\s+ALLOWED_VALUES\s+(.+)", clause, re.I | re.S)) is not None:
        changes[f"{m[1].lower()}_values"] = _strings(m[2])
    elif re.fullmatch(r"UNSET\s+ALLOWED_VALUES", clause, re.I):
        changes["unset_values"] = True
    elif (m := re.fullmatch(rf"SET\s+COMMENT\s*=\s*({_STRING})", clause, re.I | re.S)) is not None:
        changes["comment"] = _string(m[1])
    elif re.fullmatch(r"UNSET\s+COMMENT", clause, re.I):
        changes["comment"] = None
    elif (
        m := re.fullmatch(r"(SET|UNSET)\s+(MASKING\s+POLICY.+?)(\s+FORCE)?", clause, re.I | re.S)
    ) is not None:
        pieces = [p.strip() for p in m[2].split(",")]
        policies = [_POLICY_LIST.fullmatch(p) for p in pieces]
        if not all(policies):
            raise SyntaxError_("syntax error: expected MASKING POLICY <name> [, MASKING POLICY <name> ...].")
        named = tuple(tag_parts(p["policy"], ctx) for p in policies if p is not None)
        changes[f"{m[1].lower()}_policies"] = named
        changes["force"] = bool(m[3])
    else:
        raise SyntaxError_(
            "ALTER TAG supports RENAME TO, ADD | DROP | UNSET ALLOWED_VALUES, SET | UNSET COMMENT and"
            " SET | UNSET MASKING POLICY."
        )
    return TagStatement(
        "ALTER", tag_parts(found["name"], ctx), if_exists=bool(found["exists"]), changes=changes
    )


_DROP = re.compile(rf"DROP\s+TAG\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{_NAME})\s*$", re.I)
_SHOW = show_pattern("TAGS")


def _drop(text: str, ctx: SqlContext) -> TagStatement | None:
    found = _DROP.match(text)
    if found is None:
        return None
    return TagStatement("DROP", tag_parts(found["name"], ctx), if_exists=bool(found["exists"]))


def _show(text: str, ctx: SqlContext) -> TagStatement | None:
    head = re.match(r"SHOW\s+(?=TAGS\b)", text, re.IGNORECASE)
    found = _SHOW.match(text[head.end() :]) if head else None
    if found is None:
        return None
    scope, like = show_scope(found, ctx)
    if found["scope"] is None and (found["kind"] or "DATABASE").upper() == "DATABASE":
        scope = [ctx.database] if ctx.database else []  # no IN, or IN DATABASE: the current one's
    return TagStatement("SHOW", like=like, scope=scope)


_ON_OBJECT = re.compile(
    rf"ALTER\s+(?P<object>DATABASE|SCHEMA|TABLE|VIEW)\s+(?P<exists>IF\s+EXISTS\s+)?(?P<name>{_NAME})\s+"
    rf"(?:(?:MODIFY|ALTER)\s+(?:COLUMN\s+)?(?P<column>{_COLUMN})\s+)?(?P<verb>SET|UNSET)\s+TAG\s+(?P<tags>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_ASSIGNMENT = re.compile(rf"\s*(?P<tag>{_NAME})\s*=\s*(?P<value>{_STRING})\s*(?:,|$)", re.DOTALL)


def _on_object(text: str, ctx: SqlContext) -> TagStatement | None:
    found = _ON_OBJECT.match(text)
    if found is None:
        return None
    kind = found["object"].upper()
    if found["column"] is not None and kind not in ("TABLE", "VIEW"):
        return None
    if kind in ("DATABASE", "SCHEMA"):
        _, target, _ = object_named(found["name"], kind, ctx)
    else:
        database, schema, name = name_parts(found["name"], ctx)
        target = (database, schema, name)
    column = normalize(exp.parse_identifier(found["column"], dialect="snowflake")) if found["column"] else ""
    listed = found["tags"].strip()
    values: list[tuple[tuple[str, str, str], str]] = []
    if found["verb"].upper() == "SET":
        position = 0
        while position < len(listed):
            m = _ASSIGNMENT.match(listed, position)
            if m is None:
                raise SyntaxError_(
                    f"syntax error: expected <tag> = '<value>', got '{listed[position:][:40]}'."
                )
            values.append((tag_parts(m["tag"], ctx), _string(m["value"])))
            position = m.end()
    else:
        values = [(tag_parts(t.strip(), ctx), "") for t in listed.split(",")]
    if len({v[0] for v in values}) != len(values):
        raise SqlCompilationError("A tag may be given only once in one statement.")
    return TagStatement(
        found["verb"].upper(),
        target_kind="COLUMN" if column else kind,
        target=target,
        column=column,
        values=tuple(values),
        if_exists=bool(found["exists"]),
    )


def declared_in_create(
    tree: exp.Expression, kind: str, parts: list[str], ctx: SqlContext
) -> list[TagStatement]:
    """CREATE TABLE | VIEW | SCHEMA | DATABASE's `WITH TAG (t = 'v', ...)`, on the object and on
    a table's or view's columns, as the ALTER statements that set them (`parts`: the object's)."""
    if not isinstance(tree, exp.Create) or kind not in ("TABLE", "VIEW", "SCHEMA", "DATABASE"):
        return []
    padded = [*parts, "", ""]  # a schema's or database's parts, filled to three
    target = (padded[0], padded[1], padded[2])
    columns = tree.this.expressions if isinstance(tree.this, exp.Schema) else []
    declared = _column_tags([c for c in columns if isinstance(c, exp.ColumnDef)], target, ctx)
    properties = tree.args.get("properties")
    declared += [
        TagStatement("SET", target_kind=kind, target=target, values=_declared_values(tags, ctx))
        for tags in (properties.find_all(exp.Tags) if properties is not None else ())
    ]
    return declared


def declared_in_alter(tree: exp.Expression, ctx: SqlContext) -> list[TagStatement]:
    """ALTER TABLE ... ADD COLUMN c type WITH TAG (t = 'v', ...): the tags of the added columns."""
    if not isinstance(tree, exp.Alter) or not isinstance(tree.this, exp.Table):
        return []
    added = [a for a in tree.args.get("actions") or [] if isinstance(a, exp.ColumnDef)]
    if not any(a.find(exp.Tags) for a in added):
        return []
    database, schema, name = name_parts(tree.this.sql(dialect="snowflake"), ctx)
    return _column_tags(added, (database, schema, name), ctx)


def _column_tags(
    columns: list[exp.ColumnDef], target: tuple[str, str, str], ctx: SqlContext
) -> list[TagStatement]:
    return [
        TagStatement(
            "SET",
            target_kind="COLUMN",
            target=target,
            column=normalize(column.this),
            values=_declared_values(tags, ctx),
        )
        for column in columns
        for tags in column.find_all(exp.Tags)
    ]


def _declared_values(tags: exp.Tags, ctx: SqlContext) -> tuple[tuple[tuple[str, str, str], str], ...]:
    values = []
    for prop in tags.expressions:
        if not isinstance(prop, exp.Property) or not isinstance(prop.args.get("value"), exp.Literal):
            raise SyntaxError_("syntax error: WITH TAG takes (<tag> = '<value>', ...).")
        values.append((tag_parts(prop.this.sql(dialect="snowflake"), ctx), prop.args["value"].name))
    return tuple(values)


def object_named(name: str, domain: str, ctx: SqlContext) -> tuple[str, tuple[str, str, str], str]:
    """An object named in a string with its domain (SYSTEM$GET_TAG, TAG_REFERENCES) -> (level,
    object parts, column).

    Raises:
        Unsupported: a domain tags are not kept for here.
        SqlCompilationError: an unknown domain, or a column named without its table.
    """
    domain = domain.strip().upper()
    if domain in ("TABLE", "VIEW"):
        database, schema, table = name_parts(name, ctx)
        return "TABLE", (database, schema, table), ""
    if domain == "COLUMN":
        pieces = exp.to_column(name, dialect="snowflake").parts
        if len(pieces) < 2:
            raise SqlCompilationError("A column is named as <table>.<column>.")
        table = exp.Table(this=pieces[-2], db=pieces[-3] if len(pieces) > 2 else None,
                          catalog=pieces[-4] if len(pieces) > 3 else None)  # fmt: skip
        database, schema, last = name_parts(table.sql(dialect="snowflake"), ctx)
        return "COLUMN", (database, schema, last), normalize(pieces[-1])
    if domain == "SCHEMA":
        database, schema, _ = name_parts(f"{name}.x", ctx, "SCHEMA")
        return "SCHEMA", (database, schema, ""), ""
    if domain == "DATABASE":
        return "DATABASE", (normalize(exp.parse_identifier(name, dialect="snowflake")), "", ""), ""
    if domain in ("ACCOUNT", "WAREHOUSE", "USER", "ROLE", "STAGE", "STREAM", "TASK", "FUNCTION", "PROCEDURE"):
        raise Unsupported(f"Tags on objects of domain {domain} are not supported yet.")
    raise SqlCompilationError(f"Invalid object domain '{domain}'.")


_ON_CURRENT = re.compile(
    r"SYSTEM\$GET_TAG_ON_CURRENT_(COLUMN|TABLE)\s*\(\s*'((?:[^']|'')*)'\s*\)", re.IGNORECASE
)


def asks_current_tags(body: str) -> bool:
    return _ON_CURRENT.search(body) is not None


def replace_current_tags(
    body: str, value: Callable[[tuple[str, str, str], bool], str | None], ctx: SqlContext
) -> str:
    """A policy body with SYSTEM$GET_TAG_ON_CURRENT_COLUMN('tag') and ..._TABLE('tag') replaced by
    `value(tag, on_column)` as a string literal, or NULL. Unqualified tags resolve in `ctx`."""

    def literal(m: re.Match[str]) -> str:
        found = value(tag_parts(m[2].replace("''", "'"), ctx), m[1].upper() == "COLUMN")
        return "NULL" if found is None else "'" + found.replace("'", "''") + "'"

    return _ON_CURRENT.sub(literal, body)
