"""Stage, file-format, PUT/GET/LIST/REMOVE and COPY statements -> plain definitions.

sqlglot parses PUT, LIST, COPY and CREATE STAGE / FILE FORMAT; GET, REMOVE/RM and ALTER FILE
FORMAT fall back to `exp.Command`, whose text is read here with a small option scanner.
https://docs.snowflake.com/en/sql-reference/commands-data-loading
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from embucket_py.errors import SyntaxError_, Unsupported
from embucket_py.sql.context import SqlContext
from embucket_py.sql.names import normalize, qualify, table_parts

Options = dict[str, Any]


@dataclass(frozen=True)
class StageLocation:
    """`@~/path`, `@%table/path` or `@[db.][schema.]stage/path`, names case-normalised."""

    kind: str  # USER TABLE NAMED
    parts: list[str]  # [] for USER; [db, schema, name] for TABLE and NAMED (qualified)
    path: str  # below the stage root, no leading '/'

    def child(self, name: str) -> StageLocation:
        return StageLocation(self.kind, self.parts, f"{self.path.rstrip('/')}/{name}".lstrip("/"))


@dataclass(frozen=True)
class StageDef:
    """CREATE [OR REPLACE] [TEMPORARY] STAGE."""

    parts: list[str]
    replace: bool
    if_not_exists: bool
    temporary: bool
    url: str | None
    credentials: Options
    endpoint: str | None
    file_format: Options
    comment: str | None


@dataclass(frozen=True)
class FileFormatDef:
    """CREATE / ALTER FILE FORMAT."""

    parts: list[str]
    options: Options
    replace: bool = False
    if_not_exists: bool = False
    temporary: bool = False
    comment: str | None = None
    alter: bool = False
    rename_to: list[str] | None = None
    if_exists: bool = False


@dataclass(frozen=True)
class ObjectRef:
    """DROP / DESCRIBE of a stage or file format."""

    kind: str  # STAGE, FILE FORMAT
    parts: list[str]
    if_exists: bool = False


@dataclass(frozen=True)
class PutDef:
    source: str  # local path as written (file:// removed); may hold a glob
    target: StageLocation
    options: Options


@dataclass(frozen=True)
class GetDef:
    source: StageLocation
    target: str  # local directory
    options: Options


@dataclass(frozen=True)
class ListDef:
    location: StageLocation
    pattern: str | None
    remove: bool = False


@dataclass(frozen=True)
class CopyLoadDef:
    """COPY INTO <table> FROM <location> | (SELECT ... FROM <location>)."""

    table: list[str]
    columns: list[str] | None
    source: StageLocation | None
    url: str | None  # COPY INTO t FROM 's3://...' / 'file://...'
    query: exp.Select | None  # the transformation, with the stage reference in FROM
    options: Options
    credentials: Options = field(default_factory=dict)


@dataclass(frozen=True)
class CopyUnloadDef:
    """COPY INTO <location> FROM <table> | (<query>)."""

    target: StageLocation | None
    url: str | None
    query: exp.Expression  # a SELECT (a table becomes SELECT * FROM table)
    options: Options
    partition_by: exp.Expression | None
    credentials: Options = field(default_factory=dict)


# --- stage locations -----------------------------------------------------------------------------


def _split_name(text: str) -> tuple[str, str]:
    """'db.s."St"/a/b' -> ('db.s."St"', 'a/b'): the first '/' outside double quotes ends the name."""
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == "/" and not quoted:
            return text[:i], text[i + 1 :]
    return text, ""


def _name_parts(text: str) -> list[str]:
    parts, current, quoted, was_quoted = [], "", False, False
    for ch in text:
        if ch == '"':
            quoted = not quoted
            was_quoted = True
        elif ch == "." and not quoted:
            parts.append(current if was_quoted else current.upper())
            current, was_quoted = "", False
        else:
            current += ch
    parts.append(current if was_quoted else current.upper())
    return parts


def stage_location(text: str, ctx: SqlContext) -> StageLocation:
    """Parses a stage reference such as `@~/a`, `@%t`, `@db.s.st/p/` (optionally in quotes).

    Raises:
        SyntaxError_: not a stage reference.
    """
    text = text.strip()
    if len(text) >= 2 and text[0] == "'" and text[-1] == "'":
        text = text[1:-1]
    if not text.startswith("@"):
        raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{text}'.")
    name, path = _split_name(text[1:])
    path = path.lstrip("/")
    if name == "~":
        return StageLocation("USER", [], path)
    table = False
    if "%" in name:
        table = True
        name = name.replace("%", "", 1)
    parts = _name_parts(name)
    if len(parts) > 3 or not parts[-1]:
        raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{text}'.")
    padded: list[exp.Identifier | None] = [None] * (3 - len(parts)) + [
        exp.to_identifier(p, quoted=True) for p in parts
    ]
    qualified = qualify(padded, ctx, "stage operation")
    return StageLocation("TABLE" if table else "NAMED", qualified, path)


def is_stage_text(text: str) -> bool:
    text = text.strip().strip("'")
    return text.startswith("@")


# --- options -------------------------------------------------------------------------------------


def _value(node: exp.Expression | None) -> Any:
    if node is None:
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else _number(node.this)
    if isinstance(node, exp.Tuple | exp.Array):
        return [_value(e) for e in node.expressions]
    if isinstance(node, exp.Paren):
        inner = _value(node.this)
        return inner if isinstance(inner, list) else [inner]
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Table | exp.Column):
        return (
            ".".join(normalize(p) for p in table_parts(node) if p is not None)
            if isinstance(node, exp.Table)
            else node.sql(dialect="snowflake")
        )
    if isinstance(node, exp.Identifier):
        return normalize(node)
    if isinstance(node, exp.Var):
        return node.name
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return -_number(node.this.this)
    return node.sql(dialect="snowflake")


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def properties_options(props: list[exp.Expression]) -> Options:
    """KEY = value pairs (sqlglot Property / CopyParameter nodes) -> {KEY: python value}."""
    options: Options = {}
    for prop in props:
        if isinstance(prop, exp.FileFormatProperty):
            options["FILE_FORMAT"] = properties_options(prop.expressions)
        elif isinstance(prop, exp.CredentialsProperty):
            options["CREDENTIALS"] = properties_options(prop.expressions)
        elif isinstance(prop, exp.CopyParameter):
            key = prop.name.upper()
            if prop.expressions:
                options[key] = properties_options(prop.expressions)
            elif key == "PARTITION BY":
                options[key] = prop.args.get("expression")
            else:
                options[key] = _value(prop.args.get("expression"))
        elif isinstance(prop, exp.SchemaCommentProperty):
            options["COMMENT"] = _value(prop.this)
        elif isinstance(prop, exp.TemporaryProperty):
            options["TEMPORARY"] = True
        elif isinstance(prop, exp.Property):
            options[prop.name.upper()] = _value(prop.args.get("value"))
    return options


_OPTION = re.compile(
    r"""\s*(?:(?P<key>[A-Za-z_]+)\s*=\s*(?P<value>'(?:[^'\\]|\\.|'')*'|\([^)]*\)|[^\s]+)|(?P<word>'(?:[^'\\]|\\.|'')*'|\S+))"""
)


def _scan(text: str) -> tuple[list[str], Options]:
    """Positional words and KEY=value options of a command the parser left as text."""
    words: list[str] = []
    options: Options = {}
    for m in _OPTION.finditer(text):
        if m.group("key"):
            raw = m.group("value")
            options[m.group("key").upper()] = _scalar(raw)
        elif m.group("word"):
            words.append(m.group("word"))
    return words, options


def _scalar(raw: str) -> Any:
    if raw.startswith("'"):
        return raw[1:-1].replace("''", "'")
    if raw.startswith("("):
        return [_scalar(p.strip()) for p in re.findall(r"'(?:[^']|'')*'|[^,\s]+", raw[1:-1])]
    if raw.upper() in ("TRUE", "FALSE"):
        return raw.upper() == "TRUE"
    try:
        return _number(raw)
    except ValueError:
        return raw


def _local_path(text: str) -> str:
    text = text.strip().strip("'")
    if not text.lower().startswith("file://"):
        raise SyntaxError_(f"syntax error line 1 at position 0 unexpected '{text}'.")
    return text[len("file://") :]


# --- statements ----------------------------------------------------------------------------------


def object_parts(target: exp.Expression | None, ctx: SqlContext, what: str) -> list[str]:
    if isinstance(target, exp.Table) and isinstance(target.this, exp.Identifier):
        return qualify(table_parts(target), ctx, what)
    if isinstance(target, exp.Table) and (literal := target.find(exp.Literal)) is not None:
        # IDENTIFIER(?) / IDENTIFIER('"name"') once the bind is substituted
        return stage_location("@" + literal.name, ctx).parts
    raise Unsupported(f"Unsupported object name '{target.sql(dialect='snowflake') if target else ''}'.")


def is_stage_statement(tree: exp.Expression) -> bool:
    """Whether the statement belongs to stages, file formats or COPY."""
    if isinstance(tree, exp.Put | exp.Get | exp.ListStage | exp.Copy):
        return True
    if isinstance(tree, exp.Create) and using_template(tree) is not None:
        return True
    if isinstance(tree, exp.Create | exp.Drop | exp.Describe):
        return str(tree.args.get("kind") or "").upper() in ("STAGE", "FILE FORMAT")
    if isinstance(tree, exp.Show):
        return tree.name.upper() in ("STAGES", "FILE FORMATS")
    if isinstance(tree, exp.Command):
        head = tree.name.upper()
        rest = command_text(tree).strip().upper()
        return head in ("GET", "REMOVE", "RM") or (head == "ALTER" and rest.startswith("FILE FORMAT"))
    return False


def using_template(tree: exp.Create) -> exp.Anonymous | None:
    """CREATE TABLE ... USING TEMPLATE (SELECT ... FROM TABLE(INFER_SCHEMA(...))): the call."""
    props = tree.args.get("properties")
    for prop in props.expressions if props else []:
        if isinstance(prop, exp.UsingTemplateProperty):
            for call in prop.find_all(exp.Anonymous):
                if call.name.upper() == "INFER_SCHEMA":
                    return call
    return None


def command_text(tree: exp.Command) -> str:
    """The text after a command's first word, as written."""
    rest = tree.expression
    if isinstance(rest, exp.Literal):
        return rest.name
    return str(rest or "")


