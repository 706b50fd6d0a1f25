"""GET_DDL('TABLE' | 'VIEW' | 'SEQUENCE' | 'FUNCTION' | 'PROCEDURE' | 'SCHEMA' | 'DATABASE' |
'POLICY', 'name' [, fully_qualified]): the DDL that recreates an object, in Snowflake's layout
(one tab-indented column per line, `create or replace`). Schemas and databases are recursive:
their own statement, then every object they hold.
https://docs.snowflake.com/en/sql-reference/functions/get_ddl"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import Tokenizer, TokenType

from embucket_py import naming
from embucket_py.catalog.grants import Securable
from embucket_py.catalog.policies import MASKING, ROW_ACCESS, Attachment, Policy
from embucket_py.catalog.routines import FUNCTION, PROCEDURE, Routine
from embucket_py.catalog.sequences import Sequence
from embucket_py.catalog.tables import Column, TableName, Tables
from embucket_py.catalog.tags import Tag, TagValue
from embucket_py.catalog.views import View
from embucket_py.engine import access
from embucket_py.engine.routines import signature_type
from embucket_py.errors import SqlCompilationError, object_not_found
from embucket_py.layout.clustering import clustering_key
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import (
    SourceText,
    normalize,
    projection_name,
    qualify,
    split_top_level,
    table_parts,
)

KINDS = ("TABLE", "VIEW", "SEQUENCE", "FUNCTION", "PROCEDURE", "SCHEMA", "DATABASE", "POLICY")


def replace_calls(
    tables: Tables, tree: exp.Expression, ctx: SqlContext, source: SourceText | None = None
) -> exp.Expression:
    """GET_DDL(...) with constant arguments -> its text as a string literal (it reads metadata only),
    a result column keeping the call's name."""

    def replace(node: exp.Expression) -> exp.Expression:
        if not (isinstance(node, exp.Anonymous) and node.name.upper() == "GET_DDL"):
            return node
        args = node.expressions
        if len(args) not in (2, 3) or not all(isinstance(a, exp.Literal) and a.is_string for a in args[:2]):
            raise SqlCompilationError("GET_DDL takes an object type, an object name and an optional boolean.")
        qualified = len(args) == 3 and _truth(args[2])
        text = exp.Literal.string(get_ddl(tables, args[0].name, args[1].name, ctx, qualified))
        if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
            return exp.alias_(text, exp.to_identifier(projection_name(node, source), quoted=True))
        return text

    if not any(isinstance(n, exp.Anonymous) and n.name.upper() == "GET_DDL" for n in tree.walk()):
        return tree
    return tree.transform(replace)


def _truth(arg: exp.Expression) -> bool:
    if isinstance(arg, exp.Boolean):
        return bool(arg.this)
    if isinstance(arg, exp.Literal):
        return arg.name.strip().upper() in ("TRUE", "1", "T", "Y", "YES", "ON")
    raise SqlCompilationError("GET_DDL's third argument must be a boolean constant.")


def get_ddl(tables: Tables, kind: str, name: str, ctx: SqlContext, qualified: bool = False) -> str:
    """Raises: ObjectNotFound / SqlCompilationError (an object type GET_DDL does not support here)."""
    kind = kind.strip().upper()
    if kind not in KINDS:
        raise SqlCompilationError(f"Invalid object type '{kind}' for GET_DDL.", code=2003, sqlstate="02000")
    if kind in (FUNCTION, PROCEDURE):  # 'name(type, ...)': routines of one name differ by their types
        return _routine_ddl(tables, kind, name, ctx, qualified)
    target = exp.to_table(name, dialect="snowflake")
    if kind == "DATABASE":
        database = normalize(target.this)
        visible = access.sees(tables, Securable("DATABASE", database))
        if not tables.metastore.database_exists(database) or not visible:
            raise object_not_found("Database", naming.quote(database))
        return database_ddl(tables, database, qualified)
    if kind == "SCHEMA":
        parts = [p for p in (target.args.get("db"), target.this) if p is not None]
        database = normalize(parts[0]) if len(parts) == 2 else ctx.database
        schema = normalize(parts[-1])
        if database is None or not tables.metastore.schema_exists(database, schema):
            raise object_not_found("Schema", naming.quote(schema))
        if not access.sees(tables, Securable("SCHEMA", database, schema)):
            raise object_not_found("Schema", naming.quote(schema))
        return schema_ddl(tables, database, schema, qualified)
    ref = TableName(*qualify(table_parts(target), ctx, "get_ddl"))
    if kind == "SEQUENCE":  # seen with its schema (engine/sequences.py)
        found = tables.sequences.get(ref.database, ref.schema, ref.name)
        if found is None or not access.sees(tables, Securable("SCHEMA", ref.database, ref.schema)):
            raise object_not_found("Sequence", str(ref))
        return sequence_ddl(found, qualified)
    if kind == "POLICY":  # masking or row access, seen with its schema (engine/policies.py)
        policy = tables.policies.get((ref.database, ref.schema, ref.name))
        if policy is None or not access.sees(tables, Securable("SCHEMA", ref.database, ref.schema)):
            raise object_not_found("Policy", str(ref))
        return policy_ddl(policy, qualified)
    if not access.sees(tables, Securable("TABLE", ref.database, ref.schema, ref.name)):
        raise object_not_found("Object", str(ref))
    if kind == "VIEW":
        view = tables.views.get(ref.database, ref.schema, ref.name)
        if view is None:
            raise object_not_found("View", str(ref))
        return view_ddl(view, qualified)
    return table_ddl(tables, ref, qualified)


