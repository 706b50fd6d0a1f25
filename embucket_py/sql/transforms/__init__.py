"""Snowflake -> DataFusion rewrites, one module per Snowflake construct.

Each transform takes a tree and returns a tree (unchanged where it does not apply). `translate.py`
applies them in order; the order matters where noted there.
"""
