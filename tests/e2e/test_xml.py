"""XML end to end: PARSE_XML, XMLGET, CHECK_XML, TO_XML and XML files, with the documented
examples (docs.snowflake.com/en/sql-reference/functions/parse_xml, xmlget, to_xml)."""

from __future__ import annotations

import gzip
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from snowflake.connector.errors import ProgrammingError

LEVELS = '<level1 attr1="a">1<level2 attr2="b">2<level3>3a</level3><level3>3b</level3></level2></level1>'


def test_parse_xml_prints_as_indented_xml_and_xmlget_takes_elements(cur: Any) -> None:
    cur.execute("CREATE TABLE xml_demo (id INT, obj OBJECT)")
    cur.execute(f"INSERT INTO xml_demo SELECT 1001, PARSE_XML('{LEVELS}')")
    cur.execute(
        "SELECT obj, XMLGET(obj, 'level2'), XMLGET(XMLGET(obj, 'level2'), 'level3', 1), "
        "XMLGET(obj, 'level2', 5) FROM xml_demo"
    )
    obj, level2, second, missing = cur.fetchone()
    assert obj == (
        '<level1 attr1="a">\n  1\n  <level2 attr2="b">\n    2\n    <level3>3a</level3>\n'
        "    <level3>3b</level3>\n  </level2>\n</level1>"
    )
    assert level2 == '<level2 attr2="b">\n  2\n  <level3>3a</level3>\n  <level3>3b</level3>\n</level2>'
    assert (second, missing) == ("<level3>3b</level3>", None)
    assert [d.type_code for d in cur.description] == [9, 9, 9, 9]  # OBJECT


def test_an_element_is_an_object_of_tag_attributes_content_and_positions(cur: Any) -> None:
    (text,) = cur.execute(f"SELECT TO_JSON(PARSE_XML('{LEVELS}'))").fetchone()
    assert json.loads(text) == {
        "@": "level1",
        "@attr1": "a",
        "$": [
            1,
            {
                "@": "level2",
                "@attr2": "b",
                "$": [2, {"@": "level3", "$": "3a"}, {"@": "level3", "$": "3b"}],
                "level3": [1, 2],
            },
        ],
        "level2": 1,
    }
    cur.execute(
        "SELECT GET(e, '$'), GET(e, '@x'), GET(e, '@')::VARCHAR, e:\"$\"::VARCHAR "
        "FROM (SELECT XMLGET(PARSE_XML('<a><b x=\"7\">hi</b></a>'), 'b') AS e)"
    )
    assert cur.fetchone() == ('"hi"', "7", "b", "hi")


def test_text_converts_to_numbers_and_booleans_unless_disabled(cur: Any) -> None:
    cur.execute(
        "SELECT PARSE_XML('<n>12.50</n>'):\"$\", TYPEOF(PARSE_XML('<n>12.50</n>'):\"$\"), "
        "PARSE_XML('<n>007</n>'):\"$\", PARSE_XML('<n>true</n>'):\"$\", "
        "TYPEOF(PARSE_XML('<n>1.2345e+02</n>'):\"$\"), "
        "PARSE_XML('<n>12</n>', TRUE):\"$\", "
        'PARSE_XML(STR => \'<n a="5">12</n>\', DISABLE_AUTO_CONVERT => TRUE):"@a"'
    )
    assert cur.fetchone() == ("12.5", "DECIMAL", '"007"', "true", "DOUBLE", '"12"', '"5"')


