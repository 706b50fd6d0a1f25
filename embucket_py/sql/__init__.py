"""Snowflake SQL text -> statements and DataFusion SQL. Pure: no I/O, no engine, no session."""