def _name(parts: list[str], qualified: bool) -> str:
    return ".".join(naming.quote(p) for p in (parts if qualified else parts[-1:]))


def _string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def column_line(column: Column) -> str:
    line = f"\t{naming.quote(column.name)} {column.type.sql}"
    if not column.nullable:
        line += " NOT NULL"
    if column.identity is not None:
        line += f" autoincrement start {column.identity[0]} increment {column.identity[1]} order"
    elif column.default is not None:
        line += f" DEFAULT {column.default}"
    if column.comment:
        line += f" COMMENT {_string(column.comment)}"
    return line


def table_ddl(tables: Tables, ref: TableName, qualified: bool = False) -> str:
    table = tables.load(ref)
    kind = tables.kind(ref, table)
    prefix = "create or replace " + ("" if kind == "TABLE" else f"{kind.lower()} ")
    policies = tables.policies.attached_to((ref.database, ref.schema, ref.name))
    masks = {a.column: a for a in policies if a.kind == MASKING}
    tagged = [
        v
        for v in tables.tags.lineage((ref.database, ref.schema, ref.name))
        if v.domain in ("TABLE", "COLUMN")
    ]
    lines = ",\n".join(
        column_line(c)
        + _masking_clause(masks.get(c.name), qualified)
        + _tag_clause([v for v in tagged if v.column == c.name])
        for c in Tables.columns(table)
    )
    name = _name([ref.database, ref.schema, ref.name], qualified)
    key = clustering_key(table)
    # Snowflake writes the clustering key between the name and the columns, and a table comment
    # right after the closing parenthesis, the `;` on a line of its own.
    cluster = " cluster by (" + ", ".join(naming.quote(naming.display(k)) for k in key) + ")" if key else " "
    text = f"{prefix}TABLE {name}{cluster}(\n{lines}\n)"
    for a in policies:
        if a.kind == ROW_ACCESS:
            columns = ", ".join(map(naming.quote, a.columns))
            text += f" with row access policy {_name(list(a.policy), qualified)} on ({columns})"
    text += _tag_clause([v for v in tagged if v.domain == "TABLE"])
    comment = Tables.comment(table)
    return text + f"COMMENT={_string(comment)}\n;" if comment else text + ";"


def view_ddl(view: View, qualified: bool = False) -> str:
    """The view's own CREATE statement, its head made `create or replace [secure] view <name>`."""
    head = "create or replace " + ("secure " if view.secure else "") + "view "
    name = _name([view.database, view.schema, view.name], qualified)
    rest = _after_name(view.text)
    text = f"{head}{name}{rest}" if rest is not None else f"{head}{name} as {view.query}"
    return text.rstrip().rstrip(";").rstrip() + ";"


def _masking_clause(mask: Attachment | None, qualified: bool) -> str:
    if mask is None:
        return ""
    clause = f" with masking policy {_name(list(mask.policy), qualified)}"
    return clause + (
        f" using ({', '.join(map(naming.quote, mask.columns))})" if len(mask.columns) > 1 else ""
    )


def _tag_clause(values: list[TagValue]) -> str:
    """`with tag (db.schema.tag='value', ...)`: tags named in full, wherever the DDL runs."""
    if not values:
        return ""
    pairs = ", ".join(
        f"{_name(list(v.tag), True)}={_string(v.value)}" for v in sorted(values, key=lambda v: v.tag)
    )
    return f" with tag ({pairs})"


def tag_ddl(tag: Tag, qualified: bool = False) -> str:
    text = f"create or replace tag {_name(list(tag.parts), qualified)}"
    if tag.allowed_values is not None:
        text += " allowed_values " + ", ".join(map(_string, tag.allowed_values))
    return text + (f" comment={_string(tag.comment)};" if tag.comment else ";")


def policy_ddl(policy: Policy, qualified: bool = False) -> str:
    kind = "masking" if policy.kind == MASKING else "row access"
    name = _name(list(policy.parts), qualified)
    signature = ", ".join(f"{naming.quote(a)} {t}" for a, t in policy.signature)
    text = (
        f"create or replace {kind} policy {name} as ({signature}) returns {policy.returns} ->\n{policy.body}"
    )
    return text + (f"\ncomment={_string(policy.comment)};" if policy.comment else "\n;")


