"""Snowflake CLI, unmodified: `snow sql -q ...` and `snow connection test` through a connection
named in its config file that points at the server."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.e2e.conftest import Server
from tests.tools.conftest import tool


def snow(server: Server, home: Path, database: str, *args: str) -> str:
    config = home / "config.toml"
    config.write_text(
        'default_connection_name = "local"\n\n[connections.local]\n'
        'account = "embucket"\nuser = "embucket"\npassword = "embucket"\n'
        f'host = "127.0.0.1"\nport = {server.port}\nprotocol = "http"\n'
        f'database = "{database}"\nschema = "PUBLIC"\nwarehouse = "COMPUTE_WH"\n'
    )
    config.chmod(0o600)  # the CLI refuses a config file others can read
    command = [str(tool(".venv-snow", "snow", "EMBUCKET_SNOW")), "--config-file", str(config), *args]
    env = {**os.environ, "SNOWFLAKE_HOME": str(home)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"snow {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_snow_sql_runs_statements_and_returns_rows(
    server: Server, tool_database: str, tmp_path: Path
) -> None:
    out = snow(
        server,
        tmp_path,
        tool_database,
        "sql",
        "--format",
        "json",
        "-q",
        "create table fruit (name varchar, qty int); insert into fruit values ('fig', 3), ('pear', 5); "
        "select name, qty * 2 as doubled from fruit order by name",
    )
    results = json.loads(out)
    assert results[-1] == [{"NAME": "fig", "DOUBLED": 6}, {"NAME": "pear", "DOUBLED": 10}]
    assert results[1] == [{"number of rows inserted": 2}]


def test_snow_connection_test_succeeds(server: Server, tool_database: str, tmp_path: Path) -> None:
    out = snow(server, tmp_path, tool_database, "connection", "test", "--format", "json")
    assert json.loads(out)["Status"] == "OK"
