"""The Dockerfile and compose file keep the invariants users and the tests rely on.

No Docker engine runs here, so these parse the files: a broken port, user, volume, entrypoint,
health check or install step fails this test instead of a user's `docker run`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def instructions(text: str) -> list[tuple[str, str, str]]:
    """(stage, INSTRUCTION, arguments) for each Dockerfile instruction, continuations joined."""
    joined = re.sub(r"\\\n", " ", text)
    stage = ""
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            stage = rest.split(" AS ")[-1].strip() if " AS " in rest else rest
        found.append((stage, word.upper(), rest.strip()))
    return found


def test_dockerfile_invariants() -> None:
    steps = instructions((ROOT / "Dockerfile").read_text())
    stages = [rest.split(" AS ")[1] for _, word, rest in steps if word == "FROM"]
    assert stages == ["base", "spark", "server"]  # the server is the default (last) target
    base = {(word, rest) for stage, word, rest in steps if stage == "base"}
    assert ("EXPOSE", "3000") in base
    assert ("VOLUME", "/data") in base
    assert ("USER", "embucket") in base
    entrypoint = next(json.loads(rest) for _, word, rest in steps if word == "ENTRYPOINT")
    assert entrypoint[:2] == ["embucket-py", "serve"]
    assert entrypoint[entrypoint.index("--host") + 1] == "0.0.0.0"
    assert entrypoint[entrypoint.index("--data-dir") + 1] == "/data"
    health = next(rest for _, word, rest in steps if word == "HEALTHCHECK")
    assert "127.0.0.1:3000/health" in health
    # The last USER of every stage is the unprivileged one.
    for stage in ("base", "spark"):
        users = [rest for s, word, rest in steps if s == stage and word == "USER"]
        assert users[-1] == "embucket"
    runs = [rest for _, word, rest in steps if word == "RUN"]
    assert all("docker/install.sh" in r for r in runs)
    assert any("spark" in r and "openjdk-17" in r for r in runs)
    copies = [rest for _, word, rest in steps if word == "COPY"]
    assert "docker/install.sh ./docker/install.sh" in copies


def test_makefile_uses_the_same_install_script() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"sh docker/install\.sh \$\(BIN\)/pip \S*spark\S*", makefile)
    script = (ROOT / "docker" / "install.sh").read_text()
    assert script.startswith("#!/bin/sh")
    assert "pip" in script and "apt-get install" in script


def test_compose_invariants() -> None:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"embucket", "seaweedfs", "spark-job"}
    server = services["embucket"]
    assert server["ports"] == ["3000:3000"]
    assert server["build"]["target"] == "server"
    assert "embucket-data:/data" in server["volumes"]
    env = server["environment"]
    assert env["EMBUCKET_WAREHOUSE"].startswith("s3://")
    assert env["EMBUCKET_S3_ENDPOINT"] == "http://seaweedfs:8333"
    # The secret comes from the environment of `docker compose`, never a literal in the file.
    assert env["EMBUCKET_S3_SECRET_ACCESS_KEY"].startswith("${")
    assert "-s3" in services["seaweedfs"]["command"]
    assert services["spark-job"]["build"]["target"] == "spark"
    assert "http://embucket:3000" in services["spark-job"]["command"]
    assert set(compose["volumes"]) == {"embucket-data", "seaweedfs-data"}
