"""Benchmarks run by `embucket-py bench ...`: they print numbers and assert nothing.

Needs the `bench` extra (`pip install -e '.[dev,bench]'`): tpchgen-cli for the data, DuckDB with
its tpch (reference answers) and iceberg extensions for the comparison.
"""
