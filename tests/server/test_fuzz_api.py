"""Property-based fuzzing of the Snowflake v1 API (hypothesis, in-process TestClient): malformed
bodies, headers, tokens and SQL never produce a 500, a traceback or a non-Snowflake answer."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from embucket_py.config import load_settings
from embucket_py.server.app import build_app

# Fresh inputs on every local run; the same ones in CI (CI=true), so a red build is reproducible.
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data_dir: Path = tmp_path_factory.mktemp("fuzz")
    # A high lock threshold: the fuzzer's failed logins must not lock the real user out.
    overrides = {"data_dir": str(data_dir), "login_failures_before_lock": 1_000_000}
    with TestClient(build_app(load_settings(overrides, env={})), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def token(client: TestClient) -> str:
    body = {"data": {"LOGIN_NAME": "embucket", "PASSWORD": "embucket", "CLIENT_APP_VERSION": "5.2.0"}}
    return str(client.post("/session/v1/login-request", json=body).json()["data"]["token"])


def _snowflake_answer(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 401, 404, 405, 413), response.status_code
    if response.status_code in (404, 405):
        return {}
    answer = response.json()
    assert isinstance(answer, dict) and isinstance(answer.get("success"), bool)
    if not answer["success"]:
        assert isinstance(answer["code"], str) and answer["code"].isdigit()
        assert "Traceback" not in str(answer["message"])
    return dict(answer)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
login_fields = st.fixed_dictionaries(
    {},
    optional={
        key: json_values
        for key in ("LOGIN_NAME", "PASSWORD", "AUTHENTICATOR", "TOKEN", "SESSION_PARAMETERS", "ACCOUNT_NAME")
    },
)


@FUZZ
@given(data=st.one_of(json_values, login_fields), wrap=st.booleans())
def test_login_bodies(client: TestClient, data: Any, wrap: bool) -> None:
    body = {"data": data} if wrap else data
    answer = _snowflake_answer(client.post("/session/v1/login-request", content=json.dumps(body)))
    assert answer["success"] is False  # no generated body holds the real credentials


@FUZZ
@given(raw=st.binary(max_size=200))
def test_raw_bodies(client: TestClient, token: str, raw: bytes) -> None:
    headers = {"Authorization": f'Snowflake Token="{token}"'}
    for path in ("/session/v1/login-request", "/queries/v1/query-request", "/session/token-request"):
        _snowflake_answer(client.post(path, content=raw, headers=headers))


@FUZZ
@given(
    header=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=80),
    path=st.sampled_from(["/queries/v1/query-request", "/session/heartbeat"]),
)
def test_authorization_headers(client: TestClient, header: str, path: str) -> None:
    answer = _snowflake_answer(
        client.post(path, json={"sqlText": "SELECT 1"}, headers={"Authorization": header})
    )
    # A forged or random token never opens a session.
    assert answer.get("success") is not True


@FUZZ
@given(token_text=st.from_regex(r"(ST|MT)-[A-Za-z0-9_\-]{0,50}", fullmatch=True))
def test_forged_tokens(client: TestClient, token_text: str) -> None:
    headers = {"Authorization": f'Snowflake Token="{token_text}"'}
    answer = _snowflake_answer(
        client.post("/queries/v1/query-request", json={"sqlText": "SELECT 1"}, headers=headers)
    )
    assert answer["success"] is False
    renewed = _snowflake_answer(
        client.post("/session/token-request", json={"oldSessionToken": token_text}, headers=headers)
    )
    assert renewed["success"] is False


_WORDS = """SELECT FROM WHERE GROUP BY ORDER LIMIT ( ) , ; * 1 'x' NULL AS t a JOIN ON = < + - / ||
CREATE TABLE DROP INSERT INTO VALUES UPDATE SET DELETE ALTER USER SESSION SHOW DESCRIBE TABLES
CAST :: VARIANT ARRAY_CONSTRUCT PARSE_JSON $1 ? IDENTIFIER TO_DATE"""
sql_words = st.sampled_from(_WORDS.split())


@FUZZ
@given(
    words=st.lists(sql_words, max_size=12),
    parameters=st.dictionaries(
        st.sampled_from(["STATEMENT_TIMEOUT_IN_SECONDS", "MULTI_STATEMENT_COUNT", "TIMEZONE"]),
        json_values,
        max_size=2,
    ),
)
def test_sql_fragments(client: TestClient, token: str, words: list[str], parameters: dict[str, Any]) -> None:
    headers = {"Authorization": f'Snowflake Token="{token}"'}
    body = {"sqlText": " ".join(words), "parameters": parameters}
    answer = _snowflake_answer(client.post("/queries/v1/query-request", json=body, headers=headers))
    assert answer.get("code") != "100001", answer  # no internal error: every failure is named


@pytest.fixture(scope="module")
def key_user(client: TestClient, token: str) -> Any:
    """A user KP_FUZZ holding one RSA key; returns the private key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    body = "".join(pem.decode().splitlines()[1:-1])
    headers = {"Authorization": f'Snowflake Token="{token}"'}
    sql = f"CREATE USER kp_fuzz RSA_PUBLIC_KEY = '{body}'"
    assert client.post("/queries/v1/query-request", json={"sqlText": sql}, headers=headers).json()["success"]
    return key


