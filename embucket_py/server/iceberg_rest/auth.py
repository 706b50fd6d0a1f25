"""OAuth2 client-credentials tokens for Iceberg clients, tied to the server's users.

`POST /v1/oauth/tokens` with client_id = user and client_secret = password (what Spark's and
pyiceberg's `credential=user:password` send) returns a signed bearer token. Tokens are stateless
(user, expiry, HMAC) under a per-process key: a restart invalidates them, and clients that use
`credential=` simply fetch a new one. A Snowflake session token of a logged-in connector session
is accepted as a bearer token too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from dataclasses import dataclass

from embucket_py.catalog.metastore import Metastore
from embucket_py.errors import SnowflakeError
from embucket_py.server.iceberg_rest.errors import not_authorized
from embucket_py.sessions.store import SessionStore

TOKEN_TTL = 3600
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_KEY = os.urandom(32)


@dataclass(frozen=True)
class OAuthError(Exception):
    """An OAuth2 error body (RFC 6749 5.2), not the Iceberg error model."""

    status: int
    error: str
    description: str

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


def use_secret(secret: str) -> None:
    """Derives the signing key from the servers' shared secret, so every server (and a restarted
    one) accepts the tokens any of them issued."""
    global _KEY
    _KEY = hashlib.sha256(b"embucket-iceberg-oauth|" + secret.encode()).digest()


def _sign(payload: str) -> str:
    return hmac.new(_KEY, payload.encode(), hashlib.sha256).hexdigest()


def issue(user: str, ttl: int = TOKEN_TTL) -> str:
    payload = f"{user.upper()}|{int(time.time()) + ttl}"
    raw = f"{payload}|{_sign(payload)}".encode()
    return "ebt_" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def verify(token: str) -> str | None:
    """The user a token of ours was issued to, or None if it is not valid."""
    if not token.startswith("ebt_"):
        return None
    try:
        raw = base64.urlsafe_b64decode(token[4:] + "=" * (-len(token[4:]) % 4)).decode()
        user, expiry, signature = raw.rsplit("|", 2)
    except ValueError:
        return None
    if not hmac.compare_digest(signature, _sign(f"{user}|{expiry}")) or int(expiry) < time.time():
        return None
    return user


def token_response(metastore: Metastore, form: dict[str, str]) -> dict[str, object]:
    """Handles the client-credentials grant. Raises OAuthError."""
    grant = form.get("grant_type", "")
    if grant == TOKEN_EXCHANGE:
        # Java clients refresh a token before it expires by exchanging it for a new one.
        user = verify(form.get("subject_token", ""))
        if user is None:
            raise OAuthError(401, "invalid_grant", "The subject token is invalid or expired.")
    elif grant == "client_credentials":
        user, secret = form.get("client_id", ""), form.get("client_secret", "")
        if not user or not metastore.authenticate(user, secret):
            raise OAuthError(401, "invalid_client", "Incorrect username or password was specified.")
    else:
        raise OAuthError(400, "unsupported_grant_type", f"grant_type {grant!r} is not supported")
    return {
        "access_token": issue(user),
        "token_type": "bearer",
        "expires_in": TOKEN_TTL,
        "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
    }


def authorize(header: str | None, sessions: SessionStore) -> str:
    """The user behind an `Authorization: Bearer ...` header. Raises RestError(401)."""
    scheme, _, token = (header or "").partition(" ")
    token = token.strip()
    # pyiceberg sends the literal "Bearer None" when it has no token.
    if scheme.lower() != "bearer" or not token or token == "None":
        raise not_authorized()
    user = verify(token)
    if user is not None:
        return user
    try:
        return str(sessions.get(token).user)
    except SnowflakeError:
        pass
    raise not_authorized("Not authorized: the bearer token is invalid or expired")