def stage_def(tree: exp.Create, ctx: SqlContext) -> StageDef:
    options = properties_options(tree.args["properties"].expressions if tree.args.get("properties") else [])
    return StageDef(
        parts=object_parts(tree.this, ctx, "create stage"),
        replace=bool(tree.args.get("replace")),
        if_not_exists=bool(tree.args.get("exists")),
        temporary=bool(options.get("TEMPORARY")),
        url=options.get("URL"),
        credentials=options.get("CREDENTIALS") or {},
        endpoint=options.get("ENDPOINT"),
        file_format=options.get("FILE_FORMAT") or {},
        comment=options.get("COMMENT"),
    )


def file_format_def(tree: exp.Create, ctx: SqlContext) -> FileFormatDef:
    options = properties_options(tree.args["properties"].expressions if tree.args.get("properties") else [])
    temporary = bool(options.pop("TEMPORARY", False))
    comment = options.pop("COMMENT", None)
    return FileFormatDef(
        parts=object_parts(tree.this, ctx, "create file format"),
        options=options,
        replace=bool(tree.args.get("replace")),
        if_not_exists=bool(tree.args.get("exists")),
        temporary=temporary,
        comment=comment,
    )


def alter_file_format_def(text: str, ctx: SqlContext) -> FileFormatDef:
    """ALTER FILE FORMAT [IF EXISTS] name SET opt = v ... | RENAME TO new."""
    words, options = _scan(re.sub(r"(?i)^\s*FILE\s+FORMAT\s+", "", text))
    if_exists = len(words) >= 2 and [w.upper() for w in words[:2]] == ["IF", "EXISTS"]
    if if_exists:
        words = words[2:]
    if not words:
        raise SyntaxError_("syntax error line 1 at position 0 unexpected '<EOF>'.")
    parts = object_parts(exp.to_table(words[0], dialect="snowflake"), ctx, "alter file format")
    rest = [w.upper() for w in words[1:]]
    if rest[:2] == ["RENAME", "TO"] and len(words) >= 4:
        to = object_parts(exp.to_table(words[3], dialect="snowflake"), ctx, "alter file format")
        return FileFormatDef(parts, {}, alter=True, rename_to=to, if_exists=if_exists)
    if rest[:1] != ["SET"]:
        raise Unsupported(f"ALTER FILE FORMAT {' '.join(words[1:3])} is not supported.")
    comment = options.pop("COMMENT", None)
    return FileFormatDef(parts, options, alter=True, comment=comment, if_exists=if_exists)


