"""Semi-structured functions, path access (`v:a.b[0]`, `v['k']`), casts and comparisons of
VARIANT values -> the JSON-text UDFs of `engine/functions/variant*.py`.

The rewrite runs bottom-up, so a node knows whether its (already rewritten) arguments are
VARIANTs: a call to one of the UDFs that return VARIANT/OBJECT/ARRAY. Arguments of any SQL type
that must become VARIANT go through `sf_to_variant(x, arrow_typeof(x))`, which keeps a value that
is already a VARIANT and turns the others into JSON by their type.
https://docs.snowflake.com/en/sql-reference/functions-semistructured
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from embucket_py.errors import Unsupported
from embucket_py.sql.context import active
from embucket_py.sql.transforms.functions.column_kinds import is_binary, kind_here, may_be_semi_structured
from embucket_py.sql.transforms.functions.zones import session_timezone, zone_name

# UDFs whose result is a VARIANT, OBJECT or ARRAY (JSON text tagged with its type).
VARIANT_UDFS = frozenset(
    {
        "sf_parse_json",
        "sf_try_parse_json",
        "sf_to_variant",
        "sf_to_array",
        "sf_to_object",
        "sf_as_array",
        "sf_as_object",
        "sf_strip_null_value",
        "sf_get",
        "sf_get_ignore_case",
        "sf_get_path",
        "sf_object_construct",
        "sf_object_insert",
        "sf_object_pick",
        "sf_object_delete",
        "sf_object_keys",
        "sf_object_from_pairs",
        "sf_parse_xml",
        "sf_xmlget",
        "sf_array_construct",
        "sf_array_from_list",
        "sf_array_union_list",
        "sf_array_sorted_from_list",
        "sf_array_cat",
        "sf_arrays_zip",
        "sf_array_except",
        "sf_array_intersection",
        "sf_array_compact",
        "sf_array_distinct",
        "sf_array_reverse",
        "sf_array_flatten",
        "sf_array_append",
        "sf_array_prepend",
        "sf_array_insert",
        "sf_array_slice",
        "sf_array_remove_at",
        "sf_array_remove",
        "sf_array_sort",
        "sf_array_min",
        "sf_array_max",
        "sf_array_generate_range",
        # String & regex functions returning ARRAY/OBJECT (engine/functions/strings.py, regex.py).
        "sf_split",
        "sf_strtok_to_array",
        "sf_parse_url",
        "sf_regexp_substr_all",
        # A conditional with a VARIANT among its values (functions/implicit_casts.py).
        "sf_variant_tag",
        # Higher-order functions (engine/lambdas.py).
        "sf_transform",
        "sf_transform_captured",
        "sf_filter",
        "sf_filter_captured",
        "sf_reduce",
        "sf_reduce_captured",
    }
)
SEMI_TYPES = (exp.DType.VARIANT, exp.DType.OBJECT, exp.DType.ARRAY)
_TIMESTAMP_TYPES = (
    exp.DType.TIMESTAMP,
    exp.DType.TIMESTAMPNTZ,
    exp.DType.DATETIME,
    exp.DType.TIMESTAMPLTZ,
    exp.DType.TIMESTAMPTZ,
)
TAG_KEY = "embucket.sftype"


def call(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def is_variant(node: exp.Expression | None) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Anonymous) and node.name in VARIANT_UDFS


def type_of(node: exp.Expression) -> exp.Expression:
    """`<arrow type>|<Snowflake tag>` of an expression, both known when the query is planned (the
    tag from field metadata says VARIANT/OBJECT/ARRAY; run-time batches may not carry it)."""
    if _stored_semi_structured(node):
        return lit(f"Utf8|{kind_here(node)}")
    tag = call("coalesce", call("arrow_metadata", node.copy(), lit(TAG_KEY)), lit(""))
    return call("concat", call("arrow_typeof", node.copy()), lit("|"), tag)


def _stored_semi_structured(node: exp.Expression) -> bool:
    """A column known at translation to be a stored VARIANT/OBJECT/ARRAY. Its tag is told from
    here: scans of a table's Parquet files do not carry the field metadata at run time (only
    tables read into memory do), so `arrow_metadata` finds none there."""
    return isinstance(node, exp.Column) and (kind_here(node) or "") in ("VARIANT", "OBJECT", "ARRAY")


def _argument(node: exp.Expression) -> exp.Expression:
    """A value as the Utf8 argument of a semi-structured UDF. BINARY becomes its upper-case hex
    digits (as a VARIANT shows it), which plain coercion to Utf8 is not: it fails on bytes that
    are not UTF-8."""
    return call("upper", call("encode", node, lit("hex"))) if is_binary(node) else node


def variant(node: exp.Expression) -> exp.Expression:
    """Any value as a VARIANT (JSON text)."""
    if is_variant(node):
        return node
    return call("sf_to_variant", _argument(node), type_of(node))


def typed(name: str, node: exp.Expression) -> exp.Anonymous:
    return call(name, _argument(node), type_of(node))


def text(node: exp.Expression) -> exp.Expression:
    """A VARIANT as VARCHAR (strings unquoted, JSON null as NULL)."""
    return call("sf_variant_text", node)


def lit(value: str | bool | int) -> exp.Expression:
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    return exp.Literal.string(value)


def sf_type(sql: str) -> exp.DataType:
    return exp.DataType.build(sql, dialect="snowflake")


def cast(node: exp.Expression, to: exp.DataType | str) -> exp.Cast:
    return exp.Cast(this=node, to=to if isinstance(to, exp.DataType) else sf_type(to))


def path_text(path: exp.Expression) -> exp.Expression:
    """A JSONPath (from `v:a.b[0]` or GET_PATH's literal) as the path string the UDF parses."""
    if not isinstance(path, exp.JSONPath):
        return path
    out = ""
    for part in path.expressions:
        if isinstance(part, exp.JSONPathRoot):
            continue
        if isinstance(part, exp.JSONPathKey):
            key = str(part.this)
            plain = key.replace("_", "a").replace("$", "a").isalnum() and not part.args.get("quoted")
            out += ("." if out else "") + (key if plain else '"' + key.replace('"', '\\"') + '"')
        elif isinstance(part, exp.JSONPathSubscript):
            out += f"[{part.this}]"
        elif isinstance(part, exp.JSONPathWildcard):
            raise Unsupported("Wildcards in semi-structured paths are not supported.")
        else:
            raise Unsupported(f"Path element {part.sql()} is not supported.")
    return exp.Literal.string(out)


def anonymous_args(node: exp.Expression) -> list[exp.Expression]:
    return list(node.expressions)


# --- one rewrite per construct -----------------------------------------------------------------


def _array_construct(elements: list[exp.Expression], compact: bool) -> exp.Expression:
    if not elements:
        return call("sf_parse_json", exp.Literal.string("[]"))
    items = exp.Anonymous(this="make_array", expressions=[variant(e) for e in elements])
    return call("sf_array_construct", items, lit(compact))


def _object_construct(pairs: list[tuple[exp.Expression, exp.Expression]], keep_null: bool) -> exp.Expression:
    if not pairs:
        return call("sf_parse_json", exp.Literal.string("{}"))
    keys = []
    for k, _ in pairs:
        if isinstance(k, exp.Identifier):  # {'a': 1} literal keys parse as identifiers
            k = exp.Literal.string(k.name)
        keys.append(cast(k, "VARCHAR"))
    values = [variant(v) for _, v in pairs]
    return call(
        "sf_object_construct",
        exp.Anonymous(this="make_array", expressions=keys),
        exp.Anonymous(this="make_array", expressions=values),
        lit(keep_null),
    )


def _struct(node: exp.Expression) -> exp.Expression:
    items = node.expressions
    if all(isinstance(e, exp.PropertyEQ | exp.JSONKeyValue) for e in items):
        pairs = [(e.this, e.expression) for e in items]
    else:
        if len(items) % 2:
            raise Unsupported("OBJECT_CONSTRUCT needs key-value pairs.")
        pairs = [(items[i], items[i + 1]) for i in range(0, len(items), 2)]
    return _object_construct(pairs, isinstance(node, exp.JSONObject))


def _object_names(name: str, node: exp.Expression) -> exp.Expression:
    args = anonymous_args(node)
    keys = [cast(k, "VARCHAR") if not is_variant(k) else k for k in args[1:]]
    return call(name, args[0], exp.Anonymous(this="make_array", expressions=keys))


def _as(kind: str, node: exp.Expression) -> exp.Expression:
    args = anonymous_args(node)
    value = args[0]
    if kind in ("VARCHAR", "CHAR"):
        return call("sf_as", value, lit("VARCHAR"))
    if kind in ("ARRAY", "OBJECT"):
        return call(f"sf_as_{kind.lower()}", value)
    if kind in ("INTEGER",):
        return cast(call("sf_as", value, lit("INTEGER")), "NUMBER(38, 0)")
    if kind in ("DECIMAL", "NUMBER", "NUMERIC"):
        p = args[1].name if len(args) > 1 else "38"
        s = args[2].name if len(args) > 2 else "0"
        return cast(call("sf_as", value, lit("DECIMAL")), f"NUMBER({p}, {s})")
    if kind in ("DOUBLE", "REAL", "FLOAT"):
        return cast(call("sf_as", value, lit("DOUBLE")), "DOUBLE")
    if kind == "BOOLEAN":
        return cast(call("sf_as", value, lit("BOOLEAN")), "BOOLEAN")
    if kind == "BINARY":
        return exp.Anonymous(this="decode", expressions=[call("sf_as", value, lit("VARCHAR")), lit("hex")])
    if kind in ("DATE", "TIME", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ"):
        return cast(call("sf_as", value, lit("VARCHAR")), kind)
    raise Unsupported(f"AS_{kind} is not supported.")


_IS_KINDS = {
    "IS_ARRAY": "ARRAY",
    "IS_OBJECT": "OBJECT",
    "IS_INTEGER": "INTEGER",
    "IS_DECIMAL": "DECIMAL",
    "IS_DOUBLE": "DOUBLE",
    "IS_REAL": "DOUBLE",
    "IS_VARCHAR": "VARCHAR",
    "IS_CHAR": "VARCHAR",
    "IS_BOOLEAN": "BOOLEAN",
    "IS_NULL_VALUE": "NULL_VALUE",
    "IS_BINARY": "BINARY",
    "IS_DATE": "DATE",
    "IS_DATE_VALUE": "DATE",
    "IS_TIME": "TIME",
    "IS_TIMESTAMP_NTZ": "TIMESTAMP",
    "IS_TIMESTAMP_LTZ": "TIMESTAMP",
    "IS_TIMESTAMP_TZ": "TIMESTAMP",
}


def _anonymous(node: exp.Anonymous) -> exp.Expression:
    name = node.name.upper()
    args = anonymous_args(node)
    if name in _IS_KINDS:
        return call("sf_is", args[0], lit(_IS_KINDS[name]))
    if name.startswith("AS_"):
        return _as(name[3:], node)
    if name == "TO_OBJECT":
        return typed("sf_to_object", args[0])
    if name in ("OBJECT_PICK", "OBJECT_DELETE"):
        return _object_names(f"sf_{name.lower()}", node)
    if name == "OBJECT_CONSTRUCT_KEEP_NULL":
        return _struct(exp.JSONObject(expressions=args))
    if name == "JSON_EXTRACT_PATH_TEXT":
        return call("sf_json_extract_path_text", args[0], args[1])
    if name == "GENERATE_COLUMN_DESCRIPTION" and len(args) == 2:
        return call("sf_generate_column_description", args[0], cast(args[1], "VARCHAR"))
    if name == "PARSE_XML":
        return _parse_xml(node)
    if name == "TO_XML" and len(args) == 1:
        return typed("sf_to_xml", args[0])
    return node


def _parse_xml(node: exp.Anonymous) -> exp.Expression:
    """PARSE_XML(text [, disable_auto_convert]), by position or by name (STR, DISABLE_AUTO_CONVERT)."""
    named = {str(a.this).upper(): a.expression for a in node.expressions if isinstance(a, exp.Kwarg)}
    positional = [a for a in node.expressions if not isinstance(a, exp.Kwarg)]
    source = positional[0] if positional else named.get("STR")
    if source is None or len(positional) > 2:
        raise Unsupported("PARSE_XML takes the XML text and an optional DISABLE_AUTO_CONVERT flag.")
    flag = positional[1] if len(positional) > 1 else named.get("DISABLE_AUTO_CONVERT", lit(False))
    return call("sf_parse_xml", text(source) if _holds_variant(source) else source, cast(flag, "BOOLEAN"))


def _xmlget(node: exp.XMLGet) -> exp.Expression:
    instance = node.args.get("instance") or lit(0)
    return call(
        "sf_xmlget", node.this, cast(node.expression, "VARCHAR"), call("arrow_cast", instance, lit("Int64"))
    )


def _array_agg(agg: exp.ArrayAgg, order: exp.Order | None, window: exp.Window | None) -> exp.Expression:
    inner = agg.this
    distinct = isinstance(inner, exp.Distinct)
    value = inner.expressions[0] if distinct else inner
    if distinct:
        if window is not None:
            raise Unsupported("ARRAY_AGG(DISTINCT ...) as a window function is not supported.")
        native = exp.ArrayAgg(this=exp.Distinct(expressions=[variant(value)]))
        first = order.expressions[0] if order is not None and order.expressions else None
        descending = bool(first is not None and first.args.get("desc"))
        return call("sf_array_sorted_from_list", native, lit(descending))
    element: exp.Expression = variant(value)
    if order is not None:
        element = exp.Order(this=element, expressions=[o.copy() for o in order.expressions])
    native_agg: exp.Expression = exp.ArrayAgg(this=element)
    if window is not None:
        native_agg = window.copy()
        native_agg.set("this", exp.ArrayAgg(this=element))
    return call("sf_array_from_list", native_agg)


def _array_unique_agg(node: exp.ArrayUniqueAgg) -> exp.Expression:
    """Each distinct value of the column once (an ARRAY value is one element), NULLs left out."""
    return _array_agg(exp.ArrayAgg(this=exp.Distinct(expressions=[node.this])), None, None)


def _approx_top_k(node: exp.ApproxTopK, window: exp.Window | None) -> exp.Expression:
    """APPROX_TOP_K(x [, k [, counters]]) [OVER (...)]: counted exactly, so `counters` changes
    nothing. The UDAF's JSON text is tagged ARRAY by PARSE_JSON (an aggregate's result carries no
    tag)."""
    k = node.expression
    if k is not None and not k.is_int:
        raise Unsupported("APPROX_TOP_K with a k that is not a constant integer")
    top: exp.Expression = call("sf_top_k", variant(node.this), lit(int(k.to_py()) if k is not None else 1))
    if window is not None:
        over = window.copy()
        over.set("this", top)
        top = over
    return call("sf_parse_json", top)


def _object_agg(node: exp.ObjectAgg) -> exp.Expression:
    # A VARIANT key is its string (`v:k` keys as 'a', not as the JSON text '"a"').
    key = text(node.this) if _holds_variant(node.this) else cast(node.this, "VARCHAR")
    pair = exp.Anonymous(this="make_array", expressions=[key, variant(node.expression)])
    return call("sf_object_from_pairs", exp.ArrayAgg(this=pair))


def _cast(node: exp.Cast) -> exp.Expression:
    to = node.to
    inner = node.this
    if to.this in SEMI_TYPES:
        if to.this == exp.DType.ARRAY and to.expressions:
            raise Unsupported("Structured ARRAY types are not supported.")
        name = {exp.DType.VARIANT: "sf_to_variant", exp.DType.OBJECT: "sf_to_object"}.get(
            to.this, "sf_to_array"
        )
        if is_variant(inner) and to.this == exp.DType.VARIANT:
            return inner
        if is_variant(inner):  # JSON text: its value is read (batches need not carry the tag)
            return call(name, inner, lit("Utf8|VARIANT"))
        return typed(name, inner)
    if _holds_variant(inner):
        return _from_variant(node, inner)
    if isinstance(inner, exp.Column) and may_be_semi_structured(inner, active()):
        # The column may be a VARIANT (its tag says so at run time): only then unquote it.
        tagged = exp.In(
            this=call("arrow_metadata", inner.copy(), lit(TAG_KEY)),
            expressions=[lit(k) for k in ("VARIANT", "OBJECT", "ARRAY")],
        )
        return exp.Case(ifs=[exp.If(this=tagged, true=_from_variant(node, inner.copy()))], default=node)
    return node


def _from_variant(node: exp.Cast, inner: exp.Expression) -> exp.Expression:
    """CAST(<VARIANT> AS <type>): its text, cast; a timestamp reads a JSON number as an epoch."""
    to = node.to
    if to.this in exp.DataType.TEXT_TYPES:
        return text(inner)
    if to.this in _TIMESTAMP_TYPES:
        # A JSON number is an epoch instant (engine/functions/conversion.variant_timestamps).
        instant = to.this in (exp.DType.TIMESTAMPLTZ, exp.DType.TIMESTAMPTZ)
        name = f"sf_{'try_' if isinstance(node, exp.TryCast) else ''}variant_to_"
        name += "instant" if instant else "timestamp"
        return call(name, inner, lit(zone_name(session_timezone())))
    return node.__class__(this=text(inner), to=to.copy())


_ORDERING = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def _holds_variant(node: exp.Expression) -> bool:
    """A VARIANT the rewrites made (a path, PARSE_JSON, ...) or a stored VARIANT/OBJECT/ARRAY column."""
    return is_variant(node) or _stored_semi_structured(node)


def _literal_side(variant_side: exp.Expression, other: exp.Expression) -> exp.Expression | None:
    """A VARIANT compared with a literal compares as the literal's type (a value that is not a
    number is unequal to a number: no error)."""
    if isinstance(other, exp.Neg):
        other = other.this
    if isinstance(other, exp.Literal) and other.is_string:
        return text(variant_side)
    if isinstance(other, exp.Literal):
        return exp.TryCast(this=text(variant_side), to=sf_type("DOUBLE"))
    if isinstance(other, exp.Boolean):
        return cast(text(variant_side), "BOOLEAN")
    return None


def _comparison(node: exp.Binary) -> exp.Expression:
    left, right = node.this, node.expression
    if _holds_variant(left) and not _holds_variant(right):
        new = _literal_side(left, right)
        if new is not None:
            node.set("this", new)
    elif _holds_variant(right) and not _holds_variant(left):
        new = _literal_side(right, left)
        if new is not None:
            node.set("expression", new)
    return node


def _in(node: exp.In) -> exp.Expression:
    if (
        _holds_variant(node.this)
        and node.expressions
        and all(isinstance(e, exp.Literal) for e in node.expressions)
    ):
        new = _literal_side(node.this, node.expressions[0])
        if new is not None:
            node.set("this", new)
    return node


def _get(node: exp.Expression, name: str = "sf_get") -> exp.Expression:
    key = node.expression if not isinstance(node, exp.Bracket) else node.expressions[0]
    if isinstance(node, exp.Bracket) and len(node.expressions) != 1:
        raise Unsupported("Only one subscript per bracket is supported.")
    return call(name, node.this, key, type_of(key))


def _json_extract(node: exp.JSONExtract) -> exp.Expression:
    return call("sf_get_path", node.this, path_text(node.expression))


def _array_fn(name: str, *keys: str) -> Callable[[exp.Expression], exp.Expression]:
    def run(node: exp.Expression) -> exp.Expression:
        return call(name, *(node.args[k] for k in keys))

    return run


def _element_fn(
    name: str, array_key: str, value_key: str, value_first: bool
) -> Callable[[exp.Expression], exp.Expression]:
    def run(node: exp.Expression) -> exp.Expression:
        array, value = node.args[array_key], variant(node.args[value_key])
        return call(name, value, array) if value_first else call(name, array, value)

    return run


def _generate_range(node: exp.GenerateSeries) -> exp.Expression:
    if not node.args.get("is_end_exclusive"):
        return node
    step = node.args.get("step") or exp.Literal.number(1)
    return call("sf_array_generate_range", node.args["start"], node.args["end"], step)


def _sort(node: exp.ArraySort) -> exp.Expression:
    asc = node.args.get("asc") or exp.Boolean(this=True)
    nulls_first = node.args.get("nulls_first") or exp.Null()
    return call("sf_array_sort", node.this, asc, cast(nulls_first, "BOOLEAN"))


def _intersection(node: exp.ArrayIntersect) -> exp.Expression:
    if len(node.expressions) != 2:
        return node
    return call("sf_array_intersection", *node.expressions)


def _concat(node: exp.ArrayConcat) -> exp.Expression:
    result = node.this
    for other in node.expressions:
        result = call("sf_array_cat", result, other)
    return result


def _insert(node: exp.ArrayInsert) -> exp.Expression:
    return call("sf_array_insert", node.this, node.args["position"], variant(node.expression))


def _object_insert(node: exp.ObjectInsert) -> exp.Expression:
    update = node.args.get("update_flag") or exp.Boolean(this=False)
    value = node.args["value"]
    return call("sf_object_insert", node.this, cast(node.args["key"], "VARCHAR"), variant(value), update)


_BY_CLASS: dict[type[exp.Expression], Callable[[exp.Expression], exp.Expression]] = {
    exp.ParseJSON: lambda n: call("sf_try_parse_json" if n.args.get("safe") else "sf_parse_json", n.this),
    exp.ToVariant: lambda n: variant(n.this),
    exp.JSONFormat: lambda n: typed("sf_to_json", n.this),
    exp.ToArray: lambda n: typed("sf_to_array", n.this),
    exp.Struct: _struct,
    exp.JSONObject: _struct,
    exp.Array: lambda n: _array_construct(list(n.expressions), False),
    exp.ArrayConstructCompact: lambda n: _array_construct(list(n.expressions), True),
    exp.ObjectInsert: _object_insert,  # type: ignore[dict-item]
    exp.ObjectAgg: _object_agg,  # type: ignore[dict-item]
    exp.ArraySize: _array_fn("sf_array_size", "this"),
    exp.ArrayContains: _element_fn("sf_array_contains", "this", "expression", True),
    exp.ArrayPosition: _element_fn("sf_array_position", "this", "expression", True),
    exp.ArrayAppend: _element_fn("sf_array_append", "this", "expression", False),
    exp.ArrayPrepend: _element_fn("sf_array_prepend", "this", "expression", False),
    exp.ArrayRemove: _element_fn("sf_array_remove", "this", "expression", False),
    exp.ArrayConcat: _concat,  # type: ignore[dict-item]
    exp.ArraysZip: lambda n: call(
        "sf_arrays_zip", exp.Anonymous(this="make_array", expressions=n.expressions)
    ),
    exp.ArrayInsert: _insert,  # type: ignore[dict-item]
    exp.ArraySlice: _array_fn("sf_array_slice", "this", "start", "end"),
    exp.ArrayRemoveAt: _array_fn("sf_array_remove_at", "this", "position"),
    exp.ArrayCompact: _array_fn("sf_array_compact", "this"),
    exp.ArrayDistinct: _array_fn("sf_array_distinct", "this"),
    exp.ArrayReverse: _array_fn("sf_array_reverse", "this"),
    exp.ArrayIntersect: _intersection,  # type: ignore[dict-item]
    exp.ArrayExcept: _array_fn("sf_array_except", "this", "expression"),
    exp.ArrayOverlaps: _array_fn("sf_arrays_overlap", "this", "expression"),
    exp.ArrayToString: _array_fn("sf_array_to_string", "this", "expression"),
    exp.Flatten: _array_fn("sf_array_flatten", "this"),
    exp.ArraySort: _sort,  # type: ignore[dict-item]
    exp.ArrayMin: _array_fn("sf_array_min", "this"),
    exp.ArrayMax: _array_fn("sf_array_max", "this"),
    exp.GenerateSeries: _generate_range,  # type: ignore[dict-item]
    exp.GetExtract: _get,
    exp.Bracket: _get,
    exp.GetIgnoreCase: lambda n: _get(n, "sf_get_ignore_case"),
    exp.JSONExtract: _json_extract,  # type: ignore[dict-item]
    exp.JSONExtractScalar: lambda n: call("sf_json_extract_path_text", n.this, path_text(n.expression)),
    exp.JSONKeys: _array_fn("sf_object_keys", "this"),
    exp.Typeof: _array_fn("sf_typeof", "this"),
    exp.IsArray: lambda n: call("sf_is", n.this, lit("ARRAY")),
    exp.IsNullValue: lambda n: call("sf_is", n.this, lit("NULL_VALUE")),
    exp.CheckJson: _array_fn("sf_check_json", "this"),
    exp.CheckXml: _array_fn("sf_check_xml", "this"),
    exp.XMLGet: _xmlget,  # type: ignore[dict-item]
    exp.StripNullValue: _array_fn("sf_strip_null_value", "this"),
    exp.ArrayUnionAgg: lambda n: call("sf_array_union_list", exp.ArrayAgg(this=variant(n.this))),
    exp.ArrayUniqueAgg: _array_unique_agg,  # type: ignore[dict-item]
    exp.Cast: _cast,  # type: ignore[dict-item]
    exp.TryCast: _cast,  # type: ignore[dict-item]
    exp.In: _in,  # type: ignore[dict-item]
    exp.ToChar: lambda n: text(n.this) if _holds_variant(n.this) and not n.args.get("format") else n,
}


# Functions of text: a VARIANT argument is its text, as Snowflake casts it (a string unquoted).
_TEXT_FUNCTIONS = (
    exp.Upper,
    exp.Lower,
    exp.DPipe,
    exp.Concat,
    exp.Trim,
    exp.Length,
    exp.Substring,
    exp.Like,
    exp.ILike,
    exp.StrPosition,
    exp.Initcap,
    exp.Left,
    exp.Right,
)


def _text_arguments(node: exp.Expression) -> None:
    for key in ("this", "expression", "expressions"):
        value = node.args.get(key)
        for arg in value if isinstance(value, list) else [value]:
            if isinstance(arg, exp.Expression) and _holds_variant(arg):
                arg.replace(text(arg.copy()))


# Where a value is a condition: a VARIANT there reads as its BOOLEAN (`WHERE v:active`), which
# DataFusion refused ("non-boolean predicate").
_CONDITIONS: dict[type[exp.Expression], tuple[str, ...]] = {
    exp.Where: ("this",),
    exp.Having: ("this",),
    exp.Qualify: ("this",),
    exp.And: ("this", "expression"),
    exp.Or: ("this", "expression"),
    exp.Not: ("this",),
    exp.If: ("this",),
    exp.Join: ("on",),
}


def _conditions(node: exp.Expression) -> None:
    for key in _CONDITIONS.get(type(node), ()):
        value = node.args.get(key)
        while isinstance(value, exp.Paren):
            node, key, value = value, "this", value.this
        if isinstance(value, exp.Expression) and _holds_variant(value):
            node.set(key, cast(call("sf_as", value, lit("BOOLEAN")), "BOOLEAN"))


def _rewrite_node(node: exp.Expression) -> exp.Expression:
    _conditions(node)
    if isinstance(node, _TEXT_FUNCTIONS):
        _text_arguments(node)
    if isinstance(node, exp.ArrayAgg):
        parent = node.parent
        if isinstance(parent, exp.WithinGroup | exp.Window):
            return node  # the enclosing WITHIN GROUP / OVER rewrites it with its ordering
        return _array_agg(node, None, None)
    if isinstance(node, exp.WithinGroup) and isinstance(node.this, exp.ArrayAgg):
        if isinstance(node.parent, exp.Window):
            return node
        return _array_agg(node.this, node.expression, None)
    if isinstance(node, exp.Window):
        inner = node.this
        if isinstance(inner, exp.WithinGroup) and isinstance(inner.this, exp.ArrayAgg):
            window = node.copy()
            window.set("order", inner.expression)
            return _array_agg(inner.this, None, window)
        if isinstance(inner, exp.ArrayAgg):
            return _array_agg(inner, None, node)
        if isinstance(inner, exp.ApproxTopK):
            return _approx_top_k(inner, node)
        return node
    if isinstance(node, exp.ApproxTopK) and not isinstance(node.parent, exp.Window):
        return _approx_top_k(node, None)
    if isinstance(node, _ORDERING):
        return _comparison(node)  # type: ignore[arg-type]
    if isinstance(node, exp.Anonymous):
        return _anonymous(node)
    handler = _BY_CLASS.get(type(node))
    return handler(node) if handler is not None else node


def _visit(node: exp.Expression) -> exp.Expression:
    for key, value in list(node.args.items()):
        if isinstance(value, exp.Expression):
            new = _visit(value)
            if new is not value:
                node.set(key, new)
        elif isinstance(value, list):
            items = [_visit(v) if isinstance(v, exp.Expression) else v for v in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                node.set(key, items)
    return _rewrite_node(node)


def rewrite(tree: exp.Expression) -> exp.Expression:
    return _visit(tree)