def _jwt(key: Any, header: dict[str, Any], claims: dict[str, Any], tamper: bool) -> str:
    import base64
    import hashlib

    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    fingerprint = "SHA256:" + base64.b64encode(hashlib.sha256(der).digest()).decode()
    claims = {k: (v.replace("{fp}", fingerprint) if isinstance(v, str) else v) for k, v in claims.items()}
    signed = f"{part(header)}.{part(claims)}"
    signature = key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
    if tamper:
        signature = bytes([signature[0] ^ 1]) + signature[1:]
    return f"{signed}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


@FUZZ
@given(
    alg=st.sampled_from(["RS256", "none", "HS256", "RS512"]),
    sub=st.sampled_from(["EMBUCKET.KP_FUZZ", "embucket.kp_fuzz", "EMBUCKET.EMBUCKET", "OTHER.KP_FUZZ", ""]),
    iss=st.sampled_from(
        ["EMBUCKET.KP_FUZZ.{fp}", "EMBUCKET.KP_FUZZ.SHA256:AAAA", "EMBUCKET.EMBUCKET.{fp}", "{fp}"]
    ),
    iat_offset=st.sampled_from([-30, 0, 30, 600, -7200]),
    lifetime=st.sampled_from([60, 120, 3600, 7200, -10]),
    tamper=st.booleans(),
)
def test_jwt_logins(
    client: TestClient,
    key_user: Any,
    alg: str,
    sub: str,
    iss: str,
    iat_offset: int,
    lifetime: int,
    tamper: bool,
) -> None:
    import time

    now = int(time.time())
    iat = now + iat_offset
    claims = {"sub": sub, "iss": iss, "iat": iat, "exp": iat + lifetime}
    token = _jwt(key_user, {"alg": alg, "typ": "JWT"}, claims, tamper)
    body = {"data": {"LOGIN_NAME": "kp_fuzz", "AUTHENTICATOR": "SNOWFLAKE_JWT", "TOKEN": token}}
    answer = _snowflake_answer(client.post("/session/v1/login-request", json=body))
    valid = (
        alg == "RS256"
        and sub.upper() == "EMBUCKET.KP_FUZZ"
        and iss == "EMBUCKET.KP_FUZZ.{fp}"
        and iat <= now + 60
        and iat + lifetime > now
        and lifetime <= 3600
        and not tamper
    )
    assert answer["success"] is valid, (claims, alg, tamper, answer.get("message"))
    if not valid:
        assert answer["code"] in ("390144", "390102")
