"""XML inside VARIANT values: how PARSE_XML and XML files read a document, and how it prints.

Snowflake keeps an XML element in a VARIANT as an OBJECT with these keys:

- `"@"`: the tag name; `"@name"`: each attribute's value;
- `"$"`: the content: absent when the element is empty, the one child alone (a value or an
  element), else an array of the children (text pieces and elements) in document order;
- `"<tag>"`: where each child element sits in the content: its index, or an array of indexes
  when the tag repeats (`GET(e, 'tag')`).

Text is trimmed (unless PRESERVE_SPACE), and text or attribute values that read as numbers or
Booleans become them unless auto-conversion is off (DISABLE_AUTO_CONVERT). Such an object prints
as XML: indented by 2 spaces where Snowflake shows a VARIANT, compact as VARCHAR (TO_VARCHAR,
TO_XML). https://docs.snowflake.com/en/sql-reference/functions/parse_xml
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from xml.parsers import expat

Element = dict[str, Any]

_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
_DOUBLE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?[eE][+-]?[0-9]+")
_MAX_DIGITS = 38  # NUMBER's precision: wider numbers are DOUBLEs


def converted(text: str) -> Any:
    """Text as the number or Boolean it obviously is, printed back the same (`007` and `+1`
    stay text: they would not); anything else stays text."""
    if _INTEGER.fullmatch(text):
        return int(text) if len(text.lstrip("-")) <= _MAX_DIGITS else float(text)
    if _DECIMAL.fullmatch(text):
        digits = len(text.lstrip("-").replace(".", "").lstrip("0"))
        return Decimal(text) if digits <= _MAX_DIGITS else float(text)
    if _DOUBLE.fullmatch(text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    return text


class XmlError(ValueError):
    """The text is not XML (expat's reason, with its line and column)."""


class _Builder:
    """Elements from expat's events. Elements that close `row_depth` levels deep are rows (kept
    in `rows`, not attached to their parent): 0 for a document, 1 for each top-level element of a
    file read inside a wrapper element, 2 for their children (STRIP_OUTER_ELEMENT)."""

    def __init__(self, parser: Any, row_depth: int, auto_convert: bool, preserve_space: bool) -> None:
        self.open: list[tuple[Element, list[Any]]] = []
        self.text: list[str] = []
        self.rows: list[Element] = []
        self.row_depth = row_depth
        self.value = converted if auto_convert else str
        self.preserve_space = preserve_space
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.text.append

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        self._text()
        element: Element = {"@": tag}
        for name, value in attributes.items():
            element["@" + name] = self.value(value)
        self.open.append((element, []))

    def end(self, tag: str) -> None:
        self._text()
        element, children = self.open.pop()
        _fill(element, children)
        if len(self.open) == self.row_depth:
            self.rows.append(element)
        elif len(self.open) > self.row_depth:
            self.open[-1][1].append(element)

    def _text(self) -> None:
        text = "".join(self.text)
        self.text.clear()
        if len(self.open) <= self.row_depth:  # text between rows (or around them) is no row's
            return
        if not self.preserve_space:
            text = text.strip()
        if text:
            self.open[-1][1].append(self.value(text))


def _fill(element: Element, children: list[Any]) -> None:
    if not children:
        return
    element["$"] = children[0] if len(children) == 1 else children
    at: dict[str, list[int]] = {}
    for i, child in enumerate(children):
        if isinstance(child, dict):
            at.setdefault(child["@"], []).append(i)
    for tag, positions in at.items():
        element[tag] = positions[0] if len(positions) == 1 else positions


def _new_parser() -> Any:
    parser = expat.ParserCreate()  # no namespace processing: prefixed names stay as written
    parser.buffer_text = True
    return parser


def parse(text: str, auto_convert: bool = True) -> Element:
    """One XML document (PARSE_XML).

    Raises:
        XmlError: the text is not one well-formed element.
    """
    parser = _new_parser()
    builder = _Builder(parser, 0, auto_convert, preserve_space=False)
    try:
        parser.Parse(text, True)
    except expat.ExpatError as e:
        raise XmlError(str(e)) from None
    if len(builder.rows) != 1:
        raise XmlError("no element found")
    return builder.rows[0]


def check(text: str) -> str | None:
    """Why the text is not XML (CHECK_XML), or None when it is."""
    try:
        parse(text)
    except XmlError as e:
        return str(e)
    return None


_DECLARATION = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>)?")
_WRAPPER = "embucket-file"


