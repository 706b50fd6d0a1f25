"""The output columns of SHOW and DESCRIBE, in Snowflake's order, each list with its docs page."""

from __future__ import annotations

from embucket_py.types import MAX_VARCHAR, NUMBER_38_0, SfType

TEXT = SfType("TEXT", length=MAX_VARCHAR)
NUMBER = NUMBER_38_0
TIMESTAMP_LTZ = SfType("TIMESTAMP_LTZ", scale=3)

# Every object here belongs to the one role sessions use by default.
OWNER = "ACCOUNTADMIN"
# Time Travel retention in days, as SHOW prints it (Snowflake's default DATA_RETENTION_TIME_IN_DAYS).
# https://docs.snowflake.com/en/sql-reference/parameters#data-retention-time-in-days
RETENTION_TIME = "1"

Columns = list[tuple[str, SfType]]

# TERSE returns these five columns for every object kind.
# https://docs.snowflake.com/en/sql-reference/sql/show-tables#parameters
TERSE: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("kind", TEXT),
    ("database_name", TEXT),
    ("schema_name", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-databases#output
DATABASES: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("is_default", TEXT),
    ("is_current", TEXT),
    ("origin", TEXT),
    ("owner", TEXT),
    ("comment", TEXT),
    ("options", TEXT),
    ("retention_time", TEXT),
    ("kind", TEXT),
    ("owner_role_type", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-schemas#output
SCHEMAS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("is_default", TEXT),
    ("is_current", TEXT),
    ("database_name", TEXT),
    ("owner", TEXT),
    ("comment", TEXT),
    ("options", TEXT),
    ("retention_time", TEXT),
    ("owner_role_type", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-tables#output (the BUDGET column was
# removed in bundle 2025_02, is_dynamic added in 2024_03:
# https://docs.snowflake.com/en/release-notes/bcr-bundles/2025_02/bcr-1913,
# https://docs.snowflake.com/en/release-notes/bcr-bundles/2024_03/bcr-1580)
TABLES: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("database_name", TEXT),
    ("schema_name", TEXT),
    ("kind", TEXT),
    ("comment", TEXT),
    ("cluster_by", TEXT),
    ("rows", NUMBER),
    ("bytes", NUMBER),
    ("owner", TEXT),
    ("retention_time", TEXT),
    ("automatic_clustering", TEXT),
    ("change_tracking", TEXT),
    ("search_optimization", TEXT),
    ("search_optimization_progress", NUMBER),
    ("search_optimization_bytes", NUMBER),
    ("is_external", TEXT),
    ("enable_schema_evolution", TEXT),
    ("owner_role_type", TEXT),
    ("is_event", TEXT),
    ("is_hybrid", TEXT),
    ("is_iceberg", TEXT),
    ("is_dynamic", TEXT),
    ("is_immutable", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-objects#output
OBJECTS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("database_name", TEXT),
    ("schema_name", TEXT),
    ("kind", TEXT),
    ("comment", TEXT),
    ("cluster_by", TEXT),
    ("rows", NUMBER),
    ("bytes", NUMBER),
    ("owner", TEXT),
    ("retention_time", TEXT),
    ("owner_role_type", TEXT),
    ("is_hybrid", TEXT),
    ("is_dynamic", TEXT),
    ("is_iceberg", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-views#output
VIEWS: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("reserved", TEXT),
    ("database_name", TEXT),
    ("schema_name", TEXT),
    ("owner", TEXT),
    ("comment", TEXT),
    ("text", TEXT),
    ("is_secure", TEXT),
    ("is_materialized", TEXT),
    ("owner_role_type", TEXT),
    ("change_tracking", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-columns#output
COLUMNS: Columns = [
    ("table_name", TEXT),
    ("schema_name", TEXT),
    ("column_name", TEXT),
    ("data_type", TEXT),
    ("null?", TEXT),
    ("default", TEXT),
    ("kind", TEXT),
    ("expression", TEXT),
    ("comment", TEXT),
    ("database_name", TEXT),
    ("autoincrement", TEXT),
    ("schema_evolution_record", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/desc-table#output
DESCRIBE_TABLE: Columns = [
    ("name", TEXT),
    ("type", TEXT),
    ("kind", TEXT),
    ("null?", TEXT),
    ("default", TEXT),
    ("primary key", TEXT),
    ("unique key", TEXT),
    ("check", TEXT),
    ("expression", TEXT),
    ("comment", TEXT),
    ("policy name", TEXT),
    ("privacy domain", TEXT),
]

# DESCRIBE DATABASE lists its schemas, DESCRIBE SCHEMA its objects, in these columns.
# https://docs.snowflake.com/en/sql-reference/sql/desc-database
DESCRIBE_CONTAINER: Columns = [("created_on", TIMESTAMP_LTZ), ("name", TEXT), ("kind", TEXT)]

# https://docs.snowflake.com/en/sql-reference/sql/show-parameters#output
PARAMETERS: Columns = [
    ("key", TEXT),
    ("value", TEXT),
    ("default", TEXT),
    ("level", TEXT),
    ("description", TEXT),
    ("type", TEXT),
]

# Snowflake's own default and description of the session parameters sessions here start with.
# https://docs.snowflake.com/en/sql-reference/parameters
PARAMETER_DOCS: dict[str, tuple[object, str]] = {
    "AUTOCOMMIT": (True, "Whether each statement commits on its own (autocommit)."),
    "CLIENT_PREFETCH_THREADS": (4, "Number of threads the client uses to download result chunks."),
    "CLIENT_RESULT_CHUNK_SIZE": (160, "Maximum size of each result chunk downloaded by the client, in MB."),
    "CLIENT_SESSION_KEEP_ALIVE": (False, "Whether the client keeps the session alive indefinitely."),
    "CLIENT_SESSION_KEEP_ALIVE_HEARTBEAT_FREQUENCY": (3600, "Seconds between client heartbeats."),
    "CLIENT_STAGE_ARRAY_BINDING_THRESHOLD": (65280, "Number of array bind rows above which stages are used."),
    "DATE_OUTPUT_FORMAT": ("YYYY-MM-DD", "Display format for the DATE data type."),
    "ERROR_ON_NONDETERMINISTIC_MERGE": (
        True,
        "Whether MERGE fails when a target row joins several source rows (else one of them is used).",
    ),
    "ERROR_ON_NONDETERMINISTIC_UPDATE": (
        False,
        "Whether UPDATE fails when a target row joins several source rows (else one of them is used).",
    ),
    "PYTHON_CONNECTOR_QUERY_RESULT_FORMAT": ("ARROW", "Result format for the Python connector."),
    "QUERY_RESULT_FORMAT": ("JSON", "Format of query results sent to clients."),
    "QUERY_TAG": ("", "String tagging the queries of the session."),
    "SEARCH_PATH": ("$current, $public", "Schemas searched for the unqualified names of queries, in order."),
    "STATEMENT_TIMEOUT_IN_SECONDS": (172800, "Seconds after which a running statement is canceled."),
    "TIMESTAMP_OUTPUT_FORMAT": (
        "YYYY-MM-DD HH24:MI:SS.FF3 TZHTZM",
        "Display format for the TIMESTAMP data type alias.",
    ),
    "TIMEZONE": ("America/Los_Angeles", "time zone"),
    "USE_CACHED_RESULT": (True, "Whether to reuse persisted query results when the data has not changed."),
    "WEEK_START": (0, "First day of the week (0 = legacy, 1 = Monday ... 7 = Sunday)."),
}

# SHOW VARIABLES output, in order.
# https://docs.snowflake.com/en/sql-reference/sql/show-variables
VARIABLES: Columns = [
    ("session_id", NUMBER),
    ("created_on", TIMESTAMP_LTZ),
    ("updated_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("value", TEXT),
    ("type", TEXT),
    ("comment", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-sequences#output
SEQUENCES: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("schema_name", TEXT),
    ("database_name", TEXT),
    ("next_value", NUMBER),
    ("interval", NUMBER),
    ("owner", TEXT),
    ("owner_role_type", TEXT),
    ("comment", TEXT),
    ("ordered", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-masking-policies#example (and row access)
POLICIES: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("database_name", TEXT),
    ("schema_name", TEXT),
    ("kind", TEXT),
    ("owner", TEXT),
    ("comment", TEXT),
    ("options", TEXT),
    ("owner_role_type", TEXT),
]
# https://docs.snowflake.com/en/sql-reference/sql/desc-masking-policy
DESCRIBED_POLICY: Columns = [("name", TEXT), ("signature", TEXT), ("return_type", TEXT), ("body", TEXT)]

# https://docs.snowflake.com/en/sql-reference/sql/show-procedures#output
PROCEDURES: Columns = [
    ("created_on", TIMESTAMP_LTZ),
    ("name", TEXT),
    ("schema_name", TEXT),
    ("is_builtin", TEXT),
    ("is_aggregate", TEXT),
    ("is_ansi", TEXT),
    ("min_num_arguments", NUMBER),
    ("max_num_arguments", NUMBER),
    ("arguments", TEXT),
    ("description", TEXT),
    ("catalog_name", TEXT),
    ("is_table_function", TEXT),
    ("valid_for_clustering", TEXT),
    ("is_secure", TEXT),
    ("secrets", TEXT),
    ("external_access_integrations", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-user-functions#output
FUNCTIONS: Columns = [
    *PROCEDURES,
    ("is_external_function", TEXT),
    ("language", TEXT),
    ("is_memoizable", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/show-warehouses#output
WAREHOUSES: Columns = [
    ("name", TEXT),
    ("state", TEXT),
    ("type", TEXT),
    ("size", TEXT),
    ("min_cluster_count", NUMBER),
    ("max_cluster_count", NUMBER),
    ("started_clusters", NUMBER),
    ("running", NUMBER),
    ("queued", NUMBER),
    ("is_default", TEXT),
    ("is_current", TEXT),
    ("auto_suspend", NUMBER),
    ("auto_resume", TEXT),
    ("available", TEXT),
    ("provisioning", TEXT),
    ("quiescing", TEXT),
    ("other", TEXT),
    ("created_on", TIMESTAMP_LTZ),
    ("resumed_on", TIMESTAMP_LTZ),
    ("updated_on", TIMESTAMP_LTZ),
    ("owner", TEXT),
    ("comment", TEXT),
    ("enable_query_acceleration", TEXT),
    ("query_acceleration_max_scale_factor", NUMBER),
    ("resource_monitor", TEXT),
    ("scaling_policy", TEXT),
    ("owner_role_type", TEXT),
]

# https://docs.snowflake.com/en/sql-reference/sql/desc-warehouse#output
DESCRIBE_WAREHOUSE: Columns = [("created_on", TIMESTAMP_LTZ), ("name", TEXT), ("kind", TEXT)]

# --- kinds of objects this server has none of ----------------------------------------------------

# The counts and ids among the columns below; `*_on` columns are timestamps and the rest text.
_NUMBERS = {
    "rows",
    "bytes",
    "transaction",
    "session",
    "entries_in_allowed_ip_list",
    "entries_in_blocked_ip_list",
    "entries_in_allowed_network_rules",
    "entries_in_blocked_network_rules",
}


def _typed(names: str) -> Columns:
    return [
        (n, TIMESTAMP_LTZ if n.endswith("_on") else NUMBER if n in _NUMBERS else TEXT) for n in names.split()
    ]


_INTEGRATIONS = _typed("name type category enabled comment created_on")
# SHOW <kind> (and SHOW TERSE <kind>, where the kind has TERSE) for the kinds in
# sql/metadata.py EMPTY_SCHEMA_KINDS and EMPTY_ACCOUNT_KINDS: Snowflake's output columns, answered
# with no rows (SHOW INTEGRATIONS still lists the catalog integrations). Where a page has no
# Output table, its examples' columns.
EMPTY_KINDS: dict[str, Columns] = {
    # https://docs.snowflake.com/en/sql-reference/sql/show-materialized-views#output
    "MATERIALIZED VIEWS": _typed(
        "created_on name reserved database_name schema_name cluster_by rows bytes source_database_name"
        " source_schema_name source_table_name refreshed_on compacted_on owner invalid invalid_reason"
        " behind_by comment text is_secure automatic_clustering owner_role_type"
    ),
    # https://docs.snowflake.com/en/sql-reference/sql/show-pipes#output
    "PIPES": _typed(
        "created_on name database_name schema_name definition owner notification_channel comment"
        " integration pattern error_integration owner_role_type invalid_reason kind"
    ),
    # https://docs.snowflake.com/en/sql-reference/sql/show-external-tables#output
    "EXTERNAL TABLES": _typed(
        "created_on name database_name schema_name invalid invalid_reason owner comment stage location"
        " file_format_name file_format_type cloud region notification_channel last_refreshed_on"
        " table_format last_refresh_details owner_role_type"
    ),
    "TERSE EXTERNAL TABLES": TERSE,
    # One list for every type of integration:
    # https://docs.snowflake.com/en/sql-reference/sql/show-integrations#output
    "INTEGRATIONS": _INTEGRATIONS,
    "API INTEGRATIONS": _INTEGRATIONS,
    "EXTERNAL ACCESS INTEGRATIONS": _INTEGRATIONS,
    "SECURITY INTEGRATIONS": _INTEGRATIONS,
    "STORAGE INTEGRATIONS": _INTEGRATIONS,
    # https://docs.snowflake.com/en/sql-reference/sql/show-notification-integrations#output
    "NOTIFICATION INTEGRATIONS": [*_INTEGRATIONS, ("direction", TEXT)],
    # https://docs.snowflake.com/en/sql-reference/sql/show-network-policies#examples
    "NETWORK POLICIES": _typed(
        "created_on name comment entries_in_allowed_ip_list entries_in_blocked_ip_list"
        " entries_in_allowed_network_rules entries_in_blocked_network_rules"
    ),
    # https://docs.snowflake.com/en/sql-reference/sql/show-alerts#output, less runbook, config and
    # was_auto_suspended: the page has them arrive with behavior change bundle 2026_04.
    "ALERTS": _typed(
        "created_on name database_name schema_name owner comment warehouse schedule state condition"
        " action owner_role_type"
    ),
    "TERSE ALERTS": _typed("created_on name kind database_name schema_name schedule state"),
    # https://docs.snowflake.com/en/sql-reference/sql/show-shares#examples
    "SHARES": _typed("created_on kind owner_account name database_name to owner comment listing_global_name"),
    # https://docs.snowflake.com/en/sql-reference/sql/show-event-tables#output
    "EVENT TABLES": _typed("created_on name database_name schema_name owner comment owner_role_type"),
    "TERSE EVENT TABLES": _typed("created_on name database_name schema_name"),
    # https://docs.snowflake.com/en/sql-reference/sql/show-hybrid-tables#output
    "HYBRID TABLES": _typed(
        "created_on name database_name schema_name owner rows bytes comment owner_role_type"
    ),
    "TERSE HYBRID TABLES": TERSE,
    # https://docs.snowflake.com/en/sql-reference/sql/show-locks#output
    "LOCKS": _typed("resource type transaction transaction_started_on status acquired_on query_id session"),
}