def sequence_ddl(sequence: Sequence, qualified: bool = False) -> str:
    name = _name([sequence.database, sequence.schema, sequence.name], qualified)
    start = sequence.start if sequence.start is not None else sequence.next_value
    text = f"create or replace sequence {name} start with {start} increment by {sequence.increment} noorder"
    return text + (f" comment={_string(sequence.comment)};" if sequence.comment else ";")


def _routine_ddl(tables: Tables, kind: str, name: str, ctx: SqlContext, qualified: bool) -> str:
    head, _, rest = name.partition("(")
    types = [t for t in (signature_type(t) for t in split_top_level(rest.rstrip().removesuffix(")"))) if t]
    ref = TableName(*qualify(table_parts(exp.to_table(head.strip(), dialect="snowflake")), ctx, "get_ddl"))
    found = [
        r
        for r in tables.routines.list(kind, ref.database, ref.schema, ref.name)
        if r.signature == ", ".join(types)
    ]
    if not found or not access.sees(tables, Securable("SCHEMA", ref.database, ref.schema)):
        raise object_not_found(kind.title(), f"{ref}({', '.join(types)})")
    return routine_ddl(found[0], qualified)


def routine_ddl(routine: Routine, qualified: bool = False) -> str:
    """CREATE OR REPLACE FUNCTION | PROCEDURE name(args) RETURNS ... LANGUAGE ... AS '<body>'."""
    name = _name([routine.database, routine.schema, routine.name], qualified)
    arguments = ", ".join(
        f"{naming.quote(n)} {t}" + (f" DEFAULT {d}" if d is not None else "") for n, t, d in routine.arguments
    )
    lines = [f"CREATE OR REPLACE {routine.kind} {name}({arguments})", f"RETURNS {routine.returns}"]
    if routine.strict:
        lines.append("RETURNS NULL ON NULL INPUT")
    lines.append(f"LANGUAGE {routine.language}")
    if routine.handler:
        lines.append(f"HANDLER = {_string(routine.handler)}")
    if routine.comment:
        lines.append(f"COMMENT = {_string(routine.comment)}")
    return "\n".join(lines) + f"\nAS {_string(routine.body)};"


def _after_name(text: str) -> str | None:
    """What follows the view name in CREATE ... VIEW <name> ...: a column list, a comment, AS ..."""
    try:
        tokens = Tokenizer().tokenize(text)
    except TokenError:  # an unreadable stored text falls back to the query
        return None
    for i, token in enumerate(tokens):
        if token.token_type == TokenType.VIEW:
            j = i + 1
            if j + 2 < len(tokens) and [t.text.upper() for t in tokens[j : j + 3]] == ["IF", "NOT", "EXISTS"]:
                j += 3
            while j + 1 < len(tokens) and tokens[j + 1].token_type == TokenType.DOT:
                j += 2  # a qualified name
            if j < len(tokens):
                return text[tokens[j].end + 1 :]
    return None


def schema_ddl(tables: Tables, database: str, schema: str, qualified: bool = False) -> str:
    statements = [f"create or replace schema {_name([database, schema], qualified)};"]
    statements += [tag_ddl(t, qualified) for t in tables.tags.list([(database, schema)])]  # tables name them
    for kind in (MASKING, ROW_ACCESS):  # before the tables that name them
        statements += [policy_ddl(p, qualified) for p in tables.policies.list(kind, [(database, schema)])]
    statements += [
        table_ddl(tables, TableName(database, schema, name), qualified)
        for name in tables.names(database, schema)
        if access.sees(tables, Securable("TABLE", database, schema, name))
    ]
    for name in tables.views.names(database, schema):
        if not access.sees(tables, Securable("VIEW", database, schema, name)):
            continue
        view = tables.views.get(database, schema, name)
        if view is not None:
            statements.append(view_ddl(view, qualified))
    statements += [sequence_ddl(s, qualified) for s in tables.sequences.list(database, schema)]
    for kind in (FUNCTION, PROCEDURE):
        statements += [routine_ddl(r, qualified) for r in tables.routines.list(kind, database, schema)]
    return "\n\n".join(statements)


def database_ddl(tables: Tables, database: str, qualified: bool = False) -> str:
    statements = [f"create or replace database {naming.quote(database)};"]
    for schema in tables.metastore.schema_names(database):
        if schema.upper() == "INFORMATION_SCHEMA" or not access.sees(
            tables, Securable("SCHEMA", database, schema)
        ):
            continue
        statements.append(schema_ddl(tables, database, schema, qualified))
    return "\n\n".join(statements)
