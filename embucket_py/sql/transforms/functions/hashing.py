"""Hash functions: MD5/SHA digests on DataFusion's `digest`, 64-bit numbers through the
`sf_digest_*` UDFs (`embucket_py.engine.functions.hashing`).

HASH: Snowflake's own values are not reproducible (the algorithm is unpublished), so HASH is a
stable signed 64-bit number: the first 8 bytes of the MD5 of the arguments' text, each argument
tagged so NULL and '' differ. HASH_AGG sums those modulo 2^64, so it ignores row order as
Snowflake's does. https://docs.snowflake.com/en/sql-reference/functions/hash
"""

from __future__ import annotations

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.transforms.functions.strings import bottom_up, call, int_literal

_SHA2_BITS = (224, 256, 384, 512)
_TWO_64 = exp.Literal.number(2**64)
_TWO_63 = exp.Literal.number(2**63)


def _digest(value: exp.Expression, algorithm: str) -> exp.Expression:
    return call("digest", value, exp.Literal.string(algorithm))


def _bytes(value: exp.Expression) -> exp.Expression:
    return call("arrow_cast", value, exp.Literal.string("Binary"))


def _hex(value: exp.Expression) -> exp.Expression:
    return call("encode", value, exp.Literal.string("hex"))


def _sha2(node: exp.SHA2 | exp.SHA2Digest) -> exp.Expression:
    bits = int_literal(node.args.get("length"))
    bits = 256 if node.args.get("length") is None else bits
    if bits not in _SHA2_BITS:
        raise Unsupported("SHA2 with a digest size other than 224, 256, 384 or 512")
    digest = _digest(node.this, f"sha{bits}")
    return digest if isinstance(node, exp.SHA2Digest) else _hex(digest)


def hash_of(args: list[exp.Expression]) -> exp.Expression:
    """HASH(args): each argument as text (NULL as a marker no text equals), MD5, first 8 bytes."""
    if any(isinstance(a, exp.Star) for a in args):
        raise Unsupported("HASH(*)")
    parts = [
        call(
            "coalesce",
            call("concat", exp.Literal.string("v"), exp.Cast(this=a, to=exp.DataType.build("VARCHAR"))),
            exp.Literal.string("n"),
        )
        for a in args
    ]
    return call("sf_digest_int64", _digest(call("concat_ws", exp.Literal.string("\x1f"), *parts), "md5"))


def _hash_agg(node: exp.HashAgg) -> exp.Expression:
    if node.args.get("expressions") is None and isinstance(node.this, exp.Distinct):
        raise Unsupported("HASH_AGG(DISTINCT ...)")
    args = [node.this, *(node.args.get("expressions") or [])]
    total = call("sum", exp.Cast(this=hash_of(args), to=exp.DataType.build("DECIMAL(38, 0)")))
    # Reduce the sum modulo 2^64 and map it back onto the signed 64-bit range.
    folded = exp.Mod(
        this=exp.paren(
            exp.Add(this=exp.paren(exp.Mod(this=total, expression=_TWO_64)), expression=_TWO_64.copy())
        ),
        expression=_TWO_64.copy(),
    )
    signed = (
        exp.Case()
        .when(
            exp.GTE(this=folded, expression=_TWO_63.copy()),
            exp.Sub(this=folded.copy(), expression=_TWO_64.copy()),
        )
        .else_(folded.copy())
    )
    return exp.Cast(this=call("coalesce", signed, exp.Literal.number(0)), to=exp.DataType.build("BIGINT"))


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and str(node.this).upper() == "HASH":
        return hash_of(list(node.expressions))
    if isinstance(node, exp.HashAgg):
        return _hash_agg(node)
    if isinstance(node, exp.MD5Digest):
        return _digest(node.this, "md5")
    if isinstance(node, exp.MD5NumberUpper64):
        return call("sf_digest_upper64", _digest(node.this, "md5"))
    if isinstance(node, exp.MD5NumberLower64):
        return call("sf_digest_lower64", _digest(node.this, "md5"))
    if isinstance(node, exp.SHA):
        return _hex(call("sf_sha1", _bytes(node.this)))
    if isinstance(node, exp.SHA1Digest):
        return call("sf_sha1", _bytes(node.this))
    if isinstance(node, exp.SHA2 | exp.SHA2Digest):
        return _sha2(node)
    return node


def rewrite(tree: exp.Expression) -> exp.Expression:
    return bottom_up(tree, _rewrite)
