"""Statements about external volumes, catalog integrations and the databases bound to them.

sqlglot falls back to an opaque Command for most of these (and keeps CREATE DATABASE's
properties as loose text), so they are parsed here from the statement text with a small, strict
parser of Snowflake's `KEY = value` property lists:

    CREATE [OR REPLACE] EXTERNAL VOLUME [IF NOT EXISTS] v
        STORAGE_LOCATIONS = ((NAME = 'a' STORAGE_PROVIDER = 'S3COMPAT'
                              STORAGE_BASE_URL = 's3://b/p' STORAGE_ENDPOINT = 'host:port'
                              CREDENTIALS = (AWS_KEY_ID = '..' AWS_SECRET_KEY = '..')))
        [ALLOW_WRITES = TRUE] [COMMENT = '...']
    CREATE [OR REPLACE] CATALOG INTEGRATION [IF NOT EXISTS] c
        CATALOG_SOURCE = ICEBERG_REST [TABLE_FORMAT = ICEBERG] [CATALOG_NAMESPACE = 'ns']
        REST_CONFIG = (CATALOG_URI = '...' [CATALOG_NAME = 'warehouse'] [PREFIX = '...'])
        REST_AUTHENTICATION = (TYPE = OAUTH OAUTH_CLIENT_ID = '..' OAUTH_CLIENT_SECRET = '..'
                               [OAUTH_TOKEN_URI = '..'] [OAUTH_ALLOWED_SCOPES = ('..')]
                               | TYPE = BEARER BEARER_TOKEN = '..')
        [ENABLED = TRUE] [COMMENT = '...']
    CREATE [OR REPLACE] DATABASE [IF NOT EXISTS] d
        { EXTERNAL_VOLUME = 'v' | LINKED_CATALOG = (CATALOG = 'c') | CATALOG = 'c' } [COMMENT = '...']
    SHOW {EXTERNAL VOLUMES | CATALOG INTEGRATIONS} [LIKE 'pattern']
    DESC[RIBE] {EXTERNAL VOLUME | CATALOG INTEGRATION} name
    DROP {EXTERNAL VOLUME | CATALOG INTEGRATION} [IF EXISTS] name

https://docs.snowflake.com/en/sql-reference/sql/create-external-volume
https://docs.snowflake.com/en/sql-reference/sql/create-catalog-integration-rest
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.errors import SyntaxError_, Unsupported

VOLUME = "EXTERNAL VOLUME"
INTEGRATION = "CATALOG INTEGRATION"

# Property values: text, a bare word (upper-cased: ICEBERG_REST, TRUE), a number, a nested
# property list, a list of property lists (STORAGE_LOCATIONS) or a list of plain values (scopes).
Value = str | int | dict[str, "Value"] | list["Value"]

# Keys whose values are secrets: masked wherever statement text is kept (query history, logs).
SECRET_KEYS = ("AWS_SECRET_KEY", "AWS_TOKEN", "OAUTH_CLIENT_SECRET", "BEARER_TOKEN")


@dataclass(frozen=True)
class CreateObject:
    """CREATE EXTERNAL VOLUME / CATALOG INTEGRATION, with its properties as written."""

    kind: str
    name: str
    properties: dict[str, Value] = field(repr=False)
    replace: bool = False
    if_not_exists: bool = False


@dataclass(frozen=True)
class CreateBoundDatabase:
    """CREATE DATABASE on an external volume or linked to a catalog integration."""

    name: str
    volume: str | None
    integration: str | None
    comment: str | None
    replace: bool = False
    if_not_exists: bool = False


@dataclass(frozen=True)
class ShowObjects:
    kind: str
    like: str | None = None


@dataclass(frozen=True)
class DescribeObject:
    kind: str
    name: str


@dataclass(frozen=True)
class DropObject:
    kind: str
    name: str
    if_exists: bool = False


CatalogStatement = CreateObject | CreateBoundDatabase | ShowObjects | DescribeObject | DropObject

# --- tokens ---------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s+|--[^\n]*|/\*.*?\*/
    |(?P<string>'(?:[^'\\]|''|\\.)*')
    |(?P<quoted>"(?:[^"]|"")*")
    |(?P<word>[A-Za-z_][A-Za-z0-9_$]*)
    |(?P<number>\d+)
    |(?P<punct>[()=,;.])""",
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class _Token:
    kind: str  # string | quoted | word | number | punct
    text: str
    position: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


