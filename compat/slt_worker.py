"""The process that talks to the server: runs .slt files record by record on one connection.

It runs apart from the runner because the connector can crash the whole client process on a
result it cannot read; the runner then notes the crash and starts a new worker. Requests arrive
on stdin and results leave on stdout, one JSON object per line:

    {"run": "<path>", "database": "<name>"}  ->  {"record": {...}} per record, then {"done": {...}}
    {"drop": "<name>"}                         ->  {"done": {...}}
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import snowflake.connector

from compat.slt import Record, SltSyntaxError, compare, error_matches, parse

CONNECTOR_MAJOR = int(snowflake.connector.__version__.split(".")[0])
# Time allowed beyond the statement timeout for the connector's own cancellation.
GRACE_SECONDS = 5.0
# The connector appends ids that differ on every run; reports are easier to compare without them.
_REQUEST_IDS = re.compile(r"\s*\(request_id=[^)]*\)")


@dataclass(frozen=True)
class ServerConfig:
    host: str = "localhost"
    port: int = 3000
    user: str = "embucket"
    password: str = "embucket"
    account: str = "embucket"
    protocol: str = "http"
    timeout: float = 30.0  # per statement, seconds


@dataclass
class RecordResult:
    line: int
    kind: str
    counted: bool
    passed: bool
    sql: str
    message: str = ""
    seconds: float = 0.0


@dataclass
class Outcome:
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    width: int = 0
    error: BaseException | None = None
    timed_out: bool = False


class StatementTimeout(Exception):
    pass


def watch(work: Callable[[], Any], seconds: float) -> Any:
    """Runs `work` on a daemon thread and waits at most `seconds` for it.

    Raises:
        StatementTimeout: it did not finish in time (the thread is left behind).
        BaseException: whatever `work` raised.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as e:
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise StatementTimeout(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def describe_error(error: BaseException) -> str:
    text = _REQUEST_IDS.sub("", str(error)).strip() or type(error).__name__
    return " ".join(text.split())[:300]


class Session:
    """One connection; replaced by a new one (same database) when a statement hangs."""

    def __init__(self, config: ServerConfig, database: str | None = None) -> None:
        self.config = config
        self.database = database
        self.abandoned = 0
        self.conn: Any = None

    def connect(self) -> None:
        config = self.config
        params: dict[str, Any] = {
            "account": config.account,
            "user": config.user,
            "password": config.password,
            "host": config.host,
            "port": config.port,
            "protocol": config.protocol,
            "login_timeout": max(int(config.timeout), 10),
        }
        if CONNECTOR_MAJOR >= 5:
            # Lets the connector give up on its own before the watchdog must.
            params["query_timeout"] = math.ceil(config.timeout)

        def open_connection() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                return snowflake.connector.connect(**params)

        self.conn = watch(open_connection, config.timeout + GRACE_SECONDS)

    def execute(self, sql: str) -> Outcome:
        conn = self.conn
        if conn is None:
            return Outcome(error=ConnectionError("no connection (a reconnect failed)"))

        def work() -> Outcome:
            with conn.cursor() as cur:
                cur.execute(sql)
                if cur.description is None:
                    return Outcome()
                return Outcome(list(cur.fetchall()), len(cur.description))

        started = time.monotonic()
        try:
            return watch(work, self.config.timeout + GRACE_SECONDS)
        except StatementTimeout as e:
            self._replace_connection()
            return Outcome(error=e, timed_out=True)
        except Exception as e:
            return Outcome(error=e, timed_out=time.monotonic() - started > self.config.timeout)

    def _replace_connection(self) -> None:
        """Abandons a connection whose statement hangs; later records run on a new one."""
        self.abandoned += 1
        stuck, self.conn = self.conn, None
        threading.Thread(target=_close_quietly, args=(stuck,), daemon=True).start()
        try:
            self.connect()
            if self.database:
                conn = self.conn
                watch(lambda: conn.cursor().execute(f"USE DATABASE {self.database}"), self.config.timeout)
        except Exception:
            self.conn = None

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                watch(self.conn.close, self.config.timeout)


def _close_quietly(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.close()


def check(record: Record, outcome: Outcome) -> str | None:
    """Why a record failed, or None when it passed."""
    if record.expect_error:
        if outcome.error is None:
            return "expected an error, the statement succeeded"
        if outcome.timed_out:
            return f"timed out: {describe_error(outcome.error)}"
        errno = getattr(outcome.error, "errno", None)
        sqlstate = getattr(outcome.error, "sqlstate", None)
        if not error_matches(errno, sqlstate, record.error_text):
            expected = (record.error_text or "").splitlines()[0]
            return f"wrong error: expected {expected!r}, got {describe_error(outcome.error)!r}"
        return None
    if outcome.error is not None:
        prefix = "timed out: " if outcome.timed_out else ""
        return prefix + describe_error(outcome.error)
    if record.kind == "query" and record.expected is not None:
        return compare(outcome.rows, outcome.width, record.expected, record.sort)
    return None


def run_record(record: Record, session: Session) -> RecordResult:
    started = time.monotonic()
    outcome = session.execute(record.sql)
    try:
        message = check(record, outcome)
    except Exception as e:  # a value the comparison cannot handle is a failure, not a crash
        message = f"cannot compare: {type(e).__name__}: {e}"
    seconds = round(time.monotonic() - started, 3)
    return RecordResult(
        record.line, record.kind, record.counted, message is None, record.sql, message or "", seconds
    )


def run_file(path: Path, database: str, config: ServerConfig, emit: Callable[[RecordResult], None]) -> dict:
    """Runs one file in a new database of its own (dropped afterwards). Returns the file's status."""
    try:
        records = parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SltSyntaxError) as e:
        return {"error": f"cannot read: {e}"}
    session = Session(config, database)
    try:
        session.connect()
        for setup in (f"CREATE DATABASE {database}", f"USE DATABASE {database}"):
            outcome = session.execute(setup)
            if outcome.error is not None:
                raise RuntimeError(f"{setup}: {describe_error(outcome.error)}")
    except Exception as e:
        session.close()
        return {"error": f"cannot start: {describe_error(e)}"}
    try:
        for record in records:
            emit(run_record(record, session))
    finally:
        session.execute(f"DROP DATABASE IF EXISTS {database}")
        session.close()
    return {"abandoned": session.abandoned}


def drop_database(database: str, config: ServerConfig) -> dict:
    session = Session(config)
    try:
        session.connect()
        outcome = session.execute(f"DROP DATABASE IF EXISTS {database}")
        return {"error": describe_error(outcome.error)} if outcome.error else {}
    except Exception as e:
        return {"error": describe_error(e)}
    finally:
        session.close()


def serve(config: ServerConfig, requests: IO[str], out: IO[str]) -> None:
    def send(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    for line in requests:
        request = json.loads(line)
        if "drop" in request:
            send({"done": drop_database(request["drop"], config)})
        else:
            status = run_file(
                Path(request["run"]),
                request["database"],
                config,
                lambda r: send({"record": asdict(r)}),
            )
            send({"done": status})


def worker_main(config: ServerConfig) -> None:
    # Results travel on the real stdout; anything else that prints (Python or native code) goes
    # to stderr, so it cannot garble the protocol.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(config, sys.stdin, out)
    out.flush()
    # Abandoned statements may still hold threads and exit hooks inside the connector.
    os._exit(0)