def object_ref(tree: exp.Drop | exp.Describe, ctx: SqlContext) -> ObjectRef:
    kind = str(tree.args.get("kind")).upper()
    targets = (tree.args.get("tables") or tree.expressions) if isinstance(tree, exp.Drop) else None
    target = targets[0] if targets else tree.this
    return ObjectRef(
        kind, object_parts(target, ctx, f"{kind.lower()} operation"), bool(tree.args.get("exists"))
    )


def put_def(tree: exp.Put, ctx: SqlContext) -> PutDef:
    props = tree.args.get("properties")
    options = properties_options(props.expressions if props else [])
    target = tree.args["target"]
    return PutDef(_local_path(tree.this.name), stage_location(_text(target), ctx), options)


def _text(node: exp.Expression) -> str:
    if isinstance(node, exp.Literal):
        return node.this
    if isinstance(node, exp.Var):
        return node.this
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Var | exp.Literal):
        return node.this.this
    return node.sql(dialect="snowflake")


def get_def(text: str, ctx: SqlContext) -> GetDef:
    words, options = _scan(text)
    if len(words) < 2:
        raise SyntaxError_("syntax error line 1 at position 4 unexpected '<EOF>'.")
    return GetDef(stage_location(words[0], ctx), _local_path(words[1]), options)


