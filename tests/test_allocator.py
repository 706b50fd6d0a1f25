"""The allocator setting the package makes before DataFusion and Arrow load (mimalloc reads it
once, when it starts): its default, and an operator's own setting left alone."""

from __future__ import annotations

import os
import re
import subprocess
import sys

_SHOW = "import embucket_py, os, pyarrow;pyarrow.array(range(1000));print(os.environ['MIMALLOC_PURGE_DELAY'])"


def _run(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MIMALLOC_")}
    out = subprocess.run([sys.executable, "-c", _SHOW], env=clean | env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


def test_freed_pages_are_kept_ten_seconds() -> None:
    out = _run(MIMALLOC_VERBOSE="1")  # mimalloc lists the options it took
    assert out.stdout.split() == ["10000"]
    assert re.search(r"option 'purge_delay': 10000\b", out.stderr)


def test_an_operators_own_setting_wins() -> None:
    out = _run(MIMALLOC_VERBOSE="1", MIMALLOC_PURGE_DELAY="10")
    assert out.stdout.split() == ["10"]
    assert re.search(r"option 'purge_delay': 10\b", out.stderr)
