"""S3 object storage: a server whose warehouse is a SeaweedFS bucket, driven by the real connector."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from embucket_py.catalog import storage
from tests.deploy.services import ACCESS_KEY, SECRET_KEY, SeaweedFS
from tests.e2e.conftest import Server


def s3_settings(seaweedfs: SeaweedFS, bucket: str) -> dict[str, str]:
    return {
        "warehouse": f"s3://{bucket}/warehouse",
        "s3_endpoint": seaweedfs.endpoint,
        "s3_access_key_id": ACCESS_KEY,
        "s3_secret_access_key": SECRET_KEY,
    }


@pytest.fixture
def s3_server(tmp_path: Path, seaweedfs: SeaweedFS, bucket: str) -> Iterator[Server]:
    srv = Server(tmp_path, **s3_settings(seaweedfs, bucket))
    srv.start()
    yield srv
    srv.stop()


def bucket_files(seaweedfs: SeaweedFS, bucket: str) -> list[str]:
    found = seaweedfs.filesystem().get_file_info(pafs.FileSelector(bucket, recursive=True))
    return [f.path for f in found if f.type == pafs.FileType.File]


def test_file_api_on_s3(seaweedfs: SeaweedFS, bucket: str) -> None:
    storage.register(
        storage.S3Store(bucket, seaweedfs.endpoint, access_key_id=ACCESS_KEY, secret_access_key=SECRET_KEY)
    )
    base = f"s3://{bucket}/stage"
    storage.write_bytes(f"{base}/a.csv", b"1,2\n")
    storage.write_bytes(f"{base}/sub/b.csv", b"3,4\n")
    assert storage.list_files(base) == [f"{base}/a.csv", f"{base}/sub/b.csv"]
    assert storage.read_bytes(f"{base}/sub/b.csv") == b"3,4\n"
    assert storage.exists(f"{base}/a.csv")
    storage.delete(f"{base}/a.csv")
    assert not storage.exists(f"{base}/a.csv")
    assert storage.list_files(f"{base}/none") == []
    assert SECRET_KEY not in repr(storage.store_for(base))
    assert storage.redact(f"key {SECRET_KEY}!") == "key ****!"


def test_file_api_local(tmp_path: Path) -> None:
    base = tmp_path.as_uri() + "/stage"
    storage.write_bytes(f"{base}/x/y.txt", b"hello")
    assert storage.list_files(base) == [f"{base}/x/y.txt"]
    assert storage.read_bytes(f"{base}/x/y.txt") == b"hello"
    storage.delete(f"{base}/x/y.txt")
    storage.delete(f"{base}/x/y.txt")  # a missing file is fine
    assert storage.list_files(base) == []


def test_tables_live_in_the_bucket(s3_server: Server, seaweedfs: SeaweedFS, bucket: str) -> None:
    with s3_server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INT, name VARCHAR)")
        cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        assert cur.rowcount == 3
        cur.execute("SELECT id, name FROM t ORDER BY id")
        assert cur.fetchall() == [(1, "a"), (2, "b"), (3, "c")]
    files = bucket_files(seaweedfs, bucket)
    assert any(f.endswith(".parquet") for f in files)
    assert any(f.endswith(".metadata.json") for f in files)
    assert all(f.startswith(f"{bucket}/warehouse/") for f in files)
    # Nothing of the table is written to the local data directory.
    assert not (s3_server.data_dir / "warehouse").exists()


def test_dml_and_time_travel_on_s3(s3_server: Server) -> None:
    with s3_server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE accounts (id INT, balance NUMBER(10, 2))")
        cur.execute("INSERT INTO accounts VALUES (1, 10), (2, 20), (3, 30)")
        first = cur.sfqid
        time.sleep(0.05)
        cur.execute("UPDATE accounts SET balance = balance + 1 WHERE id = 2")
        assert cur.rowcount == 1
        cur.execute("DELETE FROM accounts WHERE id = 3")
        assert cur.rowcount == 1
        cur.execute(
            "MERGE INTO accounts a USING (SELECT 1 AS id, 5 AS amt UNION ALL SELECT 4, 40) s "
            "ON a.id = s.id WHEN MATCHED THEN UPDATE SET balance = a.balance + s.amt "
            "WHEN NOT MATCHED THEN INSERT (id, balance) VALUES (s.id, s.amt)"
        )
        cur.execute("SELECT id, balance FROM accounts ORDER BY id")
        assert [(r[0], float(r[1])) for r in cur.fetchall()] == [(1, 15.0), (2, 21.0), (4, 40.0)]
        cur.execute(f"SELECT id FROM accounts AT(STATEMENT => '{first}') ORDER BY id")
        assert [r[0] for r in cur.fetchall()] == [1, 2, 3]
        cur.execute(f"SELECT COUNT(*) FROM accounts BEFORE(STATEMENT => '{first}')")
        assert cur.fetchone() == (0,)


def test_renamed_schema_takes_its_stage_files_along_on_s3(s3_server: Server, tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    data.write_text("1,one\n2,two\n")
    with s3_server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE SCHEMA landing")
        cur.execute("CREATE STAGE landing.inbox")
        cur.execute(f"PUT file://{data} @landing.inbox/day1 AUTO_COMPRESS = FALSE")
        cur.execute("CREATE TABLE landing.t (id INT, name VARCHAR)")
        cur.execute("ALTER SCHEMA landing RENAME TO raw")
        assert [r[0] for r in cur.execute("LIST @raw.inbox").fetchall()] == ["inbox/day1/rows.csv"]
        cur.execute("COPY INTO raw.t FROM @raw.inbox FILE_FORMAT = (TYPE = CSV)")
        assert cur.execute("SELECT id, name FROM raw.t ORDER BY id").fetchall() == [(1, "one"), (2, "two")]


def test_credentials_never_leak(s3_server: Server) -> None:
    with s3_server.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE leak (id INT)")
        cur.execute("INSERT INTO leak VALUES (1)")
        shown = []
        for statement in ("SHOW PARAMETERS", "SHOW DATABASES", "SHOW TABLES", "DESCRIBE TABLE leak"):
            try:
                cur.execute(statement)
                shown.append(repr(cur.fetchall()))
            except Exception as e:  # an unsupported SHOW is fine; its message must not leak either
                shown.append(str(e))
        try:
            cur.execute("SELECT * FROM missing_table")
        except Exception as e:
            shown.append(str(e))
    s3_server.stop()
    text = "\n".join(shown) + s3_server.log.read_text()
    assert SECRET_KEY not in text
    assert len(shown) == 5
