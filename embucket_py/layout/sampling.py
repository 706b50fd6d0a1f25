"""SAMPLE SYSTEM (p): which row groups (blocks) of a Parquet file to read.

Files of clustered tables record each row group's sample band (see writer.py): the first bands
together are a uniform random SAMPLE_BAND share of the table, so a sample up to that size is drawn
from them (each kept with probability p / SAMPLE_BAND), a larger one adds the other row groups
with the remaining probability. Other files keep each row group with probability p.
"""

from __future__ import annotations

import random

import pyarrow.parquet as pq

from embucket_py.layout.writer import BANDS_KEY, SAMPLE_BAND


def chosen_row_groups(metadata: pq.FileMetaData, percent: float, rng: random.Random) -> list[int]:
    p = percent / 100
    bands = (metadata.metadata or {}).get(BANDS_KEY.encode())
    if bands is None or len(bands) != metadata.num_row_groups:
        return [i for i in range(metadata.num_row_groups) if rng.random() < p]
    keep = (min(1.0, p / SAMPLE_BAND), max(0.0, (p - SAMPLE_BAND) / (1 - SAMPLE_BAND)))
    return [i for i, band in enumerate(bands.decode()) if rng.random() < keep[int(band)]]
