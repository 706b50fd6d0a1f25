"""Authentication through the real connector: wrong passwords, lockout, key-pair (JWT) logins,
token expiry and renewal, logout, statement timeout, request size, and https.

https://docs.snowflake.com/en/user-guide/key-pair-auth
"""

from __future__ import annotations

import datetime
import gzip
import ipaddress
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import snowflake.connector
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from tests.e2e.conftest import CONNECTOR_MAJOR, Server


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with short token lifetimes, a quick lockout and a 1 MiB request limit."""
    srv = Server(
        tmp_path_factory.mktemp("auth"),
        session_ttl="2",
        master_ttl="6",
        login_failures_before_lock="3",
        login_lock_max_seconds="1",
        max_request_mb="1",
    )
    srv.start()
    yield srv
    srv.stop()


def _private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _der(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _public_body(key: rsa.RSAPrivateKey) -> str:
    """The public key as Snowflake takes it: the PEM text without its BEGIN/END lines."""
    pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "".join(pem.decode().splitlines()[1:-1])


def _post(server: Server, path: str, token: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f'Snowflake Token="{token}"', "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return dict(json.loads(answer.read()))
    except urllib.error.HTTPError as e:
        return {"status": e.code, **json.loads(e.read())}


def test_wrong_password_is_390100(server: Server) -> None:
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        server.connect(password="not-the-password")
    assert info.value.errno == 390100
    assert info.value.sqlstate == "28000"
    assert "Incorrect username or password was specified." in str(info.value)


def test_unknown_user_gets_the_same_error(server: Server) -> None:
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        server.connect(user=f"nobody_{uuid.uuid4().hex[:8]}", password="x")
    assert info.value.errno == 390100


def test_repeated_failures_lock_the_user(strict: Server) -> None:
    with strict.connect() as admin:
        admin.cursor().execute("CREATE USER locky PASSWORD = 'right'")
    for _ in range(3):
        with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
            strict.connect(user="locky", password="wrong")
        assert info.value.errno == 390100
    # Locked: even the right password is refused until the lock passes.
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        strict.connect(user="locky", password="right")
    assert info.value.errno == 390102
    time.sleep(1.5)
    with strict.connect(user="locky", password="right") as conn:
        assert conn.cursor().execute("SELECT CURRENT_USER()").fetchone() == ("LOCKY",)
    # Success cleared the count: one more failure is an ordinary failure, not a lock.
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        strict.connect(user="locky", password="wrong")
    assert info.value.errno == 390100


def test_key_pair_login_and_rotation(server: Server) -> None:
    first, second = _private_key(), _private_key()
    name = f"KP_{uuid.uuid4().hex[:8].upper()}"
    with server.connect() as admin:
        cur = admin.cursor()
        cur.execute(f"CREATE USER {name} RSA_PUBLIC_KEY = '{_public_body(first)}'")
        assert cur.fetchone() == (f"User {name} successfully created.",)
    jwt = {"authenticator": "SNOWFLAKE_JWT", "password": None}
    with server.connect(user=name.lower(), private_key=_der(first), **jwt) as conn:
        assert conn.cursor().execute("SELECT CURRENT_USER()").fetchone() == (name,)
    # A key the user does not hold is refused.
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        server.connect(user=name, private_key=_der(second), **jwt)
    assert info.value.errno == 390144
    assert info.value.sqlstate == "28000"
    # Rotation: add the second key, drop the first.
    with server.connect() as admin:
        admin.cursor().execute(f"ALTER USER {name} SET RSA_PUBLIC_KEY_2 = '{_public_body(second)}'")
        admin.cursor().execute(f"ALTER USER {name} UNSET RSA_PUBLIC_KEY")
    with server.connect(user=name, private_key=_der(second), **jwt) as conn:
        assert conn.cursor().execute("SELECT 1").fetchone() == (1,)
    with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
        server.connect(user=name, private_key=_der(first), **jwt)
    assert info.value.errno == 390144


def test_key_pair_user_has_no_password(server: Server) -> None:
    name = f"KP_{uuid.uuid4().hex[:8].upper()}"
    with server.connect() as admin:
        admin.cursor().execute(f"CREATE USER {name} RSA_PUBLIC_KEY = '{_public_body(_private_key())}'")
    for password in ("", "none", "-"):
        with pytest.raises(snowflake.connector.errors.DatabaseError) as info:
            server.connect(user=name, password=password or "x")
        assert info.value.errno == 390100


def test_alter_user_set_password(server: Server) -> None:
    """An administrator sets a user's password; the user changes it again; old ones stop working."""
    name = f"PW_{uuid.uuid4().hex[:8].upper()}"
    with server.connect() as admin:
        admin.cursor().execute(f"CREATE USER {name} PASSWORD = 'first-pw' COMMENT = 'x'")
        admin.cursor().execute(f"ALTER USER {name} SET PASSWORD = 'second-pw' DISPLAY_NAME = 'P W'")
    with pytest.raises(snowflake.connector.errors.DatabaseError) as old:
        server.connect(user=name, password="first-pw")
    assert old.value.errno == 390100
    with server.connect(user=name, password="second-pw") as own:
        assert own.cursor().execute(f"ALTER USER {name} SET PASSWORD = 'third-pw'").fetchone() == (
            "Statement executed successfully.",
        )
        # Another user's password is not the user's to set.
        with pytest.raises(snowflake.connector.errors.ProgrammingError) as denied:
            own.cursor().execute("ALTER USER embucket SET PASSWORD = 'taken'")
        assert denied.value.errno == 3001
    server.connect(user=name, password="third-pw").close()


