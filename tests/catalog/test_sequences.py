"""The sequences table of a metastore made by an older version gains the newer columns."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from embucket_py import naming
from embucket_py.catalog.metastore import Metastore
from embucket_py.catalog.sequences import Sequence, Sequences


def test_an_older_sequences_table_gains_start_and_last_altered(tmp_path: Path) -> None:
    metastore = Metastore(f"sqlite:///{tmp_path}/metastore.db", (tmp_path / "warehouse").as_uri())
    metastore.create_database("DB")
    metastore.create_schema("DB", "S")
    with metastore.engine.begin() as conn:  # the first release's layout, with one sequence
        conn.execute(
            sa.text(
                "CREATE TABLE embucket_sequences (database VARCHAR(255), schema VARCHAR(255), "
                "name VARCHAR(255), next_value BIGINT NOT NULL, increment BIGINT NOT NULL, comment TEXT, "
                "created_on DATETIME NOT NULL, PRIMARY KEY (database, schema, name))"
            )
        )
        key = ", ".join(f"'{naming.stored(n)}'" for n in ("DB", "S", "OLD"))
        conn.execute(sa.text(f"INSERT INTO embucket_sequences VALUES ({key}, 7, 1, NULL, '2026-01-01')"))
    sequences = Sequences(metastore)
    old = sequences.get("DB", "S", "OLD")
    assert old is not None and (old.next_value, old.start) == (7, None)
    sequences.create(Sequence("DB", "S", "NEW", 3, 2), replace=False, if_not_exists=False)
    new = sequences.get("DB", "S", "NEW")
    assert new is not None and (new.start, new.last_altered is not None) == (3, True)
