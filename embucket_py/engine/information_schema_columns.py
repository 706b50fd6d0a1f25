"""The columns of each INFORMATION_SCHEMA view, in Snowflake's order, each with its docs page."""

from __future__ import annotations

from embucket_py.types import MAX_VARCHAR, NUMBER_38_0, SfType

TEXT = SfType("TEXT", length=MAX_VARCHAR)
NUMBER = NUMBER_38_0
TIMESTAMP_LTZ = SfType("TIMESTAMP_LTZ", scale=3)
Columns = list[tuple[str, SfType]]


def _text(*names: str) -> Columns:
    return [(n, TEXT) for n in names]


# https://docs.snowflake.com/en/sql-reference/info-schema/databases
DATABASES: Columns = [
    *_text("DATABASE_NAME", "DATABASE_OWNER", "IS_TRANSIENT", "COMMENT"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    ("RETENTION_TIME", NUMBER),
    *_text("TYPE", "REPLICABLE_WITH_FAILOVER_GROUPS", "OWNER_ROLE_TYPE"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/schemata
SCHEMATA: Columns = [
    *_text("CATALOG_NAME", "SCHEMA_NAME", "SCHEMA_OWNER", "IS_TRANSIENT", "IS_MANAGED_ACCESS"),
    ("RETENTION_TIME", NUMBER),
    *_text("DEFAULT_CHARACTER_SET_CATALOG", "DEFAULT_CHARACTER_SET_SCHEMA", "DEFAULT_CHARACTER_SET_NAME"),
    *_text("SQL_PATH"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("COMMENT", "REPLICABLE_WITH_FAILOVER_GROUPS", "OWNER_ROLE_TYPE"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/tables
TABLES: Columns = [
    *_text("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_OWNER", "TABLE_TYPE", "IS_TRANSIENT"),
    *_text("CLUSTERING_KEY"),
    ("ROW_COUNT", NUMBER),
    ("BYTES", NUMBER),
    ("RETENTION_TIME", NUMBER),
    *_text("SELF_REFERENCING_COLUMN_NAME", "REFERENCE_GENERATION", "USER_DEFINED_TYPE_CATALOG"),
    *_text("USER_DEFINED_TYPE_SCHEMA", "USER_DEFINED_TYPE_NAME", "IS_INSERTABLE_INTO", "IS_TYPED"),
    *_text("COMMIT_ACTION"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    ("LAST_DDL", TIMESTAMP_LTZ),
    *_text("LAST_DDL_BY", "AUTO_CLUSTERING_ON", "COMMENT", "IS_TEMPORARY", "IS_ICEBERG", "IS_DYNAMIC"),
    *_text("IS_IMMUTABLE", "IS_HYBRID"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/columns
COLUMNS: Columns = [
    *_text("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME"),
    ("ORDINAL_POSITION", NUMBER),
    *_text("COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE"),
    ("CHARACTER_MAXIMUM_LENGTH", NUMBER),
    ("CHARACTER_OCTET_LENGTH", NUMBER),
    ("NUMERIC_PRECISION", NUMBER),
    ("NUMERIC_PRECISION_RADIX", NUMBER),
    ("NUMERIC_SCALE", NUMBER),
    ("DATETIME_PRECISION", NUMBER),
    *_text("INTERVAL_TYPE"),
    ("INTERVAL_PRECISION", NUMBER),
    *_text("CHARACTER_SET_CATALOG", "CHARACTER_SET_SCHEMA", "CHARACTER_SET_NAME", "COLLATION_CATALOG"),
    *_text("COLLATION_SCHEMA", "COLLATION_NAME", "DOMAIN_CATALOG", "DOMAIN_SCHEMA", "DOMAIN_NAME"),
    *_text("UDT_CATALOG", "UDT_SCHEMA", "UDT_NAME", "SCOPE_CATALOG", "SCOPE_SCHEMA", "SCOPE_NAME"),
    ("MAXIMUM_CARDINALITY", NUMBER),
    *_text("DTD_IDENTIFIER", "IS_SELF_REFERENCING", "IS_IDENTITY", "IDENTITY_GENERATION"),
    *_text("IDENTITY_START", "IDENTITY_INCREMENT", "IDENTITY_MAXIMUM", "IDENTITY_MINIMUM"),
    *_text("IDENTITY_CYCLE", "IDENTITY_ORDERED", "SCHEMA_EVOLUTION_RECORD", "COMMENT", "DATA_TYPE_ALIAS"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/views
VIEWS: Columns = [
    *_text("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_OWNER", "VIEW_DEFINITION"),
    *_text("CHECK_OPTION", "IS_UPDATABLE", "INSERTABLE_INTO", "IS_SECURE"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    ("LAST_DDL", TIMESTAMP_LTZ),
    *_text("LAST_DDL_BY", "COMMENT"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/table_storage_metrics
TABLE_STORAGE_METRICS: Columns = [
    *_text("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME"),
    ("ID", NUMBER),
    ("CLONE_GROUP_ID", NUMBER),
    *_text("IS_TRANSIENT"),
    ("ACTIVE_BYTES", NUMBER),
    ("TIME_TRAVEL_BYTES", NUMBER),
    ("FAILSAFE_BYTES", NUMBER),
    ("RETAINED_FOR_CLONE_BYTES", NUMBER),
    *_text("DELETED"),
    ("TABLE_CREATED", TIMESTAMP_LTZ),
    ("TABLE_DROPPED", TIMESTAMP_LTZ),
    ("TABLE_ENTERED_FAILSAFE", TIMESTAMP_LTZ),
    ("CATALOG_CREATED", TIMESTAMP_LTZ),
    ("CATALOG_DROPPED", TIMESTAMP_LTZ),
    ("SCHEMA_CREATED", TIMESTAMP_LTZ),
    ("SCHEMA_DROPPED", TIMESTAMP_LTZ),
    *_text("COMMENT"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/table_constraints
TABLE_CONSTRAINTS: Columns = [
    *_text("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_CATALOG"),
    *_text("TABLE_SCHEMA", "TABLE_NAME", "CONSTRAINT_TYPE", "IS_DEFERRABLE", "INITIALLY_DEFERRED"),
    *_text("ENFORCED", "COMMENT"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("RELY"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/referential_constraints
REFERENTIAL_CONSTRAINTS: Columns = [
    *_text("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "UNIQUE_CONSTRAINT_CATALOG"),
    *_text("UNIQUE_CONSTRAINT_SCHEMA", "UNIQUE_CONSTRAINT_NAME", "MATCH_OPTION", "UPDATE_RULE"),
    *_text("DELETE_RULE", "COMMENT"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
]

# The return type's facts, as COLUMNS gives a column's.
_RETURN_TYPE: Columns = [
    *_text("ARGUMENT_SIGNATURE", "DATA_TYPE"),
    ("CHARACTER_MAXIMUM_LENGTH", NUMBER),
    ("CHARACTER_OCTET_LENGTH", NUMBER),
    ("NUMERIC_PRECISION", NUMBER),
    ("NUMERIC_PRECISION_RADIX", NUMBER),
    ("NUMERIC_SCALE", NUMBER),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/functions
FUNCTIONS: Columns = [
    *_text("FUNCTION_CATALOG", "FUNCTION_SCHEMA", "FUNCTION_NAME", "FUNCTION_OWNER"),
    *_RETURN_TYPE,
    *_text("FUNCTION_LANGUAGE", "FUNCTION_DEFINITION", "VOLATILITY", "IS_NULL_CALL", "IS_SECURE"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("COMMENT", "IS_EXTERNAL", "API_INTEGRATION", "CONTEXT_HEADERS"),
    ("MAX_BATCH_ROWS", NUMBER),
    *_text("COMPRESSION", "PACKAGES", "RUNTIME_VERSION", "INSTALLED_PACKAGES", "IS_MEMOIZABLE"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/procedures
PROCEDURES: Columns = [
    *_text("PROCEDURE_CATALOG", "PROCEDURE_SCHEMA", "PROCEDURE_NAME", "PROCEDURE_OWNER"),
    *_RETURN_TYPE,
    *_text("PROCEDURE_LANGUAGE", "PROCEDURE_DEFINITION"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("COMMENT"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/sequences
SEQUENCES: Columns = [
    *_text("SEQUENCE_CATALOG", "SEQUENCE_SCHEMA", "SEQUENCE_NAME", "SEQUENCE_OWNER", "DATA_TYPE"),
    ("NUMERIC_PRECISION", NUMBER),
    ("NUMERIC_PRECISION_RADIX", NUMBER),
    ("NUMERIC_SCALE", NUMBER),
    *_text("START_VALUE", "MINIMUM_VALUE", "MAXIMUM_VALUE", "NEXT_VALUE", "INCREMENT", "CYCLE_OPTION"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("ORDERED", "COMMENT"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/information_schema_catalog_name
INFORMATION_SCHEMA_CATALOG_NAME: Columns = _text("CATALOG_NAME")

# https://docs.snowflake.com/en/sql-reference/info-schema/enabled_roles
ENABLED_ROLES: Columns = _text("ROLE_NAME", "ROLE_OWNER")

# https://docs.snowflake.com/en/sql-reference/info-schema/applicable_roles
APPLICABLE_ROLES: Columns = _text("GRANTEE", "ROLE_NAME", "ROLE_OWNER", "IS_GRANTABLE")

# https://docs.snowflake.com/en/sql-reference/info-schema/table_privileges
TABLE_PRIVILEGES: Columns = [
    *_text("GRANTOR", "GRANTEE", "GRANTED_TO", "TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME"),
    *_text("PRIVILEGE_TYPE", "IS_GRANTABLE", "WITH_HIERARCHY"),
    ("CREATED", TIMESTAMP_LTZ),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/stages
STAGES: Columns = [
    *_text("STAGE_CATALOG", "STAGE_SCHEMA", "STAGE_NAME", "STAGE_URL", "STAGE_REGION", "STAGE_TYPE"),
    *_text("STAGE_OWNER", "COMMENT"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/file_formats
FILE_FORMATS: Columns = [
    *_text("FILE_FORMAT_CATALOG", "FILE_FORMAT_SCHEMA", "FILE_FORMAT_NAME", "FILE_FORMAT_OWNER"),
    *_text("FILE_FORMAT_TYPE", "RECORD_DELIMITER", "FIELD_DELIMITER"),
    ("SKIP_HEADER", NUMBER),
    *_text("DATE_FORMAT", "TIME_FORMAT", "TIMESTAMP_FORMAT", "BINARY_FORMAT", "ESCAPE"),
    *_text("ESCAPE_UNENCLOSED_FIELD", "TRIM_SPACE", "FIELD_OPTIONALLY_ENCLOSED_BY", "NULL_IF", "COMPRESSION"),
    *_text("ERROR_ON_COLUMN_COUNT_MISMATCH"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("COMMENT"),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/object_privileges
OBJECT_PRIVILEGES: Columns = [
    *_text("GRANTOR", "GRANTEE", "GRANTED_TO", "OBJECT_CATALOG", "OBJECT_SCHEMA", "OBJECT_NAME"),
    *_text("OBJECT_TYPE", "PRIVILEGE_TYPE", "IS_GRANTABLE"),
    ("CREATED", TIMESTAMP_LTZ),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/usage_privileges (privileges on sequences)
USAGE_PRIVILEGES = OBJECT_PRIVILEGES

# https://docs.snowflake.com/en/sql-reference/info-schema/load_history
LOAD_HISTORY: Columns = [
    *_text("SCHEMA_NAME", "FILE_NAME", "TABLE_NAME"),
    ("LAST_LOAD_TIME", TIMESTAMP_LTZ),
    *_text("STATUS"),
    ("ROW_COUNT", NUMBER),
    ("ROW_PARSED", NUMBER),
    *_text("FIRST_ERROR_MESSAGE"),
    ("FIRST_ERROR_LINE_NUMBER", NUMBER),
    ("FIRST_ERROR_CHARACTER_POSITION", NUMBER),
    *_text("FIRST_ERROR_COL_NAME"),
    ("ERROR_COUNT", NUMBER),
    ("ERROR_LIMIT", NUMBER),
]

# https://docs.snowflake.com/en/sql-reference/info-schema/pipes (this server has no pipes)
PIPES: Columns = [
    *_text("PIPE_CATALOG", "PIPE_SCHEMA", "PIPE_NAME", "PIPE_OWNER", "DEFINITION", "IS_AUTOINGEST_ENABLED"),
    *_text("NOTIFICATION_CHANNEL_NAME"),
    ("CREATED", TIMESTAMP_LTZ),
    ("LAST_ALTERED", TIMESTAMP_LTZ),
    *_text("COMMENT", "PATTERN"),
]

LAYOUTS: dict[str, Columns] = {
    "DATABASES": DATABASES,
    "SCHEMATA": SCHEMATA,
    "TABLES": TABLES,
    "COLUMNS": COLUMNS,
    "VIEWS": VIEWS,
    "TABLE_STORAGE_METRICS": TABLE_STORAGE_METRICS,
    "TABLE_CONSTRAINTS": TABLE_CONSTRAINTS,
    "REFERENTIAL_CONSTRAINTS": REFERENTIAL_CONSTRAINTS,
    "FUNCTIONS": FUNCTIONS,
    "PROCEDURES": PROCEDURES,
    "SEQUENCES": SEQUENCES,
    "INFORMATION_SCHEMA_CATALOG_NAME": INFORMATION_SCHEMA_CATALOG_NAME,
    "ENABLED_ROLES": ENABLED_ROLES,
    "APPLICABLE_ROLES": APPLICABLE_ROLES,
    "TABLE_PRIVILEGES": TABLE_PRIVILEGES,
    "STAGES": STAGES,
    "FILE_FORMATS": FILE_FORMATS,
    "OBJECT_PRIVILEGES": OBJECT_PRIVILEGES,
    "USAGE_PRIVILEGES": USAGE_PRIVILEGES,
    "LOAD_HISTORY": LOAD_HISTORY,
    "PIPES": PIPES,
}
