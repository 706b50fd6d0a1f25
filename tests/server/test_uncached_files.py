"""Results moved to disk are written past the page cache and read back byte for byte."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from embucket_py.server.snowflake.uncached_files import BLOCK, STAGE_BYTES, UncachedWriter

SIZES = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, STAGE_BYTES, STAGE_BYTES + 123, 2 * STAGE_BYTES + BLOCK]


@pytest.mark.parametrize("size", SIZES)
def test_a_file_holds_exactly_the_bytes_written(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    path = tmp_path / "chunk"
    UncachedWriter().write(str(path), memoryview(data))
    assert path.stat().st_size == size  # the last block's padding is cut off
    assert path.read_bytes() == data


def test_one_writer_writes_many_files_through_its_one_buffer(tmp_path: Path) -> None:
    writer = UncachedWriter()
    payloads = [os.urandom(n) for n in (STAGE_BYTES + 7, 3, 5 * BLOCK)]
    for i, data in enumerate(payloads):
        writer.write(str(tmp_path / f"c{i}"), data)
    assert [(tmp_path / f"c{i}").read_bytes() for i in range(3)] == payloads


def test_a_file_system_refusing_direct_writes_gets_an_ordinary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file system on this machine (ext4, tmpfs) accepts O_DIRECT: the refusal others give
    # (EINVAL on open) is simulated.
    real_open = os.open

    def refusing(path: str, flags: int, *args: int) -> int:
        if flags & getattr(os, "O_DIRECT", 0):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing)
    data = os.urandom(BLOCK + 5)
    path = tmp_path / "chunk"
    UncachedWriter().write(str(path), data)
    assert path.read_bytes() == data
