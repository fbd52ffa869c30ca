"""A real PostgreSQL server for the classroom tests, in a temporary folder: `initdb`, `pg_ctl
start` on a unix socket only (no TCP port to collide with), `pg_ctl stop`, folder removed.

Debian's `postgresql` package (scripts/test.sh installs it) puts the binaries in
/usr/lib/postgresql/<version>/bin; PATH is searched first. PostgreSQL refuses to run as root, so
as root (CI, this machine) the server runs as the `postgres` user through `runuser`, in a folder
under /tmp that user owns (pytest's tmp_path is private to root). About 0.6 s to start.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

USER = "attnviz"  # the database superuser initdb creates (trust auth on the private socket)


def postgres_marks() -> list:
    """The marks of a test on a real PostgreSQL server: slow, one xdist group, skipped with a
    reason where PostgreSQL is not installed."""
    import pytest

    return [
        pytest.mark.slow,
        pytest.mark.xdist_group("postgres"),
        pytest.mark.skipif(
            postgres_bin() is None,
            reason="PostgreSQL is not installed (scripts/test.sh installs postgresql)",
        ),
    ]


def postgres_bin() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version, reverse=True)
    return Path(versions[0]).parent if versions else None


def _version(path: str) -> int:
    part = Path(path).parts[-3]
    return int(part) if part.isdigit() else 0


@dataclass
class PostgresServer:
    """A running server: its folder, socket folder and SQLAlchemy URL."""

    bin_dir: Path
    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{USER}@/postgres?host={self.root}"

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            log = self.root / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed:\n{done.stdout}{done.stderr}{tail}")

    def init(self) -> None:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            USER,
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        )

    def start(self) -> None:
        options = f"-k {self.root} -c listen_addresses='' -F -c max_connections=40"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "log"),
            "-w",
            "-o",
            options,
            "start",
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A fresh server for the block; stopped and removed afterwards."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (scripts/test.sh installs postgresql)")
    root = Path(tempfile.mkdtemp(prefix="attnviz-pg-"))  # short: a socket path has ≤ 107 bytes
    if os.geteuid() == 0:
        shutil.chown(root, user="postgres")
    server = PostgresServer(bin_dir, root)
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        shutil.rmtree(root, ignore_errors=True)
