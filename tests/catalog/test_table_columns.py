"""A table's columns and Arrow schema, read once per metadata file and again after a change."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.types import StringType

from embucket_py.catalog.tables import Tables


def test_columns_are_read_once_per_metadata_and_again_after_a_change(tmp_path: Path) -> None:
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=tmp_path.as_uri())
    catalog.create_namespace("s")
    table = catalog.create_table("s.t", schema=pa.schema([pa.field("n", pa.int64())]))
    schema = Tables.arrow_schema(table)
    assert schema.names == ["n"]  # stored names
    again = catalog.load_table("s.t")  # another Table over another parse of the same file
    assert Tables.arrow_schema(table) is schema
    assert Tables.arrow_schema(again).names == schema.names
    columns = Tables.columns(table)
    columns.append(columns[0])  # a caller's list is its own
    assert len(Tables.columns(table)) == 1
    with table.update_schema() as update:
        update.add_column("c", StringType())
    assert [c.name for c in Tables.columns(table)] == ["N", "C"]  # display names
    assert len(Tables.arrow_schema(table)) == 2
