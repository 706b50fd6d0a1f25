"""embucket_py: a Snowflake-compatible lakehouse server in one Python process.

The path of one statement, one room per hop (imports only go downwards):

    server/     HTTP: the Snowflake v1 REST API (login, queries, results, chunks)
    sessions/   who asks, in what context: Session and the token -> session store
    engine/     statement dispatch and execution on DataFusion
    sql/        Snowflake SQL -> statements and DataFusion SQL (pure, no I/O)
    catalog/    the metastore, Iceberg tables, storage
    types.py    Snowflake <-> Arrow <-> Iceberg types, in one place
    errors.py   Snowflake errors (code, SQLSTATE, message), in one place
"""

__version__ = "0.1.0"
