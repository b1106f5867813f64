"""Shared fixtures: the repository, the `wsec` command line (the Rust results the bindings
are checked against) and the repository's real captures (testdata/captures). A missing
tool or file fails the test that needs it; nothing is skipped."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def wsec_bin() -> str:
    """The `wsec` binary of this checkout (scripts/test builds it before pytest runs)."""
    p = os.environ.get("WSEC_BIN") or str(ROOT / "target" / "release" / "wsec")
    if not os.access(p, os.X_OK):
        pytest.fail(f"the wsec command line is not built at {p} (cargo build --release -p wsec-cli)")
    return p


@pytest.fixture(scope="session")
def captures() -> pathlib.Path:
    d = ROOT / "testdata" / "captures"
    if not d.is_dir():
        pytest.fail(f"{d} is missing")
    return d


@pytest.fixture(scope="session")
def tshark() -> str:
    t = shutil.which("tshark")
    if t is None:
        pytest.fail("tshark is not installed (scripts/setup installs it)")
    return t


def run_cli(wsec_bin, *args, stdin=None):
    """`wsec ARGS`: (exit code, stdout, stderr)."""
    p = subprocess.run([wsec_bin, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout.strip(), p.stderr.strip()
