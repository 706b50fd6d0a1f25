"""The copy of a result kept for RESULT_SCAN holds only the result's own bytes."""

from __future__ import annotations

import pyarrow as pa

from embucket_py.engine import history
from embucket_py.engine.result import QueryResult, columns_of


class _Kept:
    """Stands in for the history writer (a metastore and files): only what it is given matters."""

    def __init__(self) -> None:
        self.tables: dict[str, pa.Table] = {}

    def save_result(self, query_id: str, table: pa.Table) -> None:
        self.tables[query_id] = table


def test_a_filtered_row_of_string_views_is_kept_without_its_page() -> None:
    # DataFusion reads text as views; one row filtered out of a page still points at the whole
    # page's bytes (a TPC-H lookup on ORDERS kept 2 MB per statement).
    page = pa.array([f"comment number {i:08d} of a long page" for i in range(100_000)], pa.string_view())
    row = pa.record_batch({"c": page.slice(5, 1)})
    assert row.nbytes > 1 << 20
    kept = _Kept()
    result = QueryResult(columns_of(row.schema, ["C"]), [row])
    history._save(kept, "q1", result, [row])  # type: ignore[arg-type]
    table = kept.tables["q1"]
    assert table.column(0).to_pylist() == ["comment number 00000005 of a long page"]
    assert table.schema.field(0).type == pa.string()
    assert table.nbytes < 1 << 10
