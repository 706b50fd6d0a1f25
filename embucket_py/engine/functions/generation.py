"""Data generation UDFs: RANDOM, UNIFORM, RANDSTR, NORMAL, ZIPF, UUID_STRING v5 over whole arrays.

A generator value is hashed with SplitMix64, so the same `gen` always yields the same draw.
https://docs.snowflake.com/en/sql-reference/functions-data-generation
"""

from __future__ import annotations

import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udf

_ALPHABET = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", dtype=np.uint8)


def _mix(values: np.ndarray) -> np.ndarray:
    """SplitMix64 finalizer: a well-spread uint64 per input."""
    with np.errstate(over="ignore"):
        z = values.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _unit(values: np.ndarray) -> np.ndarray:
    """Floats in [0, 1) from uint64 hashes."""
    return (values >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _ints(array: pa.Array) -> tuple[np.ndarray, pa.Array]:
    filled = pc.fill_null(pc.cast(array, pa.int64()), 0)
    return filled.to_numpy(zero_copy_only=False).astype(np.int64), pc.is_null(array)


def _with_nulls(values: np.ndarray, nulls: pa.Array, kind: pa.DataType) -> pa.Array:
    return pc.if_else(nulls, pa.scalar(None, kind), pa.array(values, kind))


def random_seeded(seed: pa.Array) -> pa.Array:
    """RANDOM(seed): one sequence per seed, restarting for each batch of rows."""
    seeds, _ = _ints(seed)
    offsets = np.arange(len(seeds), dtype=np.int64)
    with np.errstate(over="ignore"):
        return pa.array(_mix(_mix(seeds.view(np.uint64)) + offsets.view(np.uint64)).view(np.int64))


def uniform_int(low: pa.Array, high: pa.Array, gen: pa.Array) -> pa.Array:
    lo, _ = _ints(low)
    hi, _ = _ints(high)
    g, nulls = _ints(gen)
    span = (hi - lo + 1).astype(np.float64)
    return _with_nulls(
        lo + np.floor(_unit(_mix(g.view(np.uint64))) * span).astype(np.int64), nulls, pa.int64()
    )


def uniform_float(low: pa.Array, high: pa.Array, gen: pa.Array) -> pa.Array:
    lo = pc.fill_null(low, 0.0).to_numpy(zero_copy_only=False)
    hi = pc.fill_null(high, 0.0).to_numpy(zero_copy_only=False)
    g, nulls = _ints(gen)
    return _with_nulls(lo + _unit(_mix(g.view(np.uint64))) * (hi - lo), nulls, pa.float64())


def randstr(length: pa.Array, gen: pa.Array) -> pa.Array:
    """Strings of [0-9A-Za-z], each character hashed from (gen, position)."""
    sizes, _ = _ints(length)
    sizes = np.clip(sizes, 0, None)
    g, nulls = _ints(gen)
    width = int(sizes.max()) if len(sizes) else 0
    positions = np.arange(width, dtype=np.uint64)
    with np.errstate(over="ignore"):
        keys = _mix(g.view(np.uint64))[:, None] + positions[None, :] * np.uint64(0x9E3779B97F4A7C15)
    chars = _ALPHABET[(_mix(keys) % np.uint64(len(_ALPHABET))).astype(np.int64)]
    text = pa.array([row[:k].tobytes().decode() for row, k in zip(chars, sizes, strict=True)], pa.string())
    return pc.if_else(nulls, pa.scalar(None, pa.string()), text)


def normal(mean: pa.Array, stddev: pa.Array, gen: pa.Array) -> pa.Array:
    """Box-Muller over two draws hashed from gen."""
    g, nulls = _ints(gen)
    first = _mix(g.view(np.uint64))
    u1 = 1.0 - _unit(first)
    u2 = _unit(_mix(first))
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * np.pi * u2)
    mu = pc.fill_null(mean, 0.0).to_numpy(zero_copy_only=False)
    sigma = pc.fill_null(stddev, 0.0).to_numpy(zero_copy_only=False)
    return _with_nulls(mu + sigma * z, nulls, pa.float64())


def zipf(s: pa.Array, count: pa.Array, gen: pa.Array) -> pa.Array:
    """Ranks 1..N drawn with probability proportional to 1 / rank^s (inverse CDF)."""
    exponents = pc.fill_null(s, 1.0).to_numpy(zero_copy_only=False)
    sizes, _ = _ints(count)
    g, nulls = _ints(gen)
    draws = _unit(_mix(g.view(np.uint64)))
    out = np.ones(len(g), dtype=np.int64)
    for exponent, size in set(zip(exponents.tolist(), sizes.tolist(), strict=True)):
        rows = (exponents == exponent) & (sizes == size)
        weights = 1.0 / np.arange(1, max(size, 1) + 1, dtype=np.float64) ** exponent
        cdf = np.cumsum(weights) / weights.sum()
        out[rows] = np.searchsorted(cdf, draws[rows], side="right") + 1
    return _with_nulls(np.minimum(out, np.maximum(sizes, 1)), nulls, pa.int64())


def uuid5(namespace: pa.Array, name: pa.Array) -> pa.Array:
    # No Arrow kernel computes SHA-1 UUIDs; uuid5 is one hash per row.
    return pa.array(
        [
            str(uuid.uuid5(uuid.UUID(ns), n)) if ns is not None and n is not None else None
            for ns, n in zip(namespace.to_pylist(), name.to_pylist(), strict=True)
        ],
        pa.string(),
    )


_I, _F, _S = pa.int64(), pa.float64(), pa.string()
_UDFS = [
    udf(random_seeded, [_I], _I, "volatile", "sf_random_seeded"),
    udf(uniform_int, [_I, _I, _I], _I, "immutable", "sf_uniform_int"),
    udf(uniform_float, [_F, _F, _I], _F, "immutable", "sf_uniform_float"),
    udf(randstr, [_I, _I], _S, "immutable", "sf_randstr"),
    udf(normal, [_F, _F, _I], _F, "immutable", "sf_normal"),
    udf(zipf, [_F, _I, _I], _I, "immutable", "sf_zipf"),
    udf(uuid5, [_S, _S], _S, "immutable", "sf_uuid5"),
]


def register(ctx: SessionContext) -> None:
    for function in _UDFS:
        ctx.register_udf(function)
