"""Runs SQL logic test files against a running server through the real Snowflake connector.

    python -m compat.slt_runner --host localhost --port 3000 [--timeout 30] [--json OUT] [PATH ...]

Each file runs on one connection in a fresh database (dropped afterwards), inside a worker
process (compat/slt_worker.py): a statement that outlives --timeout is abandoned and the file goes
on; a worker that crashes or stops answering is replaced, and the rest of that file counts as
failed. Prints passed/counted records per file, per folder and overall.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from compat.slt import SltSyntaxError, parse
from compat.slt_worker import GRACE_SECONDS, RecordResult, ServerConfig, worker_main

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SUITE = REPO_ROOT.parent / "shared" / "compat" / "slt"


@dataclass
class FileResult:
    path: str  # relative to the folder given on the command line
    records: list[RecordResult] = field(default_factory=list)
    error: str | None = None  # the file could not be parsed, or the server not reached
    abandoned: int = 0  # statements left running after the timeout

    @property
    def counted(self) -> int:
        return sum(r.counted for r in self.records)

    @property
    def passed(self) -> int:
        return sum(r.counted and r.passed for r in self.records)


class Worker:
    """One worker process; results are read on a thread so that every wait has a deadline."""

    def __init__(self, config: ServerConfig, command: list[str] | None = None) -> None:
        self.config = config
        args = command or [sys.executable, "-m", "compat.slt_runner", "--worker", *_connection_args(config)]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
        }
        self.process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO_ROOT
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    @property
    def deadline(self) -> float:
        # A hung statement, then a reconnect and a USE, each within the worker's own watchdog.
        return 3 * (self.config.timeout + GRACE_SECONDS)

    def request(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        # A worker that already died shows up in next() as a crash.
        with contextlib.suppress(OSError):
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()

    def next(self) -> dict[str, Any] | str:
        """The worker's next message, or why there is none ("crashed ..." / "stopped answering")."""
        try:
            line = self.lines.get(timeout=self.deadline)
        except queue.Empty:
            self.kill()
            return f"the worker stopped answering for {self.deadline:g} s and was killed"
        if line is None:
            code = self.process.wait()
            return f"the client process crashed (exit code {code}) running this record"
        message = json.loads(line)
        assert isinstance(message, dict)
        return message

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            with contextlib.suppress(OSError):
                self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _connection_args(config: ServerConfig) -> list[str]:
    return [
        f"--host={config.host}",
        f"--port={config.port}",
        f"--user={config.user}",
        f"--password={config.password}",
        f"--account={config.account}",
        f"--protocol={config.protocol}",
        f"--timeout={config.timeout}",
    ]


class Runner:
    """Runs files one after another on a worker, replacing the worker whenever it dies."""

    def __init__(self, config: ServerConfig, worker_command: list[str] | None = None) -> None:
        self.config = config
        self.worker_command = worker_command  # tests replace the worker program
        self.worker: Worker | None = None

    def _worker(self) -> Worker:
        if self.worker is None:
            self.worker = Worker(self.config, self.worker_command)
        return self.worker

    def run_file(self, path: Path, shown: str) -> FileResult:
        result = FileResult(shown)
        try:
            records = parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SltSyntaxError) as e:
            result.error = f"cannot read: {e}"
            return result
        database = f"SLT_{uuid.uuid4().hex[:12].upper()}"
        worker = self._worker()
        worker.request({"run": str(path.resolve()), "database": database})
        while True:
            message = worker.next()
            if isinstance(message, str):
                # The worker is gone: this record failed, the rest of the file never ran.
                self.worker = None
                done = len(result.records)
                for i, r in enumerate(records[done:]):
                    why = message if i == 0 else "not run: the worker died earlier in this file"
                    result.records.append(RecordResult(r.line, r.kind, r.counted, False, r.sql, why))
                self._drop(database)
                return result
            if "record" in message:
                result.records.append(RecordResult(**message["record"]))
                continue
            status = message["done"]
            result.error = status.get("error")
            result.abandoned = status.get("abandoned", 0)
            if result.error:
                # Nothing ran: every record of the file counts as failed.
                result.records = [
                    RecordResult(r.line, r.kind, r.counted, False, r.sql, result.error) for r in records
                ]
            return result

    def _drop(self, database: str) -> None:
        worker = self._worker()
        worker.request({"drop": database})
        if isinstance(worker.next(), str):
            self.worker = None

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


# --- discovery and reporting --------------------------------------------------------------------


def discover(paths: Iterable[Path]) -> list[tuple[Path, str]]:
    """The .slt files to run, each with its name relative to the folder it was found under."""
    found: list[tuple[Path, str]] = []
    for root in paths:
        if root.is_dir():
            found.extend((p, p.relative_to(root).as_posix()) for p in sorted(root.rglob("*.slt")))
        elif root.is_file():
            found.append((root, root.name))
        else:
            raise FileNotFoundError(f"no such file or folder: {root}")
    return found


