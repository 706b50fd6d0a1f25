"""String & binary functions: Snowflake semantics on DataFusion built-ins, or the `sf_*` UDFs of
`embucket_py.engine.functions.strings` where no built-in fits.

https://docs.snowflake.com/en/sql-reference/functions-string
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.transforms.functions.column_kinds import is_binary
from embucket_py.sql.transforms.functions.temporal import COMPARISONS, intdiv, rewrite_all


def call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def bottom_up(tree: exp.Expression, fn: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """Applies `fn` to every node, children before parents, so nested calls are all rewritten."""
    for node in reversed(list(tree.walk(bfs=False))):
        new = fn(node)
        if new is not node:
            if node is tree:
                tree = new
            else:
                node.replace(new)
    return tree


def int_literal(node: exp.Expression | None) -> int | None:
    """The value of an integer literal (also negated), else None."""
    if isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Neg):
        inner = int_literal(node.this)
        return -inner if inner is not None else None
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    return None


def _case(*whens: tuple[exp.Expression, exp.Expression], default: exp.Expression | None = None) -> exp.Case:
    case = exp.Case()
    for cond, value in whens:
        case = case.when(cond, value)
    return case.else_(default) if default is not None else case


# BINARY as hex digits and back (BINARY is cut and padded as its digits, two per byte: DataFusion's
# substr and lpad take text only).
def _hex_digits(value: exp.Expression) -> exp.Expression:
    return call("encode", value, exp.Literal.string("hex"))


def _from_hex(digits: exp.Expression) -> exp.Expression:
    return call("decode", digits, exp.Literal.string("hex"))


def _twice(n: exp.Expression) -> exp.Expression:
    return exp.Mul(this=exp.paren(n), expression=exp.Literal.number(2))


def _substring(node: exp.Substring) -> exp.Expression:
    """Snowflake: start 0 is 1, a negative start counts from the end, a negative length is ''.
    On BINARY it counts bytes: the substring is cut from the bytes' hex digits, two per byte."""
    text, start, length = node.this, node.args.get("start"), node.args.get("length")
    if start is None:
        return node
    binary = is_binary(text)
    units = _hex_digits(text) if binary else text

    def scaled(n: exp.Expression) -> exp.Expression:
        return _twice(n) if binary else n

    def first(n: exp.Expression) -> exp.Expression:  # the first unit of the n-th character or byte
        return exp.Sub(this=scaled(n), expression=exp.Literal.number(1)) if binary else n

    value = int_literal(start)
    if value is not None and value > 0:
        new_start = first(start)
    elif value == 0:
        new_start = exp.Literal.number(1)
    else:
        size = call("length", units.copy())
        from_end = exp.Add(this=size, expression=exp.paren(scaled(start.copy())))
        new_start = _case(
            (exp.GT(this=start.copy(), expression=exp.Literal.number(0)), first(start.copy())),
            (exp.EQ(this=start.copy(), expression=exp.Literal.number(0)), exp.Literal.number(1)),
            (
                exp.GTE(this=from_end, expression=exp.Literal.number(0)),
                exp.Add(this=from_end.copy(), expression=exp.Literal.number(1)),
            ),
            # Further back than the first character: past the end, so ''.
            (
                exp.LT(this=start.copy(), expression=exp.Literal.number(0)),
                exp.Add(this=size.copy(), expression=exp.Literal.number(2)),
            ),
        )
    lengths: list[exp.Expression] = []
    if length is not None:
        literal = int_literal(length)
        if literal is not None and literal >= 0:
            lengths = [scaled(length)]
        else:  # not greatest(): it skips NULLs, and a NULL length must give NULL
            lengths = [
                _case(
                    (exp.LT(this=length.copy(), expression=exp.Literal.number(0)), exp.Literal.number(0)),
                    default=scaled(length.copy()),
                )
            ]
    cut = call("substr", units, new_start, *lengths)
    return _from_hex(cut) if binary else cut


def _binary_pad(node: exp.Pad) -> exp.Expression:
    """LPAD / RPAD of BINARY pads (or cuts) to a length in bytes: two hex digits per byte."""
    fill = node.args.get("fill_pattern")
    if fill is None:
        raise Unsupported("LPAD / RPAD of BINARY without a padding value")
    pad = "lpad" if node.args.get("is_left") else "rpad"
    return _from_hex(call(pad, _hex_digits(node.this), _twice(node.expression), _hex_digits(fill)))


