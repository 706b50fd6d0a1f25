"""pyiceberg's RestCatalog and raw HTTP against the server's Iceberg REST catalog."""

from __future__ import annotations

import threading
from decimal import Decimal

import httpx
import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import (
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    OAuthError,
    TableAlreadyExistsError,
)
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType
from pyiceberg.view.metadata import SQLViewRepresentation, ViewRepresentation, ViewVersion

from tests.e2e.conftest import Server
from tests.iceberg_rest.conftest import rest_url

EVENTS = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def test_namespaces(catalog: RestCatalog) -> None:
    assert catalog.list_namespaces() == [("public",)]
    catalog.create_namespace("bronze", {"owner": "spark"})
    assert ("bronze",) in catalog.list_namespaces()
    assert catalog.load_namespace_properties("BRONZE") == {"owner": "spark"}
    summary = catalog.update_namespace_properties("bronze", removals={"owner", "nope"}, updates={"a": "1"})
    assert (summary.removed, summary.updated, summary.missing) == (["owner"], ["a"], ["nope"])
    assert catalog.namespace_exists("bronze") and not catalog.namespace_exists("silver")
    with pytest.raises(NamespaceAlreadyExistsError):
        catalog.create_namespace("Bronze")  # the same name to Snowflake SQL
    with pytest.raises(NoSuchNamespaceError):
        catalog.load_namespace_properties("silver")
    catalog.create_table("bronze.t", EVENTS)
    with pytest.raises(NamespaceNotEmptyError):
        catalog.drop_namespace("bronze")
    catalog.drop_table("bronze.t")
    catalog.drop_namespace("bronze")
    assert catalog.list_namespaces() == [("public",)]


def test_tables_lifecycle(catalog: RestCatalog) -> None:
    table = catalog.create_table("public.events", EVENTS, properties={"k": "v"})
    table.append(pa.table({"id": [1, 2], "name": ["a", "b"]}, schema=EVENTS))
    assert catalog.list_tables("public") == [("public", "events")]
    # Spark sends names as typed: lookups fall back to case-insensitive matches.
    loaded = catalog.load_table("PUBLIC.Events")
    assert loaded.scan().to_arrow().num_rows == 2
    assert loaded.properties["k"] == "v"
    assert catalog.table_exists("public.events") and not catalog.table_exists("public.nope")
    with pytest.raises(TableAlreadyExistsError):
        catalog.create_table("public.EVENTS", EVENTS)
    with pytest.raises(NoSuchTableError):
        catalog.load_table("public.nope")
    with pytest.raises(NoSuchTableError):
        catalog.load_table("nowhere.events")

    catalog.create_namespace("archive")
    catalog.rename_table("public.events", "archive.events_2024")
    assert catalog.list_tables("public") == []
    renamed = catalog.load_table("archive.events_2024")
    assert renamed.scan().to_arrow().num_rows == 2

    # register: the same metadata file under a second name
    catalog.register_table("public.events_again", renamed.metadata_location)
    assert catalog.load_table("public.events_again").scan().to_arrow().num_rows == 2
    catalog.drop_table("public.events_again")

    catalog.drop_table("archive.events_2024", purge_requested=True)
    assert not catalog.table_exists("archive.events_2024")


def test_staged_create_transaction(catalog: RestCatalog) -> None:
    with catalog.create_table_transaction("public.staged", EVENTS) as tx:
        tx.append(pa.table({"id": [7], "name": ["x"]}, schema=EVENTS))
    assert catalog.load_table("public.staged").scan().to_arrow().to_pylist() == [{"id": 7, "name": "x"}]


def test_schema_evolution_and_overwrite(catalog: RestCatalog) -> None:
    table = catalog.create_table("public.evolve", EVENTS)
    table.append(pa.table({"id": [1], "name": ["a"]}, schema=EVENTS))
    with table.update_schema() as update:
        update.add_column("score", LongType())
    table = catalog.load_table("public.evolve")
    assert [f.name for f in table.schema().fields] == ["id", "name", "score"]
    table.delete("id = 1")
    assert catalog.load_table("public.evolve").scan().to_arrow().num_rows == 0


