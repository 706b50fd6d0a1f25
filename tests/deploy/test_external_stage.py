"""An external stage on a real S3 server (SeaweedFS): unload to it, list it, load from it."""

from __future__ import annotations

from pathlib import Path

from tests.deploy.services import ACCESS_KEY, SECRET_KEY, SeaweedFS
from tests.deploy.test_s3 import bucket_files
from tests.e2e.conftest import Server


def test_unload_list_and_reload_through_an_s3_stage(
    tmp_path: Path, seaweedfs: SeaweedFS, bucket: str
) -> None:
    server = Server(tmp_path)  # its own warehouse stays local: only the stage is on S3
    server.start()
    try:
        with server.connect() as conn:
            cur = conn.cursor()
            cur.execute(
                f"CREATE STAGE ext URL = 's3://{bucket}/exports/' ENDPOINT = '{seaweedfs.endpoint}' "
                f"CREDENTIALS = (AWS_KEY_ID = '{ACCESS_KEY}' AWS_SECRET_KEY = '{SECRET_KEY}')"
            )
            cur.execute("CREATE TABLE src (id INT, name VARCHAR, amount NUMBER(10, 2))")
            cur.execute("INSERT INTO src VALUES (1, 'a', 1.50), (2, NULL, -2.25), (3, 'c', 0)")
            cur.execute("COPY INTO @ext/orders/ FROM src FILE_FORMAT = (TYPE = PARQUET)")
            assert cur.fetchone()[0] == 3  # rows_unloaded
            assert any("exports/orders/" in path for path in bucket_files(seaweedfs, bucket))
            listed = cur.execute("LIST @ext/orders/").fetchall()
            assert listed and all(row[0].startswith(f"s3://{bucket}/exports/orders/") for row in listed)
            cur.execute("CREATE TABLE back (id INT, name VARCHAR, amount NUMBER(10, 2))")
            cur.execute(
                "COPY INTO back FROM @ext/orders/ FILE_FORMAT = (TYPE = PARQUET) "
                "MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE"
            )
            assert (
                cur.execute("SELECT * FROM back ORDER BY id").fetchall()
                == cur.execute("SELECT * FROM src ORDER BY id").fetchall()
            )
            described = cur.execute("DESCRIBE STAGE ext").fetchall()
            assert described and not any(SECRET_KEY in str(row) for row in described)  # never shown
    finally:
        server.stop()