def get_tree_def(tree: exp.Get, ctx: SqlContext) -> GetDef:
    props = tree.args.get("properties")
    options = properties_options(props.expressions if props else [])
    return GetDef(stage_location(_text(tree.args["target"]), ctx), _local_path(tree.this.name), options)


def list_def(tree: exp.ListStage, ctx: SqlContext) -> ListDef:
    pattern = tree.args.get("pattern")
    return ListDef(stage_location(_text(tree.this), ctx), pattern.name if pattern is not None else None)


def remove_def(text: str, ctx: SqlContext) -> ListDef:
    words, options = _scan(text)
    if not words:
        raise SyntaxError_("syntax error line 1 at position 0 unexpected '<EOF>'.")
    pattern = options.get("PATTERN")
    return ListDef(stage_location(words[0], ctx), str(pattern) if pattern is not None else None, remove=True)


def _location_or_url(node: exp.Expression, ctx: SqlContext) -> tuple[StageLocation | None, str | None]:
    text = _text(node)
    if text.startswith("@"):
        return stage_location(text, ctx), None
    if re.match(r"(?i)^(s3|file)://", text):
        return None, text
    raise Unsupported(f"COPY location '{text}' is not supported.")


def _credentials(tree: exp.Copy) -> Options:
    creds = tree.args.get("credentials")
    if creds is None:
        return {}
    return properties_options(creds.args.get("credentials") or [])


