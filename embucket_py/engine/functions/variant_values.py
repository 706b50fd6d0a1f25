"""VARIANT / OBJECT / ARRAY values: how they are represented, parsed and written, in one place.

Representation. A semi-structured value is the compact JSON text of the value in a Utf8 column:
objects with their keys sorted (Snowflake keeps OBJECT keys ordered), no spaces, numbers written
as JSON numbers (exact decimals without trailing zeros, doubles with an exponent, as Snowflake
shows them: `1.5` is a DECIMAL, `1.500000000000000e+00` a DOUBLE), strings as JSON
strings (`"abc"`, quotes included), JSON `null` for a variant null (distinct from SQL NULL, which
is a null slot). Iceberg stores these columns as plain strings; the Snowflake type lives in the
Arrow field metadata (`types.SFTYPE_KEY`), so

- result rowtypes say `variant` / `object` / `array` (`types.from_arrow_field`),
- and UDFs can tell a VARIANT argument from a VARCHAR one: the SQL rewrite passes
  `arrow_metadata(x, 'embucket.sftype')` (known at planning) beside any argument of
  unknown type, so `'abc'` passed to TO_VARIANT becomes `"abc"` while a VARIANT column stays as is.
  The tag is not looked for in run-time batches: DataFusion does not carry it into every batch
  (union branches, for one). Arrow's `arrow.json` extension type was tried and dropped for that
  reason, and because pyarrow rejects batches whose extension types differ between branches.

DataFusion keeps that metadata in the planned schema through projections, aliases, subqueries,
CTEs, unions and UDF calls; native functions such as COALESCE or CASE drop it (the value stays
right, the rowtype says text). On the wire the encoder pretty-prints these columns with a
2-space indent, as Snowflake does (`server/snowflake/encoding.py`).

Per-value JSON work is unavoidable (values are heterogeneous, so no Arrow schema fits them), so
every function that needs it does it inside one UDF call over the whole array, here.

Other families (SPLIT, STRTOK_TO_ARRAY, PARSE_URL, ...) build their results with `json_array`,
`json_texts` and `VARIANT_FIELDS`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import orjson
import pyarrow as pa

from embucket_py import xml_values
from embucket_py.types import SFTYPE_KEY

JSON_EXTENSION = b"ARROW:extension:name"


def tagged_field(name: str, kind: str) -> pa.Field:
    """A Utf8 field holding JSON text, tagged as the Snowflake type `kind` (VARIANT/OBJECT/ARRAY)."""
    return pa.field(name, pa.string(), metadata={SFTYPE_KEY: kind.encode()})


VARIANT_FIELDS = {kind: tagged_field("r", kind) for kind in ("VARIANT", "OBJECT", "ARRAY")}


# --- writing -------------------------------------------------------------------------------------


# A number whose JSON text is written as is: json.dumps carries it as a marked string, and the
# marks and quotes come off after (json.dumps takes no raw text).
_RAW = "\x00\x01"
_RAW_JSON = re.compile(r'"\\u0000\\u0001([^"]*)"')


def _double_text(value: float) -> str:
    """A DOUBLE inside a VARIANT as Snowflake writes it: `3.000000000000000e+00`. The exponent
    also keeps it a DOUBLE when read back (`number`); an exact decimal has none."""
    return f"{value:.15e}"


def _plain(value: Any) -> Any:
    """Python value -> what json.dumps writes as Snowflake shows it."""
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return _RAW + format(value.normalize(), "f")
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return _RAW + _double_text(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex().upper()
    if hasattr(value, "isoformat"):
        return value.isoformat(sep=" ") if hasattr(value, "hour") and hasattr(value, "day") else str(value)
    return value


def _unmarked(text: str) -> str:
    return _RAW_JSON.sub(r"\1", text) if "\\u0000\\u0001" in text else text


# Text that may hold a fraction, an exponent or an integer of 19 digits or more (orjson reads
# those as floats beyond 64 bits); matches inside strings only cost the exact path.
INEXACT_JSON = r"[0-9](?:[.eE]|[0-9]{18})"
_INEXACT = re.compile(INEXACT_JSON)
# orjson writes what JSON has (text, integers to 64 bits, Booleans, null, objects, arrays) and
# refuses the rest (decimals, bytes, dates, wider integers) rather than guessing.
_ORJSON_SORTED = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def dumps(value: Any) -> str:
    """Canonical JSON text of a Python value (dict keys sorted, compact)."""
    if type(value) is int:  # the common scalars without the general path (~5x faster)
        return str(value)
    if type(value) is str:
        try:
            return orjson.dumps(value).decode()  # json.dumps's escapes, ~5x faster
        except TypeError:  # a lone surrogate (from a `\ud800` escape), which orjson refuses
            return json.dumps(value, ensure_ascii=False)
    if type(value) in (dict, list):
        # Objects and arrays through orjson (~20x faster) when that writes them as below: without
        # DOUBLEs (it writes `1.5`, not `1.500000000000000e+00`) and NaN or infinities (`null`).
        try:
            text = orjson.dumps(value, option=_ORJSON_SORTED).decode()
        except TypeError:
            pass
        else:
            if _INEXACT.search(text) is None and "null" not in text:
                return text
    return _unmarked(json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def _by_value(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {k: _by_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_by_value(v) for v in value]
    return value


def equality_text(value: Any) -> str:
    """The text two VARIANT values share when Snowflake holds them equal: `dumps`, with numbers
    by value (the DOUBLE 1.5 is the DECIMAL 1.5, and 1.0 is 1)."""
    return dumps(_by_value(value))


def pretty(text: str) -> str:
    """JSON text as Snowflake prints a VARIANT: objects and arrays indented by 2 spaces, numbers
    as written."""
    if not text or text[0] not in "[{":
        return text
    if text.startswith('{"$":') or text.startswith('{"@":'):  # keys are sorted: "$" and "@" first
        value = strict(text)
        if xml_values.is_element(value):
            return xml_values.write(value, indent=True)
    try:
        parsed = json.loads(text, parse_float=lambda n: _RAW + n)
    except ValueError:
        return text
    return _unmarked(json.dumps(parsed, indent=2, ensure_ascii=False))


def json_array(values: Iterable[Any]) -> pa.Array:
    """JSON texts (Utf8) of Python values; None stays SQL NULL. Use with VARIANT_FIELDS[...]."""
    return pa.array([None if v is None else dumps(v) for v in values], pa.string())


def json_texts(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """An Arrow array of any type (lists and structs included) as JSON texts, one per slot."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if isinstance(array.type, pa.ExtensionType):
        return array.storage
    return json_array(array.to_pylist())


