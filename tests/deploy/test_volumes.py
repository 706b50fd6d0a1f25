"""External volumes: a database created on a volume keeps its tables in the volume's S3 bucket
(SeaweedFS here), while other databases stay on the server's default (local) warehouse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest
import snowflake.connector

from tests.deploy.services import ACCESS_KEY, SECRET_KEY, SeaweedFS
from tests.e2e.conftest import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path)
    srv.start()
    yield srv
    srv.stop()


def volume_sql(seaweedfs: SeaweedFS, bucket: str, name: str = "LAKE_VOL") -> str:
    return f"""
        CREATE EXTERNAL VOLUME {name}
          STORAGE_LOCATIONS = (
            (
              NAME = 'seaweed'
              STORAGE_PROVIDER = 'S3COMPAT'
              STORAGE_BASE_URL = 's3compat://{bucket}/lake'
              STORAGE_ENDPOINT = '{seaweedfs.endpoint}'
              CREDENTIALS = (AWS_KEY_ID = '{ACCESS_KEY}' AWS_SECRET_KEY = '{SECRET_KEY}')
            )
          )
          ALLOW_WRITES = TRUE
          COMMENT = 'test volume'"""


def bucket_files(seaweedfs: SeaweedFS, bucket: str) -> list[str]:
    found = seaweedfs.filesystem().get_file_info(pafs.FileSelector(bucket, recursive=True))
    return [f.path for f in found if f.type == pafs.FileType.File]


def test_database_on_a_volume_keeps_its_files_in_the_bucket(
    server: Server, seaweedfs: SeaweedFS, bucket: str
) -> None:
    with server.connect() as conn:
        cur = conn.cursor()
        cur.execute(volume_sql(seaweedfs, bucket))
        assert cur.fetchone() == ("External volume LAKE_VOL successfully created.",)
        cur.execute("CREATE DATABASE on_vol EXTERNAL_VOLUME = 'lake_vol'")
        cur.execute("CREATE TABLE on_vol.public.t (id INT, name VARCHAR)")
        cur.execute("INSERT INTO on_vol.public.t VALUES (1, 'a'), (2, 'b')")
        cur.execute("UPDATE on_vol.public.t SET name = 'B' WHERE id = 2")
        cur.execute("SELECT id, name FROM on_vol.public.t ORDER BY id")
        assert cur.fetchall() == [(1, "a"), (2, "B")]
        cur.execute("CREATE DATABASE on_disk")
        cur.execute("CREATE TABLE on_disk.public.u (x INT)")
        cur.execute("INSERT INTO on_disk.public.u SELECT id FROM on_vol.public.t")
        cur.execute("SELECT x FROM on_disk.public.u ORDER BY x")
        assert cur.fetchall() == [(1,), (2,)]
    files = bucket_files(seaweedfs, bucket)
    assert any(f.endswith(".parquet") for f in files)
    assert any(f.endswith(".metadata.json") for f in files)
    assert all(f.startswith(f"{bucket}/lake/on_vol/") for f in files)
    # The other database's files are on the local warehouse, none of the volume's are.
    local = [p.as_posix() for p in (server.data_dir / "warehouse").rglob("*") if p.is_file()]
    assert any("/on_disk/" in p and p.endswith(".parquet") for p in local)
    assert not any("/on_vol/" in p for p in local)


def test_volume_survives_a_restart(server: Server, seaweedfs: SeaweedFS, bucket: str) -> None:
    with server.connect() as conn:
        cur = conn.cursor()
        cur.execute(volume_sql(seaweedfs, bucket))
        cur.execute("CREATE DATABASE on_vol EXTERNAL_VOLUME = 'LAKE_VOL'")
        cur.execute("CREATE TABLE on_vol.public.t (x INT)")
        cur.execute("INSERT INTO on_vol.public.t VALUES (42)")
    server.stop()
    server.start()  # a new process: the bucket's credentials come from the metastore
    with server.connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT x FROM on_vol.public.t")
        assert cur.fetchall() == [(42,)]


def test_show_describe_drop_never_show_the_secret(server: Server, seaweedfs: SeaweedFS, bucket: str) -> None:
    with server.connect() as conn:
        cur = conn.cursor()
        cur.execute(volume_sql(seaweedfs, bucket))
        cur.execute(volume_sql(seaweedfs, bucket).replace("VOLUME LAKE_VOL", "VOLUME IF NOT EXISTS lake_vol"))
        assert cur.fetchone() == ("LAKE_VOL already exists, statement succeeded.",)
        cur.execute("SHOW EXTERNAL VOLUMES LIKE 'lake%'")
        assert [d[0] for d in cur.description] == ["name", "allow_writes", "comment"]
        shown = cur.fetchall()
        assert shown == [("LAKE_VOL", "true", "test volume")]
        cur.execute("DESC EXTERNAL VOLUME lake_vol")
        assert [d[0] for d in cur.description] == [
            "parent_property",
            "property",
            "property_type",
            "property_value",
            "property_default",
        ]
        described = cur.fetchall()
        by_name = {r[1]: r for r in described}
        assert by_name["ACTIVE"][3] == "seaweed"
        assert f"s3://{bucket}/lake" in by_name["STORAGE_LOCATION_1"][3]
        assert ACCESS_KEY in by_name["STORAGE_LOCATION_1"][3]
        cur.execute("SELECT query_text FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY())")
        history = " ".join(r[0] for r in cur.fetchall())
        assert "AWS_SECRET_KEY = '****'" in history
        for text in (str(shown), str(described), history):
            assert SECRET_KEY not in text
        cur.execute("CREATE DATABASE on_vol EXTERNAL_VOLUME = 'LAKE_VOL'")
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as in_use:
            cur.execute("DROP EXTERNAL VOLUME lake_vol")
        assert "ON_VOL" in str(in_use.value)
        cur.execute("DROP DATABASE on_vol")
        cur.execute("DROP EXTERNAL VOLUME lake_vol")
        assert cur.fetchone() == ("LAKE_VOL successfully dropped.",)
        cur.execute("SHOW EXTERNAL VOLUMES")
        assert cur.fetchall() == []
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as missing:
            cur.execute("CREATE DATABASE d2 EXTERNAL_VOLUME = 'LAKE_VOL'")
        assert missing.value.errno == 2003
    assert SECRET_KEY not in server.log.read_text()


def test_unsupported_volume_options_fail_clearly(server: Server) -> None:
    with server.connect() as conn:
        cur = conn.cursor()
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as gcs:
            cur.execute(
                "CREATE EXTERNAL VOLUME v STORAGE_LOCATIONS = ((NAME = 'g' STORAGE_PROVIDER = 'GCS' "
                "STORAGE_BASE_URL = 'gcs://b/p'))"
            )
        assert gcs.value.sqlstate == "0A000"
        assert "GCS" in str(gcs.value)
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as syntax:
            cur.execute("CREATE EXTERNAL VOLUME v STORAGE_LOCATIONS = ((NAME = 'g' STORAGE_PROVIDER = ")
        assert syntax.value.errno == 1003


def test_storage_refusal_is_a_snowflake_error(server: Server, seaweedfs: SeaweedFS, bucket: str) -> None:
    """A volume with a wrong secret: S3 refuses the access check, the client gets Snowflake's
    storage error (not an internal one) without the secret, nothing is created, the session goes on."""
    wrong = volume_sql(seaweedfs, bucket, "BAD_VOL").replace(SECRET_KEY, "not-the-secret-key")
    with server.connect() as conn:
        cur = conn.cursor()
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as refused:
            cur.execute(wrong)
        assert (refused.value.errno, refused.value.sqlstate) == (91003, "22000")
        assert "Failure using storage" in refused.value.msg and "ACCESS_DENIED" in refused.value.msg
        assert "not-the-secret-key" not in str(refused.value)
        cur.execute("SHOW EXTERNAL VOLUMES LIKE 'BAD_VOL'")
        assert cur.fetchall() == []
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    assert bucket_files(seaweedfs, bucket) == []