def test_invalid_public_key_is_refused(cur: snowflake.connector.cursor.SnowflakeCursor) -> None:
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("ALTER USER embucket SET RSA_PUBLIC_KEY = 'bm90IGEga2V5'")
    assert "Invalid RSA public key" in str(info.value)
    with pytest.raises(snowflake.connector.errors.ProgrammingError) as info:
        cur.execute("ALTER USER no_such_user_x SET RSA_PUBLIC_KEY_2 = 'bm90IGEga2V5'")
    assert info.value.errno == 2003


def test_tokens_are_random_and_renewed(strict: Server) -> None:
    with strict.connect() as one, strict.connect() as two:
        assert one.rest.token != two.rest.token
        assert len(one.rest.token) > 40 and len(one.rest.master_token) > 40
        before = one.rest.token
        time.sleep(2.5)  # past the 2 s session token lifetime: the connector renews it
        assert one.cursor().execute("SELECT 42").fetchone() == (42,)
        assert one.rest.token != before
        # The replaced token no longer opens a session for long: it is only renewable.
        answer = _post(strict, "/queries/v1/query-request", before, {"sqlText": "SELECT 1"})
        assert answer["success"] is False


def test_master_token_expiry_ends_the_session(strict: Server) -> None:
    conn = strict.connect()
    try:
        time.sleep(6.5)  # past the 6 s master token lifetime
        with pytest.raises(snowflake.connector.errors.Error) as info:
            conn.cursor().execute("SELECT 1")
        assert info.value.errno in (390111, 390114, 250001)
    finally:
        conn.close()


def test_logout_revokes_both_tokens(server: Server) -> None:
    conn = server.connect()
    token, master = conn.rest.token, conn.rest.master_token
    assert _post(server, "/session/heartbeat", token, {})["success"] is True
    conn.close()
    answer = _post(server, "/queries/v1/query-request", token, {"sqlText": "SELECT 1"})
    assert answer["success"] is False and answer["code"] == "390111"
    renewed = _post(server, "/session/token-request", master, {"oldSessionToken": token})
    assert renewed["success"] is False and renewed["code"] == "390114"


