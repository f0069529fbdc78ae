"""Fixtures for pytest; the helpers live in e2e_util.py (a unique module name: a plain
`from conftest import` breaks when several test directories run in one pytest session)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import hermetic_env  # noqa: E402,F401  (first: the caller's cluster leaves the environment before any test)
from e2e_util import *  # noqa: F401,F403
