"""Every test under tests/ runs with no cluster of the caller's in the environment (hermetic_env.py);
each directory's conftest.py imports it too, for runs of one directory or file."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hermetic_env  # noqa: E402,F401  (first: the caller's cluster leaves the environment before any test)
