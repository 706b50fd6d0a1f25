"""One timed fetch from a fresh client process: `python -m embucket_py.bench.fetch_client`.

The benchmark's own process has run DuckDB and raw DataFusion over the whole dataset before it
measures the fetch, and its memory state slows the connector's download and conversion; a client
application has none of that. This runs the connector alone: connect, then time `execute` plus
`fetch_arrow_all` of one statement, and print the seconds, rows and Arrow bytes as JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import snowflake.connector


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("--port", "--user", "--password", "--schema", "--sql"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    with snowflake.connector.connect(
        user=args.user,
        password=args.password,
        account="embucket",
        host="127.0.0.1",
        port=int(args.port),
        protocol="http",
        session_parameters={"USE_CACHED_RESULT": False},
    ) as conn:
        cur = conn.cursor()
        cur.execute(f"USE SCHEMA {args.schema}")
        start = time.perf_counter()
        cur.execute(args.sql)
        table = cur.fetch_arrow_all()
        seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "rows": table.num_rows, "nbytes": table.nbytes}))


if __name__ == "__main__":
    main()
