"""How Snowflake names are stored in Iceberg, in one place.

Snowflake folds unquoted identifiers to upper case (`orders` is `ORDERS`); Spark and pyiceberg
users write lower case without quotes. So a name with no lower-case letters (every unquoted name)
is stored in lower case, and any other name (a quoted mixed-case name such as "MyCol") is stored
exactly. Reading back inverts it: an all-lower-case stored name shows as upper case.

The one name this cannot keep apart is a quoted all-lower-case name ("orders") from its unquoted
twin (ORDERS): both are stored as `orders` and shown as ORDERS.
https://docs.snowflake.com/en/sql-reference/identifiers-syntax
"""

from __future__ import annotations

# A name `display` cannot give back (a quoted lower-case name such as SHOW's "name") travels beside
# its stored name in this Arrow field metadata key, where the engine keeps the field (result copies
# that RESULT_SCAN reads), so `SELECT *` names the column as it was.
EXACT = b"snowflake_name"


def stored(name: str) -> str:
    """Iceberg name of a Snowflake (already case-normalised) name."""
    return name.lower() if name == name.upper() else name


def display(name: str) -> str:
    """Snowflake name of an Iceberg name."""
    return name.upper() if name == name.lower() else name


def exact(name: str) -> dict[bytes, bytes]:
    """The field metadata that keeps `name` when its stored form would not give it back."""
    return {} if display(stored(name)) == name else {EXACT: name.encode()}


def quote(name: str) -> str:
    """A Snowflake name as an identifier that parses back to itself."""
    if (
        name
        and name == name.upper()
        and name.replace("_", "A").replace("$", "A").isalnum()
        and not name[0].isdigit()
    ):
        return name
    return '"' + name.replace('"', '""') + '"'