def test_statement_timeout(cur: snowflake.connector.cursor.SnowflakeCursor) -> None:
    cur.execute("ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 1")
    with pytest.raises(snowflake.connector.errors.Error) as info:
        cur.execute("SELECT SHA2(TO_VARCHAR(SEQ8())) FROM TABLE(GENERATOR(ROWCOUNT => 30000000))")
    assert info.value.errno == 630
    assert "Statement reached its statement or warehouse timeout of 1 second(s) and was canceled." in str(
        info.value
    )
    cur.execute("ALTER SESSION UNSET STATEMENT_TIMEOUT_IN_SECONDS")
    assert cur.execute("SELECT 1").fetchone() == (1,)


def test_timeout_stops_an_aggregate_mid_work(cur: snowflake.connector.cursor.SnowflakeCursor) -> None:
    """An aggregate produces no batch until it has read everything (minutes for three billion
    rows here): the timeout must stop it inside, not after it."""
    cur.execute("ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = 1")
    with pytest.raises(snowflake.connector.errors.Error) as info:
        cur.execute("SELECT COUNT(DISTINCT SEQ8() % 1000003) FROM TABLE(GENERATOR(ROWCOUNT => 3000000000))")
    assert info.value.errno == 630
    cur.execute("ALTER SESSION UNSET STATEMENT_TIMEOUT_IN_SECONDS")
    cur.execute(
        "SELECT execution_status, total_elapsed_time FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY()) "
        "WHERE query_text LIKE '%ROWCOUNT => 3000000000%' AND query_text NOT LIKE '%QUERY_HISTORY%'"
    )
    ((state, elapsed_ms),) = cur.fetchall()
    assert state == "FAILED_WITH_ERROR"
    assert elapsed_ms < 60_000  # ended at the timeout, not when the aggregate would have finished


def test_request_size_limit(strict: Server) -> None:
    with strict.connect() as conn:
        big = "x" * (2 * 1024 * 1024)
        answer = _post(strict, "/queries/v1/query-request", conn.rest.token, {"sqlText": f"SELECT '{big}'"})
        assert answer["status"] == 413
        assert answer["success"] is False and "maximum size" in str(answer["message"])
        assert conn.cursor().execute("SELECT 2").fetchone() == (2,)


