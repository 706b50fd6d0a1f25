"""Data layout of clustered tables: a k-d cube tree over the clustering columns.

A table with a clustering key (CLUSTER BY) keeps a tree of median splits over the key's columns,
cycling through them level by level. Its leaves are compact boxes of that space holding about the
same number of rows; every data file is one subtree (a box) and every Parquet row group one leaf,
so Iceberg's per-file bounds and Parquet's per-row-group statistics prune range and equality
filters on any subset of the key's columns. New rows are routed down the same tree, so appends
land in the boxes they belong to, and RECLUSTER only compacts the small files appends leave behind
(or rebuilds the tree once the table has outgrown it).
"""