def copy_def(tree: exp.Copy, ctx: SqlContext) -> CopyLoadDef | CopyUnloadDef:
    options = properties_options(tree.args.get("params") or [])
    target = tree.this
    source = (tree.args.get("files") or [None])[0]
    if source is None:
        raise SyntaxError_("syntax error line 1 at position 0 unexpected '<EOF>'.")
    target_table = target.this if isinstance(target, exp.Schema) else target
    if isinstance(target_table, exp.Table) and isinstance(target_table.this, exp.Var | exp.Literal):
        # COPY INTO @stage | 's3://...' FROM ...: unload
        location, url = _location_or_url(target_table, ctx)
        if isinstance(source, exp.Subquery):
            query: exp.Expression = source.this
        elif isinstance(source, exp.Table):
            query = exp.select("*").from_(source.copy())
        else:
            raise Unsupported("COPY INTO <location> needs a table or a query.")
        partition = options.pop("PARTITION BY", None)
        return CopyUnloadDef(location, url, query, options, partition, _credentials(tree))
    table = qualify(table_parts(target_table), ctx, "copy")
    columns = [normalize(c) for c in target.expressions] if isinstance(target, exp.Schema) else None
    if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Select):
        select = source.this
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is None or not isinstance(from_.this, exp.Table):
            raise Unsupported("COPY transformations must select FROM a stage.")
        location, url = _location_or_url(from_.this, ctx)
        return CopyLoadDef(table, columns, location, url, select, options, _credentials(tree))
    location, url = _location_or_url(source, ctx)
    return CopyLoadDef(table, columns, location, url, None, options, _credentials(tree))


_UNQUOTED_LOCAL = re.compile(r"(?i)^(\s*(?:PUT|GET)\s+(?:\S+\s+)?)(file://[^\s']+)")


def quote_local_paths(text: str) -> str:
    """PUT/GET name local files unquoted (`PUT file:///tmp/*.csv @s`), which would not tokenize
    (`/*` opens a comment): quote them first."""
    return _UNQUOTED_LOCAL.sub(lambda m: f"{m.group(1)}'{m.group(2)}'", text, count=1)


def put_placeholder(tree: exp.Expression) -> exp.Expression:
    """`PUT file://... ?` (connector 4.x uploads this way): sqlglot reads the `?` target as a word;
    make it a bind placeholder like any other."""
    target = tree.args.get("target") if isinstance(tree, exp.Put) else None
    if isinstance(target, exp.Var) and target.this == "?":
        tree.set("target", exp.Placeholder())
    return tree


# COPY options this server implements, and options it accepts only at their default value.
# https://docs.snowflake.com/en/sql-reference/sql/copy-into-table#copy-options-copyoptions
LOAD_OPTIONS = {"FILES", "PATTERN", "FILE_FORMAT", "ON_ERROR", "FORCE", "PURGE", "VALIDATION_MODE",
                "MATCH_BY_COLUMN_NAME", "ENDPOINT", "TRUNCATECOLUMNS", "ENFORCE_LENGTH"}  # fmt: skip
LOAD_DEFAULTS = {"LOAD_UNCERTAIN_FILES": False, "RETURN_FAILED_ONLY": False}
UNLOAD_OPTIONS = {"FILE_FORMAT", "SINGLE", "MAX_FILE_SIZE", "HEADER", "OVERWRITE"}
UNLOAD_DEFAULTS = {"DETAILED_OUTPUT": False, "INCLUDE_QUERY_ID": False}


def check_options(options: Options, supported: set[str], defaults: dict[str, Any], what: str) -> None:
    """Raises Unsupported for an option that would change the answer and is not implemented."""
    for key, value in options.items():
        if key in supported:
            continue
        if key in defaults and value == defaults[key]:
            continue
        raise Unsupported(f"{what} option {key} is not supported.")