def test_gzip_body_is_capped_when_inflated(strict: Server) -> None:
    """A 20 KiB gzip body that would inflate to 20 MiB is refused before it is inflated whole."""
    with strict.connect() as conn:
        sql = "SELECT '" + "x" * (20 * 1024 * 1024) + "'"
        packed = gzip.compress(json.dumps({"sqlText": sql}).encode())
        assert len(packed) < 1024 * 1024  # under the wire limit: only the inflated size is too big
        request = urllib.request.Request(
            f"http://127.0.0.1:{strict.port}/queries/v1/query-request",
            data=packed,
            headers={
                "Authorization": f'Snowflake Token="{conn.rest.token}"',
                "Content-Type": "application/json",
                "Content-Encoding": "gzip",
            },
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            body = json.loads(answer.read())
        assert body["success"] is False and body["code"] == "390001"
        assert "maximum size of 1 MB" in body["message"]
        assert conn.cursor().execute("SELECT 3").fetchone() == (3,)


def _certificate(
    subject: str, key: rsa.RSAPrivateKey, issuer: str, signer: rsa.RSAPrivateKey, ca: bool
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(signer, hashes.SHA256())


def _tls_files(directory: Path) -> tuple[Path, Path, Path]:
    """A test CA and a localhost certificate it signed (rustls refuses a CA as the server cert)."""
    ca_key, key = _private_key(), _private_key()
    ca = _certificate("embucket test CA", ca_key, "embucket test CA", ca_key, ca=True)
    cert = _certificate("localhost", key, "embucket test CA", ca_key, ca=False)
    ca_file, cert_file, key_file = directory / "ca.pem", directory / "cert.pem", directory / "key.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return ca_file, cert_file, key_file


class _TlsServer(Server):
    """Started like Server, but its health check goes over https (trusting the test's cert)."""

    def start(self) -> None:
        real_urlopen = urllib.request.urlopen
        context = ssl.create_default_context(cafile=self.settings.pop("tls_ca"))

        def urlopen(url: str, timeout: float) -> object:
            return real_urlopen(url.replace("http://", "https://"), timeout=timeout, context=context)

        urllib.request.urlopen = urlopen  # type: ignore[assignment]
        try:
            super().start()
        finally:
            urllib.request.urlopen = real_urlopen


def test_https(tmp_path: Path) -> None:
    ca, cert, key = _tls_files(tmp_path)
    (tmp_path / "data").mkdir()
    srv = _TlsServer(tmp_path / "data", tls_cert=str(cert), tls_key=str(key), tls_ca=str(ca))
    srv.start()
    try:
        # Both lines verify the certificate against the CA bundle the environment names (4.x's
        # requests reads REQUESTS_CA_BUNDLE, 5.x's core SSL_CERT_FILE, once per process: hence a
        # fresh interpreter); 4.x also needs OCSP checks off for a private CA.
        env = {**os.environ, "REQUESTS_CA_BUNDLE": str(ca), "SSL_CERT_FILE": str(ca)}
        extra = ", insecure_mode=True" if CONNECTOR_MAJOR < 5 else ""
        script = (
            "import snowflake.connector\n"
            f"conn = snowflake.connector.connect(account='embucket', user='embucket', password='embucket',"
            f" host='localhost', port={srv.port}, protocol='https', login_timeout=30{extra})\n"
            "print(conn.cursor().execute(\"SELECT 'over tls'\").fetchone()[0])\n"
            "conn.close()\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.stdout.strip() == "over tls", done.stderr[-2000:]
        with pytest.raises(OSError):  # plain http to the https port: refused or reset
            urllib.request.urlopen(f"http://127.0.0.1:{srv.port}/health", timeout=5)
    finally:
        srv.stop()


SLOW = "SELECT SHA2(TO_VARCHAR(SEQ8())) FROM TABLE(GENERATOR(ROWCOUNT => 30000000))"


def test_statements_queue_behind_the_worker_cap(tmp_path: Path) -> None:
    """With one worker, a second statement waits (QUEUED); past the queue cap one is refused."""
    from snowflake.connector.constants import QueryStatus

    srv = Server(tmp_path, workers="1", max_queued_queries="1")
    srv.start()
    try:
        with srv.connect() as conn:
            cur = conn.cursor()
            cur.execute_async(SLOW)
            running = cur.sfqid
            cur.execute_async("SELECT 1")
            queued = cur.sfqid
            assert conn.get_query_status(queued) == QueryStatus.QUEUED
            with pytest.raises(snowflake.connector.errors.Error) as info:
                cur.execute("SELECT 2")
            assert info.value.sqlstate == "53000"
            assert "already queued" in str(info.value)
            cur.abort_query(running)
            cur.get_results_from_sfqid(queued)
            assert cur.fetchall() == [(1,)]
            assert conn.get_query_status(running) in (QueryStatus.ABORTED, QueryStatus.FAILED_WITH_ERROR)
    finally:
        srv.stop()


def test_file_uploads_are_not_held_to_the_request_limit(strict: Server, tmp_path: Path) -> None:
    """PUT streams files to the stage: a 3 MB file passes a server whose request limit is 1 MiB."""
    data = tmp_path / "big.csv"
    data.write_text("".join(f"{i},{'x' * 90}\n" for i in range(30_000)))
    with strict.connect() as conn:
        cur = conn.cursor()
        cur.execute("CREATE OR REPLACE STAGE big_files")
        cur.execute(f"PUT 'file://{data}' @big_files AUTO_COMPRESS = FALSE")
        assert cur.fetchone()[6] == "UPLOADED"
        cur.execute("CREATE OR REPLACE TABLE big (n INT, s VARCHAR)")
        cur.execute("COPY INTO big FROM @big_files FILE_FORMAT = (TYPE = CSV)")
        assert cur.execute("SELECT COUNT(*) FROM big").fetchone() == (30_000,)
