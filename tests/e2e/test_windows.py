"""Windows as code: time-boxed overrides now; schedule and sync build on them."""
import datetime as dt
import json

from e2e_util import SA_USER, json_out, lines

TARGETS = ["--kustomizations", "apps-rw"]


def ann(wctl, name="apps-rw"):
    return wctl.obj(name)["metadata"].get("annotations", {})


def test_open_for_records_an_override(wctl, api):
    wctl.run("close", *TARGETS)
    before = dt.datetime.now(dt.timezone.utc)
    p = wctl.run("open", *TARGETS, "--for", "2h", "--reason", "INC-123")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("flux-system/apps-rw opened, open until ")
    a = ann(wctl)
    assert a["windowctl.io/override"] == "open"
    until = dt.datetime.fromisoformat(a["windowctl.io/override-until"].replace("Z", "+00:00"))
    assert dt.timedelta(hours=2) - dt.timedelta(seconds=5) <= until - before <= dt.timedelta(hours=2, seconds=5)
    assert a["windowctl.io/override-reason"] == "INC-123"
    assert a["windowctl.io/override-by"] == SA_USER  # from the ServiceAccount token, or the token's user
    row = json_out(wctl.run("status", *TARGETS, "-o", "json"))["items"][0]
    assert row["override"]["state"] == "open" and row["override"]["reason"] == "INC-123"
    table = wctl.run("status", *TARGETS).stdout
    assert "OVERRIDE" in lines(table)[0] and "open until" in table


def test_close_for_then_plain_open_clears_the_override(wctl, api):
    p = wctl.run("close", *TARGETS, "--for", "12h")
    assert p.returncode == 0, p.stderr
    assert wctl.suspended("apps-rw")
    assert ann(wctl)["windowctl.io/override"] == "closed"
    p = wctl.run("open", *TARGETS)
    assert p.stdout == "flux-system/apps-rw opened, override cleared\n"
    assert not any(k.startswith("windowctl.io/") for k in ann(wctl))


def test_bad_for(wctl, api):
    for bad in ("soon", "0"):
        p = wctl.run("open", *TARGETS, "--for", bad)
        assert p.returncode == 2 and "--for" in p.stderr
    assert api.writes == 0
