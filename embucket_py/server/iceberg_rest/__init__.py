"""Iceberg REST catalog (mounted at /iceberg): one REST warehouse per Snowflake database, over
the same metastore as the SQL side. routes.py dispatches; handlers.py, commits.py and views.py
implement the operations; auth.py issues and checks bearer tokens."""
