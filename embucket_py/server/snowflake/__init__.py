"""The Snowflake v1 REST protocol as snowflake-connector-python 4.x and 5.x speak it."""