def test_xml_as_varchar_is_compact_and_to_xml_tags_other_values(cur: Any) -> None:
    cur.execute("CREATE TABLE xml_02 (x OBJECT)")
    cur.execute("INSERT INTO xml_02 (x) SELECT PARSE_XML('<note> <body>Sample XML</body> </note>')")
    cur.execute("SELECT x, TO_VARCHAR(x), TO_XML(x), x::VARCHAR FROM xml_02")
    compact = "<note><body>Sample XML</body></note>"
    assert cur.fetchone() == ("<note>\n  <body>Sample XML</body>\n</note>", compact, compact, compact)
    cur.execute(
        "SELECT TO_XML(OBJECT_CONSTRUCT('key1', 'value1', 'key2', 'value2')), "
        "TO_XML(ARRAY_CONSTRUCT('v1', 'v2')), TO_XML(NULL)"
    )
    assert cur.fetchone() == (
        '<SnowflakeData type="OBJECT"><key1 type="VARCHAR">value1</key1>'
        '<key2 type="VARCHAR">value2</key2></SnowflakeData>',
        '<SnowflakeData type="ARRAY"><e type="VARCHAR">v1</e><e type="VARCHAR">v2</e></SnowflakeData>',
        None,
    )


def test_markup_in_text_is_escaped_and_empty_elements_print_whole(cur: Any) -> None:
    cur.execute(
        "SELECT PARSE_XML('<a>x &amp; y &lt; z</a>'), PARSE_XML('<a>x &amp; y</a>'):\"$\"::VARCHAR, "
        "PARSE_XML('<a/>'), PARSE_XML('<a/>'):\"$\""
    )
    assert cur.fetchone() == ("<a>x &amp; y &lt; z</a>", "x & y", "<a></a>", None)


def test_invalid_xml_is_an_error_that_check_xml_reports(cur: Any) -> None:
    with pytest.raises(ProgrammingError) as caught:
        cur.execute("SELECT PARSE_XML('<a><b></a>')")
    assert (caught.value.errno, caught.value.sqlstate) == (100069, "22P02")
    assert "Error parsing XML" in caught.value.msg
    cur.execute("SELECT CHECK_XML('<a><b></a>'), CHECK_XML('<a/>'), CHECK_XML(NULL), PARSE_XML(NULL)")
    reason, valid, null, parsed = cur.fetchone()
    assert "mismatched tag" in reason
    assert (valid, null, parsed) == (None, None, None)
    assert cur.execute("SELECT 1").fetchone() == (1,)  # the session goes on


BOOKS = b"""<?xml version="1.0" encoding="UTF-8"?>
<catalog>
  <book id="bk101">
    <author>Gambardella, Matthew</author>
    <title>XML Developer's Guide</title>
    <price>44.95</price>
  </book>
  <book id="bk102">
    <author>Ralls, Kim</author>
    <title>Midnight &amp; Rain</title>
    <price>5.95</price>
  </book>
</catalog>
"""


@pytest.fixture
def put(cur: Any, tmp_path: Path) -> Any:
    cur.execute("CREATE STAGE st")

    def upload(name: str, data: bytes) -> None:
        (tmp_path / name).write_bytes(data)
        cur.execute(f"PUT file://{tmp_path}/{name} @st AUTO_COMPRESS=FALSE")

    return upload


def test_xml_files_load_a_row_per_element_inside_the_outer_one(cur: Any, put: Any) -> None:
    put("books.xml", BOOKS)
    put("more.xml.gz", gzip.compress(b'<book id="bk103"><price>1</price></book><book id="bk104"/>'))
    cur.execute("CREATE TABLE books (v VARIANT)")
    loaded = cur.execute(
        "COPY INTO books FROM @st FILES = ('books.xml') FILE_FORMAT = (TYPE = XML STRIP_OUTER_ELEMENT = TRUE)"
    ).fetchall()
    assert [r[:4] for r in loaded] == [("st/books.xml", "LOADED", 2, 2)]
    cur.execute(
        'SELECT v:"@id"::VARCHAR, XMLGET(v, \'title\'):"$"::VARCHAR, XMLGET(v, \'price\'):"$"::NUMBER(10, 2) '
        "FROM books ORDER BY 1"
    )
    assert cur.fetchall() == [
        ("bk101", "XML Developer's Guide", Decimal("44.95")),
        ("bk102", "Midnight & Rain", Decimal("5.95")),
    ]
    # Without STRIP_OUTER_ELEMENT a file's top-level elements are its rows (one document here,
    # two in the compressed file).
    cur.execute("CREATE TABLE whole (v VARIANT)")
    loaded = cur.execute("COPY INTO whole FROM @st FILE_FORMAT = (TYPE = XML)").fetchall()
    assert sorted(r[:4] for r in loaded) == [
        ("st/books.xml", "LOADED", 1, 1),
        ("st/more.xml.gz", "LOADED", 2, 2),
    ]
    cur.execute(
        'SELECT b.value:"@id"::VARCHAR FROM whole, LATERAL FLATTEN(whole.v:"$") b '
        "WHERE whole.v:\"@\" = 'catalog' ORDER BY 1"
    )
    assert cur.fetchall() == [("bk101",), ("bk102",)]
    assert cur.execute("SELECT COUNT(*) FROM whole WHERE v:\"@\" = 'book'").fetchone() == (2,)


