"""XML documents as VARIANT values: parsing (one document, files of rows), recognizing, writing."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from embucket_py import xml_values
from embucket_py.engine.functions.variant_values import pretty


def test_mixed_content_keeps_document_order_and_child_positions() -> None:
    element = xml_values.parse("<r> lead <a>1</a> middle <b/><a x='y'>2</a> tail </r>")
    assert element == {
        "@": "r",
        "$": ["lead", {"@": "a", "$": 1}, "middle", {"@": "b"}, {"@": "a", "@x": "y", "$": 2}, "tail"],
        "a": [1, 4],
        "b": 3,
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        ("-3", -3),
        ("12.50", Decimal("12.50")),
        ("1.5e3", 1500.0),
        ("true", True),
        ("007", "007"),
        ("+1", "+1"),
        ("1.", "1."),
        ("TRUE", "TRUE"),
        ("1" * 39, float("1" * 39)),  # beyond NUMBER's 38 digits: a DOUBLE
    ],
)
def test_obvious_numbers_and_booleans_convert(text: str, value: object) -> None:
    assert xml_values.converted(text) == value
    assert type(xml_values.converted(text)) is type(value)


def test_prefixed_names_cdata_entities_and_comments() -> None:
    element = xml_values.parse('<ns:r xmlns:ns="u"><!-- note --><![CDATA[<raw> & ]]>&#65;</ns:r>')
    assert element == {"@": "ns:r", "@xmlns:ns": "u", "$": "<raw> & A"}
    assert xml_values.write(element) == '<ns:r xmlns:ns="u">&lt;raw&gt; &amp; A</ns:r>'


def test_writing_indents_elements_and_keeps_single_values_inline() -> None:
    element = xml_values.parse('<a q="&quot;x&quot;"><b>1</b>text<c><d/></c></a>')
    assert xml_values.write(element, indent=True) == (
        '<a q="&quot;x&quot;">\n  <b>1</b>\n  text\n  <c>\n    <d></d>\n  </c>\n</a>'
    )
    assert xml_values.write(element) == '<a q="&quot;x&quot;"><b>1</b>text<c><d></d></c></a>'


def test_json_objects_are_not_taken_for_elements() -> None:
    assert xml_values.is_element({"@": "a", "$": 1, "b": [0, 2], "@c": "x"})
    assert not xml_values.is_element({"@": "a", "name": "Bob"})
    assert not xml_values.is_element({"@": 1})
    assert not xml_values.is_element(["@"])
    assert pretty('{"@":"a","name":"Bob"}') == '{\n  "@": "a",\n  "name": "Bob"\n}'
    assert pretty(xml_values.json_text(xml_values.parse("<a>1.50</a>"))) == "<a>1.5</a>"


def test_files_yield_top_level_elements_or_those_inside_them() -> None:
    document = b'\xef\xbb\xbf<?xml version="1.0"?>\n<list><i>1</i><i> 2 </i></list><list><i>3</i></list>'
    chunks = [document[:9], document[9:30], document[30:]]  # a declaration and tags split across reads
    rows = [r for batch in xml_values.file_rows(iter(chunks), False, True, False) for r in batch]
    assert [r["@"] for r in rows] == ["list", "list"]
    inner = [r for batch in xml_values.file_rows(iter(chunks), True, True, True) for r in batch]
    assert [r["$"] for r in inner] == [1, " 2 ", 3]  # PRESERVE_SPACE keeps the spaces (and so, text)
    with pytest.raises(xml_values.XmlError, match="mismatched tag"):
        list(xml_values.file_rows(iter([b"<a><b></a>"]), False, True, False))


def test_json_text_is_sorted_with_exact_decimals_and_doubles_marked() -> None:
    text = xml_values.json_text({"b": [Decimal("1.50"), 2.5, True, None], "a": "x\u00e9"})
    assert text == '{"a":"x\u00e9","b":[1.5,2.500000000000000e+00,true,null]}'
    assert json.loads(text) == {"a": "x\u00e9", "b": [1.5, 2.5, True, None]}


def test_not_xml() -> None:
    assert xml_values.check("<a>") is not None
    assert xml_values.check("plain") is not None
    assert xml_values.check("<a/><b/>") is not None  # a document has one root
    assert xml_values.check("<a/>") is None
