"""Declared (informational) constraints of a table, kept as JSON in one Iceberg table property.

Iceberg has identifier fields but no UNIQUE or FOREIGN KEY, so all three kinds live in
`embucket.constraints`: a list of {name, type, columns, references, referenced_columns}.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from pyiceberg.table import Table

CONSTRAINTS_PROPERTY = "embucket.constraints"


@dataclass(frozen=True)
class Key:
    """One constraint: PRIMARY KEY, UNIQUE or FOREIGN KEY (with the table it references)."""

    name: str
    type: str
    columns: list[str]
    references: list[str] | None = None  # [database, schema, table] of a FOREIGN KEY
    referenced_columns: list[str] = field(default_factory=list)


def keys_of(table: Table) -> list[Key]:
    return [Key(**k) for k in json.loads(table.properties.get(CONSTRAINTS_PROPERTY, "[]"))]


def set_keys(table: Table, keys: list[Key]) -> None:
    """Records a table's constraints (one metadata commit)."""
    with table.transaction() as tx:
        tx.set_properties({CONSTRAINTS_PROPERTY: json.dumps([asdict(k) for k in keys])})