def _split_part(node: exp.SplitPart) -> exp.Expression:
    """Part 0 is part 1 in Snowflake; DataFusion rejects 0."""
    part = node.args["part_index"]
    value = int_literal(part)
    if value == 0:
        part = exp.Literal.number(1)
    elif value is None:
        part = _case(
            (exp.EQ(this=part.copy(), expression=exp.Literal.number(0)), exp.Literal.number(1)),
            default=part.copy(),
        )
    return call("split_part", node.this, node.args["delimiter"], part)


def _like_pattern(pattern: exp.Expression, escape: exp.Expression | None) -> exp.Expression:
    """DataFusion only knows backslash as LIKE's escape: rewrite a pattern written for another."""
    if escape is None:
        return pattern
    if not (isinstance(escape, exp.Literal) and escape.is_string):
        raise Unsupported("LIKE ... ESCAPE with a non-literal escape character")
    char = escape.this
    if char == "\\":
        return pattern
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise Unsupported("LIKE ... ESCAPE with a non-literal pattern")
    text, out, i = pattern.this, [], 0
    while i < len(text):
        c = text[i]
        if c == char and i + 1 < len(text):
            out.append("\\" + text[i + 1])
            i += 2
            continue
        out.append("\\\\" if c == "\\" else c)
        i += 1
    return exp.Literal.string("".join(out))


def _like(node: exp.Expression, escape: exp.Expression | None = None) -> exp.Expression:
    """LIKE/ILIKE [ANY|ALL] (...) [ESCAPE c] -> one LIKE per pattern joined by OR / AND."""
    op = type(node)
    target = node.args["expression"]
    if isinstance(target, exp.Any | exp.All):
        inner = target.this
        if isinstance(inner, exp.Paren):
            patterns = [inner.this]
        elif isinstance(inner, exp.Tuple):
            patterns = list(inner.expressions)
        else:
            raise Unsupported(f"{op.__name__.upper()} {type(target).__name__.upper()} over a subquery")
        likes = [op(this=node.this.copy(), expression=_like_pattern(p, escape)) for p in patterns]
        join = exp.or_ if isinstance(target, exp.Any) else exp.and_
        return exp.paren(join(*likes))
    if escape is None:
        return node
    return op(this=node.this, expression=_like_pattern(target, escape))


def _collation(node: exp.Expression) -> list[str] | None:
    """The specifiers of a COLLATE (through brackets), lower case: 'en-ci' -> ['en', 'ci']."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Collate) and isinstance(node.expression, exp.Literal):
        return node.expression.name.lower().split("-")
    return None


def _collated(node: exp.Expression, specifiers: list[str]) -> exp.Expression:
    """A text as a collation compares it: case folded for ci/upper/lower, spaces trimmed for
    trim/ltrim/rtrim. Accent and punctuation rules have no counterpart here and are left out.
    https://docs.snowflake.com/en/sql-reference/collation#collation-specification"""
    while isinstance(node, exp.Paren):
        node = node.this
    value = node.this if isinstance(node, exp.Collate) else node
    for spec in specifiers:
        if spec in ("trim", "ltrim", "rtrim"):
            value = call(spec, value)
    if "upper" in specifiers:
        return exp.Upper(this=value)
    if "ci" in specifiers or "lower" in specifiers:
        return exp.Lower(this=value)
    return value