def test_staged_xml_files_are_queried_with_a_named_format(cur: Any, put: Any) -> None:
    put("books.xml", BOOKS)
    cur.execute("CREATE FILE FORMAT xf TYPE = XML STRIP_OUTER_ELEMENT = TRUE DISABLE_AUTO_CONVERT = TRUE")
    cur.execute(
        "SELECT $1:\"@id\"::VARCHAR, XMLGET($1, 'price'):\"$\" FROM @st (FILE_FORMAT => 'xf') ORDER BY 1"
    )
    assert cur.fetchall() == [("bk101", '"44.95"'), ("bk102", '"5.95"')]
    described = {r[0]: r[2] for r in cur.execute("DESC FILE FORMAT xf").fetchall()}
    assert (described["TYPE"], described["STRIP_OUTER_ELEMENT"], described["PRESERVE_SPACE"]) == (
        "XML",
        "true",
        "false",
    )


def test_a_file_that_is_not_xml_fails_and_loads_nothing(cur: Any, put: Any) -> None:
    put("bad.xml", b"<a><b></a>")
    cur.execute("CREATE TABLE t (v VARIANT)")
    with pytest.raises(ProgrammingError, match="Error parsing XML"):
        cur.execute("COPY INTO t FROM @st FILE_FORMAT = (TYPE = XML)")
    with pytest.raises(ProgrammingError, match="MATCH_BY_COLUMN_NAME is not supported for XML"):
        cur.execute("COPY INTO t FROM @st FILE_FORMAT = (TYPE = XML) MATCH_BY_COLUMN_NAME = CASE_INSENSITIVE")
    assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)


def test_stored_semi_structured_columns_keep_their_type_in_functions(cur: Any) -> None:
    # A table of one data file is scanned from Parquet, whose reader drops the column's VARIANT
    # tag at run time: the type must come from the declared column, or a stored string VARIANT
    # reads as JSON text (`"abc"` with its quotes) and objects nest as strings.
    cur.execute("CREATE TABLE one_file (v VARIANT, o OBJECT)")
    cur.execute("INSERT INTO one_file SELECT PARSE_JSON('\"abc\"'), OBJECT_CONSTRUCT('a', 1)")
    cur.execute(
        "SELECT v::VARCHAR, TO_VARCHAR(v), TO_JSON(o), OBJECT_CONSTRUCT('k', v, 'o', o), "
        "ARRAY_CONSTRUCT(o), TO_VARCHAR(o) FROM one_file"
    )
    text, to_varchar, as_json, nested, array, object_text = cur.fetchone()
    assert (text, to_varchar, as_json, object_text) == ("abc", "abc", '{"a":1}', '{"a":1}')
    assert json.loads(nested) == {"k": "abc", "o": {"a": 1}}
    assert json.loads(array) == [{"a": 1}]
    assert cur.description[5].type_code == 2  # TO_VARCHAR of an OBJECT is text