def property_tokens(text: str) -> list[_Token]:
    found, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise SyntaxError_(f"syntax error line 1 at position {pos} unexpected '{text[pos]}'.")
        if match.lastgroup:
            found.append(_Token(match.lastgroup, match.group(match.lastgroup), pos))
        pos = match.end()
    while found and found[-1].text == ";":
        found.pop()
    return found


def _unquote(token: _Token) -> str:
    if token.kind == "string":
        body = token.text[1:-1]
        return re.sub(r"''|\\(.)", lambda m: m.group(1) if m.group(1) is not None else "'", body)
    if token.kind == "quoted":
        return token.text[1:-1].replace('""', '"')
    return token.text


class PropertyParser:
    """Reads Snowflake's `KEY = value` property lists (and the words around them) token by token."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self, ahead: int = 0) -> _Token | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def error(self) -> SyntaxError_:
        token = self.peek()
        where = token.position if token else 0
        return SyntaxError_(
            f"syntax error line 1 at position {where} unexpected '{token.text if token else '<EOF>'}'."
        )

    def accept(self, *words: str) -> bool:
        """Consumes the words if the next tokens are exactly them."""
        for k, word in enumerate(words):
            token = self.peek(k)
            if token is None or (token.upper or token.text) != word:
                return False
        self.i += len(words)
        return True

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise self.error()

    def identifier(self) -> str:
        """An object name: unquoted names are stored upper-case, quoted ones as written."""
        token = self.peek()
        if token is None or token.kind not in ("word", "quoted"):
            raise self.error()
        self.i += 1
        return token.text.upper() if token.kind == "word" else _unquote(token)

    def end(self) -> None:
        if self.peek() is not None:
            raise self.error()

    def properties(self, closing: str | None = None) -> dict[str, Value]:
        """`KEY = value` pairs up to `closing` (or the end); commas between pairs are allowed."""
        found: dict[str, Value] = {}
        while (token := self.peek()) is not None and token.text != closing:
            if token.text == ",":
                self.i += 1
                continue
            if token.kind != "word":
                raise self.error()
            self.i += 1
            self.expect("=")
            key = token.upper
            if key in found:
                raise SyntaxError_(f"duplicate property {key}")
            found[key] = self.value()
        return found

    def value(self) -> Value:
        token = self.peek()
        if token is None:
            raise self.error()
        self.i += 1
        if token.kind in ("string", "quoted"):
            return _unquote(token)
        if token.kind == "word":
            return token.upper
        if token.kind == "number":
            return int(token.text)
        if token.text != "(":
            self.i -= 1
            raise self.error()
        nxt, after = self.peek(), self.peek(1)
        if nxt is not None and nxt.kind == "word" and after is not None and after.text == "=":
            nested = self.properties(")")
            self.expect(")")
            return nested
        items: list[Value] = []
        while (token := self.peek()) is not None and token.text != ")":
            if token.text == ",":
                self.i += 1
                continue
            items.append(self.value())
        self.expect(")")
        return items


# --- statements -----------------------------------------------------------------------------------


def _kind(parser: PropertyParser, plural: bool = False) -> str | None:
    suffix = "S" if plural else ""
    if parser.accept("EXTERNAL", "VOLUME" + suffix):
        return VOLUME
    if parser.accept("CATALOG", "INTEGRATION" + suffix):
        return INTEGRATION
    return None


_OTHER_DATABASE = re.compile(r"\s*CREATE\s+(OR\s+REPLACE\s+)?(TRANSIENT\s+)?DATABASE\b", re.IGNORECASE)


def parse_statement(text: str) -> CatalogStatement | None:
    """The statement, if it is one of this module's; None for any other statement.

    Raises:
        SyntaxError_: one of these statements, written wrongly.
        Unsupported: a CREATE DATABASE mixing an external binding with other options.
    """
    try:
        tokens = property_tokens(text)
    except SyntaxError_:
        if _OTHER_DATABASE.match(text):
            return None  # CREATE DATABASE ... CLONE x AT(TIMESTAMP => ...) and such: not ours
        raise
    parser = PropertyParser(tokens)
    if parser.accept("SHOW"):
        kind = _kind(parser, plural=True)
        if kind is None:
            return None
        like = None
        if parser.accept("LIKE"):
            token = parser.peek()
            if token is None or token.kind != "string":
                raise parser.error()
            parser.i += 1
            like = _unquote(token)
        parser.end()
        return ShowObjects(kind, like)
    if parser.accept("DESC") or parser.accept("DESCRIBE"):
        kind = _kind(parser)
        if kind is None:
            return None
        name = parser.identifier()
        parser.end()
        return DescribeObject(kind, name)
    if parser.accept("DROP"):
        kind = _kind(parser)
        if kind is None:
            return None
        if_exists = parser.accept("IF", "EXISTS")
        name = parser.identifier()
        parser.end()
        return DropObject(kind, name, if_exists)
    if not parser.accept("CREATE"):
        return None
    replace = parser.accept("OR", "REPLACE")
    if parser.accept("DATABASE"):
        return _create_database(parser, replace)
    kind = _kind(parser)
    if kind is None:
        return None
    if_not_exists = parser.accept("IF", "NOT", "EXISTS")
    name = parser.identifier()
    properties = parser.properties()
    parser.end()
    return CreateObject(kind, name, properties, replace, if_not_exists)


def _create_database(parser: PropertyParser, replace: bool) -> CreateBoundDatabase | None:
    if_not_exists = parser.accept("IF", "NOT", "EXISTS")
    try:
        name = parser.identifier()
        properties = parser.properties()
        parser.end()
    except SyntaxError_:
        return None  # some other CREATE DATABASE form: not ours
    volume = properties.pop("EXTERNAL_VOLUME", None)
    linked = properties.pop("LINKED_CATALOG", None)
    integration = properties.pop("CATALOG", None)
    if volume is None and linked is None and integration is None:
        return None
    if isinstance(linked, dict):
        integration = linked.pop("CATALOG", None)
        if linked:
            raise Unsupported(f"LINKED_CATALOG option {sorted(linked)[0]} is not supported.")
    elif linked is not None:
        raise SyntaxError_("LINKED_CATALOG expects a list of options: LINKED_CATALOG = (CATALOG = '...')")
    comment = properties.pop("COMMENT", None)
    if properties:
        raise Unsupported(
            f"CREATE DATABASE option {sorted(properties)[0]} is not supported with an external "
            "catalog or volume."
        )
    if volume is not None and integration is not None:
        raise Unsupported(
            "A database cannot be both on an external volume and linked to a catalog integration."
        )
    for option, value in (("EXTERNAL_VOLUME", volume), ("CATALOG", integration), ("COMMENT", comment)):
        if value is not None and not isinstance(value, str):
            raise SyntaxError_(f"{option} expects a name")
    return CreateBoundDatabase(
        name,
        _object_name(volume),  # type: ignore[arg-type]
        _object_name(integration),  # type: ignore[arg-type]
        comment,  # type: ignore[arg-type]
        replace,
        if_not_exists,
    )


def _object_name(value: str | None) -> str | None:
    """Names given as text ('v') follow identifier rules: plain names are upper-cased."""
    if value is None:
        return None
    return value.upper() if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", value) else value


def statement_of(tree: exp.Expression) -> CatalogStatement | None:
    """This module's statement in a parsed tree (sqlglot's Command, Create or Describe), or None."""
    if isinstance(tree, exp.Create):
        if str(tree.args.get("kind") or "").upper() != "DATABASE" or tree.args.get("properties") is None:
            return None
    elif isinstance(tree, exp.Describe):
        if str(tree.args.get("kind") or "").upper() not in ("VOLUME", "INTEGRATION"):
            return None
    elif isinstance(tree, exp.Command):
        head = f"{tree.this} {tree.expression if isinstance(tree.expression, str) else ''}".upper()
        if not re.search(r"\b(EXTERNAL\s+VOLUMES?|CATALOG\s+INTEGRATIONS?)\b", head):
            return None
    else:
        return None
    return parse_statement(tree.sql(dialect="snowflake"))


_SECRET = re.compile(r"(\b(?:" + "|".join(SECRET_KEYS) + r")\s*=\s*)'(?:[^'\\]|''|\\.)*'", re.IGNORECASE)


def redact(text: str) -> str:
    """The statement text with every secret property value masked (for history and logs)."""
    return _SECRET.sub(r"\1'****'", text)
