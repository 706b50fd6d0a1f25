"""Metadata and storage: the metastore, Iceberg tables and their files. Imports no other room."""
