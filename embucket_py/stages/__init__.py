"""Stages and data loading: stage metadata, stage file io, file formats, COPY load and unload.

https://docs.snowflake.com/en/user-guide/data-load-overview
"""
