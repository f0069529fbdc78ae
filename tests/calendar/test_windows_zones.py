"""src/windows_zones.inc is CLDR's table as Debian ships it (scripts/windows-zones.py), and the
binary maps through it: a TZID of Outlook's Windows names without a VTIMEZONE."""
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_table_is_debians_cldr():
    p = subprocess.run([sys.executable, str(REPO / "scripts" / "windows-zones.py"), "--check"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
