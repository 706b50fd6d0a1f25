"""pandas `to_sql(method=pd_writer)` through snowflake-sqlalchemy, unmodified: write_pandas underneath
(temporary stage, PUT, COPY). Runs from the legacy virtualenv, like test_sqlalchemy.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
import sqlalchemy as sa
from snowflake.connector.pandas_tools import pd_writer

from tests.e2e.conftest import Server


@pytest.fixture
def engine(server: Server, tool_database: str) -> Iterator[sa.engine.Engine]:
    url = f"snowflake://embucket:embucket@embucket/{tool_database}/PUBLIC?warehouse=COMPUTE_WH"
    engine = sa.create_engine(
        url, connect_args={"host": "127.0.0.1", "port": server.port, "protocol": "http"}
    )
    yield engine
    engine.dispose()


def test_to_sql_with_pd_writer_round_trips(engine: sa.engine.Engine) -> None:
    frame = pd.DataFrame({"ID": [1, 2, 3], "NAME": ["a", None, "c"], "AMOUNT": [1.5, 2.0, None]})
    frame.to_sql("written", engine, index=False, method=pd_writer)
    frame.to_sql("written", engine, index=False, method=pd_writer, if_exists="append")
    with engine.connect() as conn:
        rows = conn.exec_driver_sql('SELECT "ID", "NAME", "AMOUNT" FROM written ORDER BY 1').fetchall()
    assert rows == [
        (1, "a", 1.5),
        (1, "a", 1.5),
        (2, None, 2.0),
        (2, None, 2.0),
        (3, "c", None),
        (3, "c", None),
    ]
