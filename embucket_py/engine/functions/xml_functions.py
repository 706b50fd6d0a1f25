"""PARSE_XML, CHECK_XML, XMLGET and TO_XML over the VARIANT representation of XML (see
embucket_py/xml_values.py). https://docs.snowflake.com/en/sql-reference/functions/parse_xml"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from datafusion import SessionContext

from embucket_py import xml_values
from embucket_py.engine.functions.variant import MISSING, UTF8, make_udf, parsed, values_of, variant_out
from embucket_py.engine.functions.variant_values import VARIANT_FIELDS, texts, type_name
from embucket_py.errors import InvalidXml


def _parse_xml(array: pa.Array, disable_auto_convert: pa.Array) -> pa.Array:
    out = []
    for text, literal in zip(texts(array), disable_auto_convert.to_pylist(), strict=True):
        if text is None:
            out.append(MISSING)
            continue
        try:
            out.append(xml_values.parse(text, auto_convert=not literal))
        except xml_values.XmlError as e:
            raise InvalidXml(f"Error parsing XML: {e}") from None
    return variant_out(out)


def _check_xml(array: pa.Array) -> pa.Array:
    return pa.array([None if t is None else xml_values.check(t) for t in texts(array)], UTF8)


def _xmlget(array: pa.Array, tags: pa.Array, instances: pa.Array) -> pa.Array:
    out = []
    for value, tag, instance in zip(parsed(array), texts(tags), instances.to_pylist(), strict=True):
        found = None
        if xml_values.is_element(value) and tag is not None and instance is not None:
            found = xml_values.get(value, tag, instance)
        out.append(MISSING if found is None else found)
    return variant_out(out)


def _to_xml(array: pa.Array, types: pa.Array) -> pa.Array:
    return pa.array([None if v is MISSING else _xml_text(v) for v in values_of(array, types)], UTF8)


def _xml_text(value: Any, tag: str = "SnowflakeData") -> str:
    """TO_XML: an element as it was read; any other value inside `<SnowflakeData>`, each object
    member in a tag named by its key and each array element in an `<e>` tag, typed as TYPEOF
    names them (`<SnowflakeData type="OBJECT"><k type="VARCHAR">v</k></SnowflakeData>`)."""
    if xml_values.is_element(value):
        return xml_values.write(value)
    if isinstance(value, dict):
        inner = "".join(_xml_text(v, k) for k, v in value.items())
    elif isinstance(value, list):
        inner = "".join(_xml_text(v, "e") for v in value)
    else:
        inner = xml_values.escaped(xml_values.scalar_text(value))
    return f'<{tag} type="{type_name(value)}">{inner}</{tag}>'


OBJECT = VARIANT_FIELDS["OBJECT"]
UDFS = [
    make_udf("sf_parse_xml", _parse_xml, [UTF8, pa.bool_()], OBJECT),
    make_udf("sf_check_xml", _check_xml, [UTF8], UTF8),
    make_udf("sf_xmlget", _xmlget, [UTF8, UTF8, pa.int64()], OBJECT),
    make_udf("sf_to_xml", _to_xml, [UTF8, UTF8], UTF8),
]


def register(ctx: SessionContext) -> None:
    for u in UDFS:
        ctx.register_udf(u)
