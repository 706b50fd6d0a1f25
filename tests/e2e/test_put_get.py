"""PUT / GET / LIST / REMOVE through the real connector (5.x over our S3 endpoint, 4.x LOCAL_FS)."""

from __future__ import annotations

import gzip
from pathlib import Path


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_put_compresses_and_list_shows_the_file(cur, tmp_path: Path) -> None:
    source = _write(tmp_path / "data.csv", "1,a\n2,b\n")
    cur.execute("CREATE STAGE st")
    rows = cur.execute(f"PUT file://{source} @st").fetchall()
    assert [(r[0], r[1], r[4], r[5], r[6]) for r in rows] == [
        ("data.csv", "data.csv.gz", "NONE", "GZIP", "UPLOADED")
    ]
    listed = cur.execute("LIST @st").fetchall()
    assert [r[0] for r in listed] == ["st/data.csv.gz"]
    assert [c.name for c in cur.description] == ["name", "size", "md5", "last_modified"]
    assert listed[0][1] > 0


def test_put_of_a_glob_uploads_every_file_and_get_returns_them(cur, tmp_path: Path) -> None:
    for name in ("a.csv", "b.csv"):
        _write(tmp_path / name, f"{name}\n")
    cur.execute("CREATE STAGE st")
    rows = cur.execute(f"PUT file://{tmp_path}/*.csv @st/in AUTO_COMPRESS=FALSE").fetchall()
    assert sorted(r[1] for r in rows) == ["a.csv", "b.csv"]
    target = tmp_path / "out"
    target.mkdir()
    got = cur.execute(f"GET @st/in file://{target}/").fetchall()
    assert sorted((r[0], r[2]) for r in got) == [("a.csv", "DOWNLOADED"), ("b.csv", "DOWNLOADED")]
    assert (target / "a.csv").read_text() == "a.csv\n"


def test_get_of_a_compressed_file_returns_the_gzip_bytes(cur, tmp_path: Path) -> None:
    source = _write(tmp_path / "x.csv", "hello\n")
    cur.execute(f"PUT file://{source} @~/g/")
    target = tmp_path / "out"
    target.mkdir()
    cur.execute(f"GET @~/g/x.csv.gz file://{target}/")
    assert gzip.decompress((target / "x.csv.gz").read_bytes()) == b"hello\n"
    cur.execute("REMOVE @~/g/")


def test_list_pattern_and_remove(cur, tmp_path: Path) -> None:
    for name in ("keep.txt", "drop.csv"):
        _write(tmp_path / name, "x\n")
    cur.execute("CREATE TABLE t (a INT)")
    cur.execute(f"PUT file://{tmp_path}/keep.txt @%t AUTO_COMPRESS=FALSE")
    cur.execute(f"PUT file://{tmp_path}/drop.csv @%t AUTO_COMPRESS=FALSE")
    assert [r[0] for r in cur.execute("LS @%t PATTERN='.*[.]csv'").fetchall()] == ["drop.csv"]
    removed = cur.execute("RM @%t PATTERN='.*csv'").fetchall()
    assert removed == [("drop.csv", "removed")]
    assert [r[0] for r in cur.execute("LIST @%t").fetchall()] == ["keep.txt"]


def test_put_without_overwrite_keeps_an_identical_file(cur, tmp_path: Path) -> None:
    source = _write(tmp_path / "same.csv", "1\n")
    cur.execute("CREATE STAGE st")
    cur.execute(f"PUT file://{source} @st AUTO_COMPRESS=FALSE")
    again = cur.execute(f"PUT file://{source} @st AUTO_COMPRESS=FALSE OVERWRITE=TRUE").fetchall()
    assert again[0][6] == "UPLOADED"
    assert len(cur.execute("LIST @st").fetchall()) == 1
