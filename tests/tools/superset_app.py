"""A real Apache Superset for tests: its own virtualenv, a SQLite metadata database in a temporary
directory, an admin user, its web server on a free port, and a small REST client (JWT + CSRF)."""

from __future__ import annotations

import http.cookiejar
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.e2e.conftest import free_port
from tests.tools.conftest import tool

ADMIN = {"username": "admin", "password": "admin"}


class Superset:
    """`superset db upgrade`, `fab create-admin`, `init`, then `superset run`."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.exe = tool(".venv-superset", "superset", "EMBUCKET_SUPERSET")
        config = home / "superset_config.py"
        config.write_text(
            'SECRET_KEY = "embucket-tests-only-0123456789abcdef"\n'
            f'SQLALCHEMY_DATABASE_URI = "sqlite:///{home / "superset.db"}"\n'
        )
        self.env = {**os.environ, "SUPERSET_CONFIG_PATH": str(config), "FLASK_APP": "superset"}
        self.process: subprocess.Popen[bytes] | None = None
        self.log = home / "superset.log"

    def cli(self, *args: str) -> None:
        done = subprocess.run(
            [str(self.exe), *args], env=self.env, cwd=self.home, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, (
            f"superset {' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )

    def start(self) -> None:
        self.cli("db", "upgrade")
        self.cli(
            "fab", "create-admin", "--username", ADMIN["username"], "--password", ADMIN["password"],
            "--firstname", "Ada", "--lastname", "Admin", "--email", "admin@example.com",
        )  # fmt: skip
        self.cli("init")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [str(self.exe), "run", "-h", "127.0.0.1", "-p", str(self.port), "--with-threads"],
                env=self.env,
                cwd=self.home,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"superset exited: {self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("superset did not start within 180 s")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


class Client:
    """Superset's REST API as a user of it: log in for a JWT, then send the CSRF token on writes."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
            urllib.request.ProxyHandler({}),  # 127.0.0.1 never goes through a proxy
        )
        self.headers: dict[str, str] = {}
        token = self.call("POST", "/api/v1/security/login", {**ADMIN, "provider": "db", "refresh": True})
        self.headers["Authorization"] = f"Bearer {token['access_token']}"
        csrf = self.call("GET", "/api/v1/security/csrf_token/")
        self.headers.update({"X-CSRFToken": csrf["result"], "Referer": base})

    def call(self, method: str, path: str, body: object = None, expect: int = 200) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {**self.headers, **({"Content-Type": "application/json"} if data is not None else {})}
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=300) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        assert status == expect, f"{method} {path} -> {status}: {text[:3000]}"
        return json.loads(text) if text else None
