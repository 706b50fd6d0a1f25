"""Window UDFs DataFusion lacks: CONDITIONAL_CHANGE_EVENT, computed per partition with Arrow.

https://docs.snowflake.com/en/sql-reference/functions/conditional_change_event
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datafusion import SessionContext, udwf
from datafusion.user_defined import WindowEvaluator


class _ChangeEvent(WindowEvaluator):
    """Counts, row by row in window order, how often the value differs from the previous non-NULL
    value; NULL rows neither count nor reset the comparison."""

    def evaluate_all(self, values: list[pa.Array], num_rows: int) -> pa.Array:
        column = values[0]
        valid = pc.is_valid(column).to_numpy(zero_copy_only=False)
        present = pc.drop_null(column)
        if len(present) < 2:
            return pa.array(np.zeros(num_rows, dtype=np.int64))
        changed = pc.not_equal(present.slice(1), present.slice(0, len(present) - 1))
        events = np.concatenate(([0], np.cumsum(changed.to_numpy(zero_copy_only=False))))
        # Each row takes the count at the last non-NULL value up to it.
        last = np.cumsum(valid) - 1
        return pa.array(np.where(last >= 0, events[np.maximum(last, 0)], 0).astype(np.int64))


_UDWFS = [
    udwf(_ChangeEvent, [pa.string()], pa.int64(), "immutable", "sf_conditional_change_event"),
]


def register(ctx: SessionContext) -> None:
    for function in _UDWFS:
        ctx.register_udwf(function)
