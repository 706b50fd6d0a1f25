"""Warehouse statements -> plain descriptions:

    CREATE [OR REPLACE] WAREHOUSE [IF NOT EXISTS] name [WITH] [KEY = value ...]
    ALTER WAREHOUSE [IF EXISTS] [name] { SUSPEND | RESUME [IF SUSPENDED] | ABORT ALL QUERIES
                                       | RENAME TO new | SET KEY = value ... | UNSET KEY, ... }
    DROP WAREHOUSE [IF EXISTS] name
    DESC[RIBE] WAREHOUSE name

sqlglot reads ALTER WAREHOUSE as an opaque Command; every form is read here from the statement
text with the property-list parser of catalogs.py.
https://docs.snowflake.com/en/sql-reference/sql/create-warehouse
https://docs.snowflake.com/en/sql-reference/sql/alter-warehouse
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from embucket_py.errors import SqlCompilationError
from embucket_py.sql.catalogs import PropertyParser, Value, property_tokens

# The properties a warehouse takes, with the value each has when not given.
DEFAULTS: dict[str, Value] = {
    "WAREHOUSE_TYPE": "STANDARD",
    "WAREHOUSE_SIZE": "X-Small",
    "MAX_CLUSTER_COUNT": 1,
    "MIN_CLUSTER_COUNT": 1,
    "SCALING_POLICY": "STANDARD",
    "AUTO_SUSPEND": 600,
    "AUTO_RESUME": "true",
    "RESOURCE_MONITOR": "null",
    "ENABLE_QUERY_ACCELERATION": "false",
    "QUERY_ACCELERATION_MAX_SCALE_FACTOR": 8,
    "MAX_CONCURRENCY_LEVEL": 8,
    "STATEMENT_QUEUED_TIMEOUT_IN_SECONDS": 0,
    "STATEMENT_TIMEOUT_IN_SECONDS": 172800,
}
# Given only at CREATE (and not kept as a property).
_CREATE_ONLY = ("INITIALLY_SUSPENDED", "COMMENT")
_BOOLEANS = ("AUTO_RESUME", "ENABLE_QUERY_ACCELERATION", "INITIALLY_SUSPENDED")
_NUMBERS = (
    "MAX_CLUSTER_COUNT",
    "MIN_CLUSTER_COUNT",
    "AUTO_SUSPEND",
    "QUERY_ACCELERATION_MAX_SCALE_FACTOR",
    "MAX_CONCURRENCY_LEVEL",
    "STATEMENT_QUEUED_TIMEOUT_IN_SECONDS",
    "STATEMENT_TIMEOUT_IN_SECONDS",
)
# Size spellings -> the size as SHOW WAREHOUSES prints it.
_SIZES = {
    **{s: "X-Small" for s in ("XSMALL", "X-SMALL")},
    "SMALL": "Small",
    "MEDIUM": "Medium",
    "LARGE": "Large",
    **{s: "X-Large" for s in ("XLARGE", "X-LARGE")},
    **{s: "2X-Large" for s in ("XXLARGE", "X2LARGE", "2X-LARGE")},
    **{s: "3X-Large" for s in ("XXXLARGE", "X3LARGE", "3X-LARGE")},
    **{f"X{n}LARGE": f"{n}X-Large" for n in (4, 5, 6)},
    **{f"{n}X-LARGE": f"{n}X-Large" for n in (4, 5, 6)},
}
_TYPES = {"STANDARD": "STANDARD", "SNOWPARK-OPTIMIZED": "SNOWPARK-OPTIMIZED"}


@dataclass(frozen=True)
class WarehouseStatement:
    action: str  # CREATE | ALTER | DROP | DESCRIBE
    name: str | None  # None: ALTER WAREHOUSE without a name (the session's warehouse)
    properties: dict[str, Value] = field(default_factory=dict)  # CREATE, ALTER ... SET
    unset: tuple[str, ...] = ()
    operation: str | None = None  # ALTER: SUSPEND | RESUME | ABORT | RENAME | SET | UNSET
    rename: str | None = None
    if_suspended: bool = False  # RESUME IF SUSPENDED
    replace: bool = False
    if_exists: bool = False  # IF NOT EXISTS for CREATE


def warehouse_statement(tree: exp.Expression) -> WarehouseStatement | None:
    """The warehouse statement `tree` is, or None.

    Raises:
        SyntaxError_: a malformed statement.
        SqlCompilationError: an unknown property or an invalid value.
    """
    if isinstance(tree, exp.Command):
        words = f"{tree.this} {tree.expression if isinstance(tree.expression, str) else ''}".split()
        if [w.upper() for w in words[:2]] != ["ALTER", "WAREHOUSE"]:
            return None
    elif not isinstance(tree, exp.Create | exp.Drop | exp.Describe) or (
        str(tree.args.get("kind") or "").upper() != "WAREHOUSE"
    ):
        return None
    parser = PropertyParser(property_tokens(tree.sql(dialect="snowflake")))
    if parser.accept("CREATE"):
        replace = parser.accept("OR", "REPLACE")
        parser.expect("WAREHOUSE")
        if_not_exists = parser.accept("IF", "NOT", "EXISTS")
        name = parser.identifier()
        parser.accept("WITH")
        properties = _checked(parser.properties(), create=True)
        return WarehouseStatement("CREATE", name, properties, replace=replace, if_exists=if_not_exists)
    if parser.accept("DROP", "WAREHOUSE"):
        if_exists = parser.accept("IF", "EXISTS")
        name = parser.identifier()
        parser.end()
        return WarehouseStatement("DROP", name, if_exists=if_exists)
    if parser.accept("DESCRIBE") or parser.accept("DESC"):
        parser.expect("WAREHOUSE")
        name = parser.identifier()
        parser.end()
        return WarehouseStatement("DESCRIBE", name)
    parser.expect("ALTER", "WAREHOUSE")
    return _alter(parser)


_OPERATIONS = ("SUSPEND", "RESUME", "ABORT", "RENAME", "SET", "UNSET")


def _alter(parser: PropertyParser) -> WarehouseStatement:
    if_exists = parser.accept("IF", "EXISTS")
    token = parser.peek()
    name = None if token is not None and token.upper in _OPERATIONS else parser.identifier()
    properties: dict[str, Value] = {}
    unset: list[str] = []
    rename, if_suspended = None, False
    if parser.accept("SUSPEND"):
        operation = "SUSPEND"
    elif parser.accept("RESUME"):
        operation, if_suspended = "RESUME", parser.accept("IF", "SUSPENDED")
    elif parser.accept("ABORT", "ALL", "QUERIES"):
        operation = "ABORT"
    elif parser.accept("RENAME", "TO"):
        operation, rename = "RENAME", parser.identifier()
    elif parser.accept("SET"):
        operation, properties = "SET", _checked(parser.properties(), create=False)
    elif parser.accept("UNSET"):
        operation = "UNSET"
        while (token := parser.peek()) is not None:
            parser.i += 1
            if token.text != ",":
                unset.append(token.upper or token.text)
        _checked(dict.fromkeys(unset, ""), create=False, values=False)
    else:
        raise parser.error()
    parser.end()
    return WarehouseStatement(
        "ALTER", name, properties, tuple(unset), operation, rename, if_suspended, if_exists=if_exists
    )


def _checked(properties: dict[str, Value], *, create: bool, values: bool = True) -> dict[str, Value]:
    """Properties with their values in the form SHOW WAREHOUSES prints.

    Raises:
        SqlCompilationError: an unknown property, or a value it cannot take.
    """
    known = (*DEFAULTS, *(_CREATE_ONLY if create else ("COMMENT",)))
    checked: dict[str, Value] = {}
    for key, value in properties.items():
        if key not in known:
            raise SqlCompilationError(f"invalid property '{key}' for 'WAREHOUSE'")
        if not values:
            continue
        text = str(value).upper()
        if key == "WAREHOUSE_SIZE":
            value = _SIZES.get(text) or _invalid(key, value)
        elif key == "WAREHOUSE_TYPE":
            value = _TYPES.get(text) or _invalid(key, value)
        elif key in _BOOLEANS:
            value = {"TRUE": "true", "FALSE": "false"}.get(text) or _invalid(key, value)
        elif key in _NUMBERS:
            value = value if isinstance(value, int) else _invalid(key, value)
        checked[key] = value
    return checked


def _invalid(key: str, value: Value) -> str:
    raise SqlCompilationError(f"invalid value '{value}' for property '{key}'")
