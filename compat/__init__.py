"""Snowflake compatibility suites: a SQL logic test runner over the real connector."""