def folder_totals(results: list[FileResult]) -> dict[str, tuple[int, int]]:
    """passed/counted per folder, every ancestor folder of each file included."""
    totals: dict[str, list[int]] = {}
    for r in results:
        parts = r.path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            entry = totals.setdefault("/".join(parts[:depth]), [0, 0])
            entry[0] += r.passed
            entry[1] += r.counted
    return {k: (v[0], v[1]) for k, v in sorted(totals.items())}


def rate(passed: int, counted: int) -> str:
    pct = 100.0 * passed / counted if counted else 0.0
    return f"{passed:5d}/{counted:<5d} {pct:5.1f}%"


def summary(results: list[FileResult]) -> dict[str, Any]:
    return {
        "overall": {
            "passed": sum(r.passed for r in results),
            "counted": sum(r.counted for r in results),
            "files": len(results),
        },
        "folders": {k: {"passed": p, "counted": c} for k, (p, c) in folder_totals(results).items()},
        "files": {r.path: asdict(r) | {"passed": r.passed, "counted": r.counted} for r in results},
    }


def print_report(results: list[FileResult], out: IO[str]) -> None:
    folders = folder_totals(results)
    if folders:
        print("\nPer folder:", file=out)
    for folder, (passed, counted) in folders.items():
        print(f"  {rate(passed, counted)}  {folder}/", file=out)
    passed = sum(r.passed for r in results)
    counted = sum(r.counted for r in results)
    print(f"\nOverall: {rate(passed, counted)}  ({len(results)} files)", file=out)


def run_paths(
    paths: list[Path], config: ServerConfig, verbose: bool = False, out: IO[str] | None = None
) -> list[FileResult]:
    """Runs every .slt file under `paths`, printing one line per file as it finishes."""
    out = out or sys.stdout
    runner = Runner(config)
    results = []
    try:
        for path, shown in discover(paths):
            result = runner.run_file(path, shown)
            results.append(result)
            note = f"  [{result.error}]" if result.error else ""
            print(f"  {rate(result.passed, result.counted)}  {shown}{note}", file=out, flush=True)
            if verbose:
                for r in result.records:
                    if not r.passed:
                        setup = "" if r.counted else " (setup)"
                        print(f"      line {r.line}{setup}: {r.message}", file=out)
    finally:
        runner.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compat.slt_runner", description=__doc__.split("\n")[0])
    parser.add_argument(
        "paths", nargs="*", type=Path, help=f".slt files or folders (default {DEFAULT_SUITE})"
    )
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument("--user", default="embucket")
    parser.add_argument("--password", default="embucket")
    parser.add_argument("--account", default="embucket")
    parser.add_argument("--protocol", default="http")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per statement (default 30)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every result to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print why each record failed")
    parser.add_argument(
        "--floors",
        type=Path,
        metavar="FILE",
        help="JSON {suite folder: minimum pass %%}: run those suites, exit 1 if one falls below",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    config = ServerConfig(
        args.host, args.port, args.user, args.password, args.account, args.protocol, args.timeout
    )
    if args.worker:
        worker_main(config)
    if args.floors:
        return check_floors(args.floors, config, verbose=args.verbose, json_out=args.json)
    results = run_paths(args.paths or [DEFAULT_SUITE], config, verbose=args.verbose)
    print_report(results, sys.stdout)
    if args.json:
        args.json.write_text(json.dumps(summary(results), indent=1))
    # Pass rates are a report, not a verdict: known gaps must not fail the command.
    return 0


def load_floors(path: Path) -> dict[Path, float]:
    """Suite folders (relative to the floors file's repository) -> minimum pass percentage."""
    floors = json.loads(path.read_text())
    return {(REPO_ROOT / folder).resolve(): float(pct) for folder, pct in floors.items()}


def check_floors(
    path: Path, config: ServerConfig, verbose: bool = False, json_out: Path | None = None
) -> int:
    """Runs each suite named in the floors file; 1 if any pass rate fell below its floor."""
    failed = []
    reports = {}
    for suite, floor in load_floors(path).items():
        print(f"\n== {suite} (floor {floor:.1f}%)", flush=True)
        results = run_paths([suite], config, verbose=verbose)
        print_report(results, sys.stdout)
        reports[str(suite)] = summary(results)
        passed = sum(r.passed for r in results)
        counted = sum(r.counted for r in results)
        pct = 100.0 * passed / counted if counted else 0.0
        if pct < floor:
            failed.append(f"{suite}: {pct:.1f}% is below the floor of {floor:.1f}%")
    if json_out:
        json_out.write_text(json.dumps(reports, indent=1))
    for line in failed:
        print(f"FLOOR BROKEN  {line}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
