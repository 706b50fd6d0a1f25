"""Snowflake functions DataFusion lacks, as vectorized UDFs over whole Arrow arrays.

One module per family. Each family module builds its UDF objects once, at import, and exposes
`register(ctx)`, which only attaches them to a statement's SessionContext (cheap: a context is
made per statement). The SQL rewrites in `embucket_py.sql.transforms.functions` call them by name.
"""

from __future__ import annotations

from collections.abc import Callable

from datafusion import SessionContext

# Family modules append their `register` here (see each module's bottom line).
_FAMILIES: list[Callable[[SessionContext], None]] = []

from embucket_py.engine.functions import variant as _variant  # noqa: E402
from embucket_py.engine.functions import variant_arrays as _variant_arrays  # noqa: E402
from embucket_py.engine.functions import variant_flatten as _variant_flatten  # noqa: E402
from embucket_py.engine.functions import xml_functions as _xml_functions  # noqa: E402

_FAMILIES += [_variant.register, _variant_arrays.register, _variant_flatten.register, _xml_functions.register]

from embucket_py.engine.functions import aggregates as _aggregates  # noqa: E402
from embucket_py.engine.functions import conversion as _conversion  # noqa: E402
from embucket_py.engine.functions import generation as _generation  # noqa: E402
from embucket_py.engine.functions import number_format as _number_format  # noqa: E402
from embucket_py.engine.functions import numeric as _numeric  # noqa: E402
from embucket_py.engine.functions import windows as _windows  # noqa: E402

_FAMILIES += [_conversion.register, _numeric.register, _aggregates.register, _generation.register]
_FAMILIES += [_windows.register, _number_format.register]

from embucket_py.engine.functions import hashing as _hashing  # noqa: E402
from embucket_py.engine.functions import regex as _regex  # noqa: E402
from embucket_py.engine.functions import strings as _strings  # noqa: E402

_FAMILIES += [_strings.register, _regex.register, _hashing.register]


def register_functions(ctx: SessionContext) -> None:
    for register in _FAMILIES:
        register(ctx)