def _collations(node: exp.Expression) -> exp.Expression:
    """Comparisons and ORDER BY keys with a COLLATE compare both sides as the collation does;
    elsewhere a collation changes nothing (top-down: a comparison sees its COLLATE operand)."""
    if isinstance(node, COMPARISONS):
        specifiers = _collation(node.this) or _collation(node.expression)
        if specifiers is not None:
            return type(node)(
                this=_collated(node.this, specifiers), expression=_collated(node.expression, specifiers)
            )
    if isinstance(node, exp.Ordered) and (specifiers := _collation(node.this)) is not None:
        return exp.Ordered(
            this=_collated(node.this, specifiers),
            desc=node.args.get("desc"),
            nulls_first=node.args.get("nulls_first"),
        )
    if isinstance(node, exp.Collate):
        return node.this
    return node


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Escape) and isinstance(node.this, exp.Like | exp.ILike):
        return _like(node.this, node.expression)
    if isinstance(node, exp.Like | exp.ILike) and not isinstance(node.parent, exp.Escape):
        return _like(node)
    if isinstance(node, exp.Substring):
        return _substring(node)
    if isinstance(node, exp.Replace) and not isinstance(node.expression, exp.Literal):
        # An empty search string replaces nothing (DataFusion inserts the replacement everywhere).
        empty = exp.EQ(this=node.expression.copy(), expression=exp.Literal.string(""))
        replaced = call(
            "replace",
            node.this.copy(),
            node.expression,
            node.args.get("replacement") or exp.Literal.string(""),
        )
        return exp.Case(ifs=[exp.If(this=empty, true=node.this)], default=replaced)
    if isinstance(node, exp.Replace) and node.expression.name == "":
        return node.this
    if isinstance(node, exp.ByteLength):  # OCTET_LENGTH; DataFusion's takes text only
        if is_binary(node.this):
            hex_digits = call("character_length", call("encode", node.this, exp.Literal.string("hex")))
            return intdiv(hex_digits, exp.Literal.number(2))
        return call("octet_length", node.this)
    if isinstance(node, exp.Left | exp.Right):
        # A negative length gives '' in Snowflake; DataFusion's drops that many from the other end.
        negative = exp.LT(this=node.expression.copy(), expression=exp.Literal.number(0))
        length = exp.Case(ifs=[exp.If(this=negative, true=exp.Literal.number(0))], default=node.expression)
        return call("left" if isinstance(node, exp.Left) else "right", node.this, length)
    if isinstance(node, exp.Pad) and is_binary(node.this):
        return _binary_pad(node)
    if isinstance(node, exp.SplitPart):
        return _split_part(node)
    if isinstance(node, exp.Split):
        return call("sf_split", node.this, node.expression)
    if isinstance(node, exp.Strtok):
        delims = node.args.get("delimiter") or exp.Literal.string(" ")
        part = node.args.get("part_index") or exp.Literal.number(1)
        return call("sf_strtok", node.this, delims, part)
    if isinstance(node, exp.StrtokToArray):
        return call("sf_strtok_to_array", node.this, node.expression or exp.Literal.string(" "))
    if isinstance(node, exp.Initcap):
        return _initcap(node)
    if isinstance(node, exp.Stuff):
        # INSERT(base, pos, len, ins) = base[:pos-1] || ins || base[pos+len-1:]
        base, pos, length, ins = node.this, node.args["start"], node.args["length"], node.expression
        head = call(
            "substr",
            base.copy(),
            exp.Literal.number(1),
            exp.Sub(this=pos.copy(), expression=exp.Literal.number(1)),
        )
        tail = call("substr", base.copy(), exp.Add(this=pos.copy(), expression=length.copy()))
        return exp.DPipe(this=exp.DPipe(this=head, expression=ins), expression=tail)
    if isinstance(node, exp.Soundex):
        return call("sf_soundex", node.this)
    if isinstance(node, exp.Levenshtein) and node.args.get("max_dist") is not None:
        return call("least", call("levenshtein", node.this, node.expression), node.args["max_dist"])
    if isinstance(node, exp.JarowinklerSimilarity):
        return call("sf_jarowinkler_similarity", node.this, node.expression)
    if isinstance(node, exp.RtrimmedLength):
        return call("length", call("rtrim", node.this))
    if isinstance(node, exp.ParseUrl):
        if node.args.get("part_to_extract") is not None or node.args.get("key") is not None:
            raise Unsupported("PARSE_URL with a part to extract")
        return call("sf_parse_url", node.this, node.args.get("permissive") or exp.Literal.number(0))
    if isinstance(node, _ENCODINGS):
        return _encoding(node)
    if isinstance(node, exp.Uuid):
        if node.this is not None and node.args.get("name") is not None:
            return call("sf_uuid5", node.this, node.args["name"])
        return call("uuid")
    return node


