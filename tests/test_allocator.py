"""The allocator settings the package makes before DataFusion and Arrow load (mimalloc reads them
once, at its first allocation): its defaults, and an operator's own settings left alone."""

from __future__ import annotations

import os
import subprocess
import sys

_SHOW = (
    "import embucket_py, os, pyarrow;"
    "pyarrow.array(range(1000));"
    "print(os.environ['MIMALLOC_PURGE_DELAY'], os.environ['MIMALLOC_PURGE_DECOMMITS'])"
)


def _run(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MIMALLOC_")}
    out = subprocess.run([sys.executable, "-c", _SHOW], env=clean | env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


def test_freed_pages_are_kept_a_second_and_returned_lazily() -> None:
    out = _run(MIMALLOC_VERBOSE="1")  # mimalloc lists the options it took
    assert out.stdout.split() == ["1000", "0"]
    assert "option 'purge_delay': 1000" in out.stderr
    assert "option 'purge_decommits': 0" in out.stderr


def test_an_operators_own_settings_win() -> None:
    assert _run(MIMALLOC_PURGE_DELAY="10", MIMALLOC_PURGE_DECOMMITS="1").stdout.split() == ["10", "1"]