def file_rows(
    chunks: Iterator[bytes], strip_outer_element: bool, auto_convert: bool, preserve_space: bool
) -> Iterator[list[Element]]:
    """The rows of an XML file as its bytes arrive: each top-level element, or with
    STRIP_OUTER_ELEMENT each element directly inside one. The file is read inside a wrapper
    element, so a file of several top-level elements reads too (its XML declaration goes first).

    Raises:
        XmlError: the file is not XML.
    """
    parser = _new_parser()
    builder = _Builder(parser, 2 if strip_outer_element else 1, auto_convert, preserve_space)
    head: bytes | None = b""  # the bytes up to the first `>`, where a declaration would end
    try:
        parser.Parse(f"<{_WRAPPER}>".encode(), False)
        for chunk in chunks:
            if head is not None:
                head += chunk
                if b">" not in head:
                    continue
                chunk, head = _DECLARATION.sub(b"", head, count=1), None
            parser.Parse(chunk, False)
            if builder.rows:
                yield builder.rows
                builder.rows = []
        if head:
            parser.Parse(_DECLARATION.sub(b"", head, count=1), False)
        parser.Parse(f"</{_WRAPPER}>".encode(), True)
    except expat.ExpatError as e:
        raise XmlError(str(e).replace(_WRAPPER, "file")) from None
    if builder.rows:
        yield builder.rows


def json_text(value: Any) -> str:
    """A parsed element as VARIANT JSON text (keys sorted, decimals exact), for the XML files read
    below the engine (whose writer is engine/functions/variant_values.py)."""
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{json_text(value[k])}" for k in sorted(value))
            + "}"
        )
    if isinstance(value, list):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, float):
        return f"{value:.15e}"  # a DOUBLE, as a VARIANT writes one
    return json.dumps(value, ensure_ascii=False)


# --- recognizing and writing ---------------------------------------------------------------------


def is_element(value: Any) -> bool:
    """Whether a VARIANT value is an XML element: a tag name under "@", and every other key an
    attribute, the content, or a child tag's positions."""
    if not isinstance(value, dict) or not isinstance(value.get("@"), str):
        return False
    for key, item in value.items():
        if key == "$" or key.startswith("@"):
            continue
        if not (type(item) is int or (isinstance(item, list) and all(type(i) is int for i in item))):
            return False
    return True


def scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if value is None:
        return ""
    return str(value)


def escaped(text: str, quote: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def _start(element: Element) -> str:
    attributes = "".join(
        f' {key[1:]}="{escaped(scalar_text(value), True)}"'
        for key, value in element.items()
        if key.startswith("@") and key != "@"
    )
    return f"<{element['@']}{attributes}>"


def _children(element: Element) -> list[Any]:
    content = element.get("$")
    if content is None:
        return []
    return content if isinstance(content, list) else [content]


def write(element: Element, indent: bool = False) -> str:
    """An element as XML text: compact (as VARCHAR), or each child on a line of its own, 2
    spaces deeper (as a VARIANT shows it; an element holding one value stays on one line)."""
    lines: list[str] = []
    _write(element, 0, indent, lines)
    return ("\n" if indent else "").join(lines)


def _write(element: Element, depth: int, indent: bool, lines: list[str]) -> None:
    pad = "  " * depth if indent else ""
    children = _children(element)
    start, end = _start(element), f"</{element['@']}>"
    if not indent or not any(is_element(c) for c in children):
        inner: list[str] = []
        for child in children:
            if is_element(child):
                _write(child, 0, False, inner)
            else:
                inner.append(escaped(scalar_text(child)))
        lines.append(pad + start + "".join(inner) + end)
        return
    lines.append(pad + start)
    for child in children:
        if is_element(child):
            _write(child, depth + 1, indent, lines)
        else:
            lines.append("  " * (depth + 1) + escaped(scalar_text(child)))
    lines.append(pad + end)


def get(element: Element, tag: str, instance: int) -> Element | None:
    """The `instance`-th child element named `tag` (XMLGET), or None."""
    found = [c for c in _children(element) if is_element(c) and c["@"] == tag]
    return found[instance] if 0 <= instance < len(found) else None