_ENCODINGS = (
    exp.Base64Encode,
    exp.Base64DecodeString,
    exp.Base64DecodeBinary,
    exp.TryBase64DecodeString,
    exp.TryBase64DecodeBinary,
    exp.Hex,
    exp.HexDecodeString,
    exp.TryHexDecodeString,
    exp.TryHexDecodeBinary,
    exp.Unhex,
)
_HEX = r"^([0-9A-Fa-f]{2})*$"
_BASE64 = r"^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


def _to_text(value: exp.Expression) -> exp.Expression:
    return exp.Cast(this=value, to=exp.DataType.build("VARCHAR"))


def _base64_alphabet(node: exp.Expression, text: exp.Expression, decode: bool) -> exp.Expression:
    """Snowflake's optional alphabet replaces '+', '/' and '=' (index 62, 63, padding)."""
    alphabet = node.args.get("alphabet")
    if alphabet is None:
        return text
    if not (isinstance(alphabet, exp.Literal) and alphabet.is_string):
        raise Unsupported("BASE64 functions with a non-literal alphabet")
    custom = alphabet.this[:3]
    standard = "+/="[: len(custom)]
    source, target = (custom, standard) if decode else (standard, custom)
    return call("translate", text, exp.Literal.string(source), exp.Literal.string(target))


def _encoding(node: exp.Expression) -> exp.Expression:
    text = node.this
    if isinstance(node, exp.Base64Encode):
        if int_literal(node.args.get("max_line_length")) not in (None, 0):
            raise Unsupported("BASE64_ENCODE with a maximum line length")
        # DataFusion writes base64 without padding; Snowflake pads to a multiple of 4.
        raw = call("encode", text, exp.Literal.string("base64"))
        # Pad to a multiple of 4: length + (4 - length % 4) % 4, in integer arithmetic.
        four = exp.Literal.number(4)
        length = call("length", raw.copy())
        short = exp.Mod(
            this=exp.paren(exp.Sub(this=four, expression=exp.Mod(this=length, expression=four.copy()))),
            expression=four.copy(),
        )
        size = exp.Add(this=length.copy(), expression=short)
        return _base64_alphabet(node, call("rpad", raw, size, exp.Literal.string("=")), decode=False)
    if isinstance(node, exp.Hex):
        hexed = _hex_digits(text)
        return hexed if int_literal(node.args.get("case")) == 0 else call("upper", hexed)
    if isinstance(node, exp.Unhex | exp.HexDecodeString | exp.TryHexDecodeString | exp.TryHexDecodeBinary):
        decoded: exp.Expression = _from_hex(text.copy())
        if isinstance(node, exp.TryHexDecodeString | exp.TryHexDecodeBinary):
            ok = call("regexp_like", text.copy(), exp.Literal.string(_HEX))
            decoded = _case((ok, decoded))
        return (
            _to_text(decoded) if isinstance(node, exp.HexDecodeString | exp.TryHexDecodeString) else decoded
        )
    # BASE64_DECODE_* and TRY_ variants
    source = _base64_alphabet(node, text.copy(), decode=True)
    decoded = call("decode", source, exp.Literal.string("base64"))
    if isinstance(node, exp.TryBase64DecodeString | exp.TryBase64DecodeBinary):
        source = _base64_alphabet(node, text.copy(), decode=True)
        ok = call("regexp_like", source, exp.Literal.string(_BASE64))
        decoded = _case((ok, decoded))
    return (
        _to_text(decoded) if isinstance(node, exp.Base64DecodeString | exp.TryBase64DecodeString) else decoded
    )


def _initcap(node: exp.Initcap) -> exp.Expression:
    delims = node.expression
    if isinstance(delims, exp.Literal) and delims.is_string and delims.this.startswith(" \t\n"):
        # sqlglot fills in Snowflake's default delimiters as a regex class body; unescape it.
        delims = exp.Literal.string(delims.this.replace("\\", "") + "\\")
    return call("sf_initcap", node.this, delims if delims is not None else exp.Literal.string(""))


def rewrite(tree: exp.Expression) -> exp.Expression:
    return bottom_up(rewrite_all(tree, _collations), _rewrite)
