"""HTTP: the Snowflake v1 REST API. Nothing outside server/ imports it."""
