"""Fixtures for pytest; the helpers live in deploy_util.py (a unique module name: a plain
`from conftest import` breaks when several test directories run in one pytest session)."""
from deploy_util import *  # noqa: F401,F403
