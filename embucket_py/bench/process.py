"""A server process for benchmarks: `embucket-py serve` on a free port, its peak memory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType

import snowflake.connector


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """Starts `embucket-py serve` with its own data directory; stops it on exit."""

    def __init__(self, data_dir: Path, user: str = "embucket", password: str = "embucket") -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.user, self.password = user, password
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ServerProcess:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = (self.data_dir / "server.log").open("ab")
        command = [sys.executable, "-m", "embucket_py", "serve", "--port", str(self.port)]
        command += ["--data-dir", str(self.data_dir), "--log-level", "warning"]
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1):
                    return self
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"server exited; see {self.data_dir / 'server.log'}") from None
                time.sleep(0.2)
        raise RuntimeError("server did not become healthy within 60 s")

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def connect(self, reuse: bool = False, **kwargs: object) -> snowflake.connector.SnowflakeConnection:
        """A connection whose queries run every time (USE_CACHED_RESULT off, as benchmarks on
        Snowflake do) unless `reuse`."""
        return snowflake.connector.connect(
            session_parameters={"USE_CACHED_RESULT": reuse},
            user=self.user,
            password=self.password,
            account="embucket",
            host="127.0.0.1",
            port=self.port,
            protocol="http",
            **kwargs,
        )

    def peak_rss_mb(self) -> float:
        """The server's peak resident memory so far (Linux VmHWM)."""
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")


def environment() -> dict[str, object]:
    """What the numbers were measured on."""
    import platform

    import datafusion

    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    mem = int(Path("/proc/meminfo").read_text().split()[1]) // 1024
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_mb": mem,
        "python": platform.python_version(),
        "datafusion": datafusion.__version__,
        "connector": snowflake.connector.__version__,
        "date": time.strftime("%Y-%m-%d"),
    }