# --- reading -------------------------------------------------------------------------------------


def texts(array: pa.Array | pa.ChunkedArray) -> list[str | None]:
    """The values of a string array (JSON extension, view or large types alike) as Python str."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if isinstance(array.type, pa.ExtensionType):
        array = array.storage
    return array.to_pylist()  # type: ignore[no-any-return]


def is_json(array: pa.Array) -> bool:
    """Whether an argument is a VARIANT (JSON text) rather than a VARCHAR."""
    return isinstance(array.type, pa.ExtensionType)


class ParseError(ValueError):
    pass


def strict(text: str, inexact: bool | None = None) -> Any:
    """Strict JSON, fixed-point numbers exact (`number`). orjson (~2x faster) reads text that
    holds no fraction, exponent or wide integer (it would make them floats); json the rest.
    `inexact`: whether the text may hold them, when the caller has told it for a whole array
    (`INEXACT_JSON`).

    Raises:
        ValueError: the text is not JSON.
    """
    if inexact is None:
        inexact = _INEXACT.search(text) is not None
    if not inexact:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # also JSON it does not take: NaN, integers beyond 64 bits, lone surrogates
    return _EXACT(text)


def loads(text: str) -> Any:
    """Parses JSON as PARSE_JSON does: strict JSON first, then Snowflake's lenient forms
    (unquoted keys, single quotes, empty array slots as null, trailing commas)."""
    try:
        return strict(text)
    except ValueError:
        return _Lenient(text).document()


def number(text: str) -> Decimal | float:
    """Snowflake keeps a fixed-point literal exact (DECIMAL) and an exponent one as DOUBLE."""
    return float(text) if "e" in text or "E" in text else Decimal(text)


_EXACT = json.JSONDecoder(parse_float=number).decode


_WORDS = {"null": None, "true": True, "false": False, "NULL": None, "undefined": None}


class _Lenient:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def document(self) -> Any:
        value = self.value()
        self.ws()
        if self.i != len(self.s):
            raise ParseError(f"unexpected character at {self.i}")
        return value

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def value(self) -> Any:
        self.ws()
        if self.i >= len(self.s):
            raise ParseError("unexpected end of input")
        c = self.s[self.i]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c in "\"'":
            return self.string()
        return self.scalar()

    def obj(self) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        while True:
            self.ws()
            if self.peek() == "}":
                self.i += 1
                return out
            if not self.peek():
                raise ParseError("unexpected end of input")
            key = self.string() if self.peek() in "\"'" else self.bare()
            self.ws()
            if self.peek() != ":":
                raise ParseError(f"expected ':' at {self.i}")
            self.i += 1
            out[key] = self.value()
            self.ws()
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != "}":
                raise ParseError(f"expected ',' or '}}' at {self.i}")

    def arr(self) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            self.ws()
            c = self.peek()
            if c == "]":
                self.i += 1
                return out
            if c == ",":  # an empty slot is a null element
                out.append(None)
                self.i += 1
                continue
            out.append(self.value())
            self.ws()
            if self.peek() == ",":
                self.i += 1
                self.ws()
                if self.peek() == "]":  # a trailing comma adds a null element
                    out.append(None)
            elif self.peek() != "]":
                raise ParseError(f"expected ',' or ']' at {self.i}")

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def string(self) -> str:
        quote = self.s[self.i]
        j = self.i + 1
        buf = []
        while j < len(self.s) and self.s[j] != quote:
            if self.s[j] == "\\" and j + 1 < len(self.s):
                buf.append(self.s[j : j + 2])
                j += 2
                continue
            buf.append('\\"' if self.s[j] == '"' else self.s[j])
            j += 1
        if j >= len(self.s):
            raise ParseError("unterminated string")
        self.i = j + 1
        return json.loads('"' + "".join(buf).replace("\\'", "'") + '"')  # type: ignore[no-any-return]

    def bare(self) -> str:
        j = self.i
        while j < len(self.s) and (self.s[j].isalnum() or self.s[j] in "_$"):
            j += 1
        if j == self.i:
            raise ParseError(f"unexpected character at {self.i}")
        word, self.i = self.s[self.i : j], j
        return word

    def scalar(self) -> Any:
        j = self.i
        while j < len(self.s) and self.s[j] not in ",]} \t\r\n:":
            j += 1
        word, self.i = self.s[self.i : j], j
        if word in _WORDS:
            return _WORDS[word]
        try:
            return json.loads(word, parse_float=number)
        except ValueError:
            raise ParseError(f"unknown literal {word!r}") from None


# --- Snowflake type names of values --------------------------------------------------------------


def type_name(value: Any) -> str:
    """TYPEOF of a parsed value."""
    if value is None:
        return "NULL_VALUE"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INTEGER"
    if isinstance(value, Decimal):
        return "DECIMAL"
    if isinstance(value, float):
        return "DOUBLE"
    if isinstance(value, str):
        return "VARCHAR"
    if isinstance(value, list):
        return "ARRAY"
    return "OBJECT"