def test_concurrent_appends_lose_no_rows(catalog: RestCatalog) -> None:
    # pyiceberg retries a commit that lost the race 4 times by default; four writers on two cores
    # can lose five races in a row (seen once in ~20 runs), so the clients get more retries here.
    catalog.create_table("public.counter", EVENTS, properties={"commit.retry.num-retries": "20"})
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            own = RestCatalog(catalog.name, **catalog.properties)
            for i in range(5):
                own.load_table("public.counter").append(
                    pa.table({"id": [n * 100 + i], "name": [f"w{n}"]}, schema=EVENTS)
                )
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert catalog.load_table("public.counter").scan().to_arrow().num_rows == 20


def test_failed_requirement_is_409(catalog: RestCatalog, http: httpx.Client) -> None:
    catalog.create_table("public.t", EVENTS)
    body = {
        "requirements": [{"type": "assert-table-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}],
        "updates": [{"action": "set-properties", "updates": {"a": "b"}}],
    }
    response = http.post("namespaces/public/tables/t", json=body)
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "CommitFailedException"
    unknown = http.post("namespaces/public/tables/t", json={"updates": [{"action": "explode"}]})
    assert unknown.status_code == 400
    missing = http.post("namespaces/public/tables/nope", json={"updates": []})
    assert missing.status_code == 404


def test_multi_table_transaction(catalog: RestCatalog, http: httpx.Client) -> None:
    a = catalog.create_table("public.a", EVENTS)
    catalog.create_table("public.b", EVENTS)

    def change(name: str, uuid: str) -> dict[str, object]:
        return {
            "identifier": {"namespace": ["public"], "name": name},
            "requirements": [{"type": "assert-table-uuid", "uuid": uuid}],
            "updates": [{"action": "set-properties", "updates": {"tx": name}}],
        }

    b_uuid = str(catalog.load_table("public.b").metadata.table_uuid)
    bad = http.post(
        "transactions/commit",
        json={"table-changes": [change("a", str(a.metadata.table_uuid)), change("b", "x")]},
    )
    assert bad.status_code in (400, 409)
    assert "tx" not in catalog.load_table("public.a").properties  # nothing applied
    ok = http.post(
        "transactions/commit",
        json={"table-changes": [change("a", str(a.metadata.table_uuid)), change("b", b_uuid)]},
    )
    assert ok.status_code == 204, ok.text
    assert catalog.load_table("public.a").properties["tx"] == "a"
    assert catalog.load_table("public.b").properties["tx"] == "b"


def test_views(catalog: RestCatalog, http: httpx.Client) -> None:
    schema = Schema(NestedField(1, "id", LongType(), required=False))
    version = ViewVersion(
        version_id=1,
        schema_id=0,
        timestamp_ms=1700000000000,
        summary={},
        representations=[
            ViewRepresentation(SQLViewRepresentation(type="sql", sql="SELECT id FROM t", dialect="spark"))
        ],
        default_namespace=["public"],
    )
    catalog.create_view("public.v", schema, version)
    assert catalog.list_views("public") == [("public", "v")]
    assert catalog.view_exists("public.V")
    assert catalog.list_tables("public") == []  # views are not tables
    loaded = http.get("namespaces/public/views/v").json()
    replace = {
        "requirements": [{"type": "assert-view-uuid", "uuid": loaded["metadata"]["view-uuid"]}],
        "updates": [
            {
                "action": "add-schema",
                "schema": {
                    "type": "struct",
                    "schema-id": 1,
                    "fields": [{"id": 1, "name": "name", "type": "string", "required": False}],
                },
            },
            {
                "action": "add-view-version",
                "view-version": {
                    **loaded["metadata"]["versions"][0],
                    "version-id": 2,
                    "schema-id": -1,
                    "representations": [{"type": "sql", "sql": "SELECT name FROM t", "dialect": "spark"}],
                },
            },
            {"action": "set-current-view-version", "view-version-id": -1},
        ],
    }
    response = http.post("namespaces/public/views/v", json=replace)
    assert response.status_code == 200, response.text
    assert response.json()["metadata"]["current-version-id"] == 2
    stale = http.post("namespaces/public/views/v", json={**replace, "requirements": [
        {"type": "assert-view-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}]})  # fmt: skip
    assert stale.status_code == 409
    catalog.drop_view("public.v")
    assert not catalog.view_exists("public.v")


def test_auth(server: Server, database: str) -> None:
    url = rest_url(server)
    assert httpx.get(f"{url}/v1/config").status_code == 401
    assert httpx.get(f"{url}/v1/config", headers={"Authorization": "Bearer None"}).status_code == 401
    with pytest.raises(OAuthError):
        RestCatalog("x", uri=url, warehouse=database, credential="embucket:wrong")
    bad = httpx.post(
        f"{url}/v1/oauth/tokens",
        data={"grant_type": "client_credentials", "client_id": "embucket", "client_secret": "no"},
    )
    assert bad.status_code == 401 and bad.json()["error"] == "invalid_client"
    # A static token works too (what Spark's `token=` sends).
    token = httpx.post(
        f"{url}/v1/oauth/tokens",
        data={"grant_type": "client_credentials", "client_id": "embucket", "client_secret": "embucket"},
    ).json()["access_token"]
    assert RestCatalog("x", uri=url, warehouse=database, token=token).list_namespaces() == [("public",)]
    # Java refreshes tokens by token exchange before they expire.
    exchanged = httpx.post(
        f"{url}/v1/oauth/tokens",
        data={
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
        },
    )
    assert exchanged.status_code == 200 and exchanged.json()["access_token"].startswith("ebt_")


def test_unknown_warehouse(server: Server) -> None:
    with pytest.raises(Exception, match="no such database"):
        RestCatalog("x", uri=rest_url(server), warehouse="nope", credential="embucket:embucket")


def test_sql_and_rest_share_tables(server: Server, database: str, catalog: RestCatalog) -> None:
    """A table created and written through Snowflake SQL is the same Iceberg table over REST,
    and rows pyiceberg appends are visible to SQL at once."""
    with server.connect(database=database, schema="PUBLIC") as conn:
        cur = conn.cursor()
        cur.execute("CREATE TABLE ORDERS (ID INT, NAME VARCHAR(20), AMOUNT NUMBER(10,2))")
        cur.execute("INSERT INTO ORDERS VALUES (1, 'a', 1.50), (2, 'b', 2.25)")
        table = catalog.load_table("public.orders")
        assert table.scan().to_arrow().sort_by("id").to_pylist() == [
            {"id": 1, "name": "a", "amount": Decimal("1.50")},
            {"id": 2, "name": "b", "amount": Decimal("2.25")},
        ]
        table.append(
            pa.table(
                {"id": [3], "name": ["c"], "amount": [Decimal("3.00")]}, schema=table.schema().as_arrow()
            )
        )
        cur.execute("SELECT ID, NAME, AMOUNT FROM ORDERS ORDER BY ID")
        assert cur.fetchall() == [
            (1, "a", Decimal("1.50")),
            (2, "b", Decimal("2.25")),
            (3, "c", Decimal("3.00")),
        ]
        # A pyiceberg-created table has no declared Snowflake types: they come from Iceberg's.
        created = catalog.create_table(
            "public.from_rest",
            Schema(NestedField(1, "Id", LongType()), NestedField(2, "label", StringType())),
        )
        created.append(pa.table({"Id": [5], "label": ["five"]}, schema=created.schema().as_arrow()))
        cur.execute('SELECT "Id", LABEL FROM FROM_REST')
        assert cur.fetchall() == [(5, "five")]
        assert [d.name for d in cur.description] == ["Id", "LABEL"]


def test_commit_table_reads_only_the_name() -> None:
    """commits._TableRef relies on SqlCatalog.commit_table using nothing but `table.name()`
    (pyiceberg 0.12): pinned here so an upgrade that changes it fails loudly."""
    import inspect

    from pyiceberg.catalog.sql import SqlCatalog

    source = inspect.getsource(SqlCatalog.commit_table)
    uses = {line.strip() for line in source.splitlines() if "table." in line and "current_table" not in line}
    assert all(
        "table.name()" in u or "staged_table." in u for u in uses if not u.startswith(("#", '"', "Args"))
    )
