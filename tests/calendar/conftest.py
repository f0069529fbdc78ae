"""The calendar tests run with no cluster of the caller's in the environment."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import hermetic_env  # noqa: E402,F401  (first: the caller's cluster leaves the environment before any test)
