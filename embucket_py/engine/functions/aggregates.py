"""Aggregate UDAFs DataFusion lacks: MODE (the most frequent non-NULL value) and APPROX_TOP_K.

https://docs.snowflake.com/en/sql-reference/functions/mode
https://docs.snowflake.com/en/sql-reference/functions/approx_top_k
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from datafusion import Accumulator, SessionContext, udaf


class _Mode(Accumulator):
    """Keeps value counts; ties go to the smallest value, so the answer does not depend on order."""

    value_type: pa.DataType = pa.float64()

    def __init__(self) -> None:
        self._values: list[pa.Array] = []
        self._counts: list[pa.Array] = []

    def _add(self, values: pa.Array, counts: pa.Array) -> None:
        valid = pc.is_valid(values)
        self._values.append(pc.filter(values, valid))
        self._counts.append(pc.filter(counts, valid))

    def update(self, values: pa.Array) -> None:
        counted = pc.value_counts(values)
        self._add(counted.field("values"), pc.cast(counted.field("counts"), pa.int64()))

    def merge(self, states: list[pa.Array]) -> None:
        for packed in states[0]:
            entries = packed.values
            if entries is not None and len(entries):
                self._add(entries.field("v"), entries.field("c"))

    def _table(self) -> pa.Table:
        if not self._values:
            return pa.table({"v": pa.array([], self.value_type), "c": pa.array([], pa.int64())})
        table = pa.table({"v": pa.concat_arrays(self._values), "c": pa.concat_arrays(self._counts)})
        return table.group_by("v").aggregate([("c", "sum")]).rename_columns(["v", "c"])

    def state(self) -> list[pa.Scalar]:
        table = self._table()
        return [
            pa.scalar(
                table.to_struct_array().to_pylist(),
                pa.list_(pa.struct([("v", self.value_type), ("c", pa.int64())])),
            )
        ]

    def evaluate(self) -> pa.Scalar:
        table = self._table()
        if table.num_rows == 0:
            return pa.scalar(None, self.value_type)
        best = table.sort_by([("c", "descending"), ("v", "ascending")])
        return pa.scalar(best.column("v")[0].as_py(), self.value_type)


class _TextMode(_Mode):
    """MODE of strings (Snowflake's MODE keeps its argument's type)."""

    value_type = pa.string()


class _IntegerMode(_Mode):
    """MODE of integers (NUMBER(p, 0)): exact, where a FLOAT loses digits past 2^53."""

    value_type = pa.int64()


class _TopK(_TextMode):
    """APPROX_TOP_K of VARIANT texts: the k most frequent values with their counts, as a JSON
    array of [value, count] pairs (counted exactly, which any estimate approximates; ties go to
    the smaller text, so the answer does not depend on order)."""

    def __init__(self) -> None:
        super().__init__()
        self._k = 1

    def update(self, values: pa.Array, ks: pa.Array) -> None:  # type: ignore[override]
        if len(ks):
            self._k = ks[0].as_py() or 1
        super().update(values)

    def merge(self, states: list[pa.Array]) -> None:
        super().merge(states)
        if len(states[1]):
            self._k = max(self._k, pc.max(states[1]).as_py() or 1)

    def state(self) -> list[pa.Scalar]:
        return [*super().state(), pa.scalar(self._k, pa.int64())]

    def evaluate(self) -> pa.Scalar:
        top = self._table().sort_by([("c", "descending"), ("v", "ascending")]).slice(0, self._k)
        pairs = (
            f"[{v},{c}]"
            for v, c in zip(top.column("v").to_pylist(), top.column("c").to_pylist(), strict=True)
        )
        return pa.scalar("[" + ",".join(pairs) + "]", pa.string())


def _state(value_type: pa.DataType) -> pa.DataType:
    return pa.list_(pa.struct([("v", value_type), ("c", pa.int64())]))


_UDAFS = [
    udaf(mode, [mode.value_type], mode.value_type, [_state(mode.value_type)], "immutable", name)
    for mode, name in ((_Mode, "sf_mode"), (_TextMode, "sf_mode_text"), (_IntegerMode, "sf_mode_integer"))
]
_UDAFS.append(
    udaf(
        _TopK,
        [pa.string(), pa.int64()],
        pa.string(),
        [_state(pa.string()), pa.int64()],
        "immutable",
        "sf_top_k",
    )
)


def register(ctx: SessionContext) -> None:
    for function in _UDAFS:
        ctx.register_udaf(function)
