"""status answers why: who suspended a target and since when, the reason, the override and its
expiry, the window's next edges, all in UTC, and a marker where the target is not what its window
(or override) says; an empty namespace is said on stderr, as kubectl says it."""
import re

from e2e_util import FLUX_CLI, KS, backdate_mark, json_out, lines, patch_as

ALWAYS = "* * * * * for 1h"
NEVER = "0 0 30 2 * for 1h"
REASON = "suspend.toolkit.fluxcd.io/reason"
UTC = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def columns(p):
    """The table as {name: {column: cell}}: cells are separated by 3 or more spaces, as printed."""
    rows = lines(p.stdout)
    head = rows[0]
    starts = [0] + [m.end() for m in re.finditer(r" {3,}", head)]
    names = [head[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
    out = {}
    for row in rows[1:]:
        cells = [row[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
        out[cells[1]] = dict(zip(names, cells))
    return out


def expire_override(api, name):
    obj = api.get(KS, "flux-system", name)
    obj["metadata"]["annotations"]["windowctl.io/override-until"] = "2026-01-05T08:00:00Z"
    api.put(KS, "flux-system", name, obj)


def incident(wctl, api):
    """windowctl closed apps-rw, then someone ran `flux suspend --reason` over it."""
    assert wctl.run("close", "--kustomizations", "apps-rw", "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    patch_as(api, "apps-rw", {"metadata": {"annotations": {REASON: "INC-999 do not resume"}}}, FLUX_CLI)


def test_status_table_says_who_why_and_since_when(wctl, api):
    incident(wctl, api)
    assert wctl.run("close", "--kustomizations", "apps-rt", "--reason", "freeze").returncode == 0
    p = wctl.run("status")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout)[0].split() == ["NAMESPACE", "NAME", "SUSPENDED", "BY", "SINCE", "REASON", "READY",
                                          "REVISION", "MESSAGE"]
    t = columns(p)
    rw, rt, infra = t["apps-rw"], t["apps-rt"], t["infra"]
    assert rw["BY"] == "someone else (flux, after windowctl)"
    assert re.fullmatch(UTC + r" \((\d+s ago|now)\)", rw["SINCE"]), rw["SINCE"]  # flux's write, just now
    assert rw["REASON"] == '"INC-999 do not resume"'
    assert rt["BY"] == "windowctl" and rt["REASON"] == '"freeze"'
    assert re.fullmatch(UTC + r" \((\d+s ago|now)\)", rt["SINCE"]), rt["SINCE"]
    assert (infra["BY"], infra["SINCE"], infra["REASON"]) == ("-", "-", "-")
    # --fail-on-held names who and why.
    p = wctl.run("status", "--fail-on-held")
    assert p.returncode == 1
    assert "flux-system/apps-rw: held: suspended by someone else (flux changed the suspend reason after windowctl" \
           " suspended it)" in p.stderr


def test_status_says_an_override_expired(wctl, api):
    assert wctl.run("close", "--kustomizations", "apps-rt", "--for", "1h").returncode == 0
    assert wctl.run("open", "--kustomizations", "apps-rw", "--for", "2h").returncode == 0
    expire_override(api, "apps-rt")
    t = columns(wctl.run("status"))
    assert re.fullmatch(r"closed until 2026-01-05T08:00:00Z \(expired \d+d( \d+h)? ago\) by .+",
                        t["apps-rt"]["OVERRIDE"]), t["apps-rt"]["OVERRIDE"]
    assert re.fullmatch(r"open until " + UTC + r" \(in (2h|1h 59m)\) by .+", t["apps-rw"]["OVERRIDE"]), \
        t["apps-rw"]["OVERRIDE"]


def test_status_times_are_utc_with_the_windows_next_edges(wctl, api):
    # Open now, closing at the next New Year's minute on the Zurich clock: both edges are known.
    p = wctl.run("status", "--window", "* * * * * for 1h in Europe/Zurich",
                 "--deny", "0 0 1 1 * for 1m in Europe/Zurich")
    assert p.returncode == 0, p.stderr
    rw = columns(p)["apps-rw"]
    assert re.fullmatch(r"\d{4}-12-31T23:00:00Z \(in .+\)", rw["NEXT CLOSE"]), rw["NEXT CLOSE"]
    assert re.fullmatch(r"\d{4}-12-31T23:01:00Z \(in .+\)", rw["NEXT OPEN"]), rw["NEXT OPEN"]
    # One zone in the whole table.
    assert not re.search(r"T\d\d:\d\d:\d\d[+-]\d\d:\d\d", p.stdout), p.stdout


def test_status_marks_a_target_that_is_not_what_its_window_says(wctl, api):
    incident(wctl, api)
    assert wctl.run("close", "--kustomizations", "apps-rt", "--for", "1h").returncode == 0
    expire_override(api, "apps-rt")
    assert wctl.run("close", "--kustomizations", "infra", "--for", "1h").returncode == 0
    t = columns(wctl.run("status", "--window", ALWAYS))
    assert t["apps-rw"]["WINDOW"] == "open, but suspended"  # held: open leaves it suspended
    assert t["apps-rt"]["WINDOW"] == "open, but suspended"  # an expired override decides nothing
    # An unexpired override decides, as sync would: infra is meant to be closed.
    assert t["infra"]["WINDOW"] == "open" and ", but" not in t["infra"]["OVERRIDE"]
    t = columns(wctl.run("status", "--window", NEVER))
    assert t["apps-rw"]["WINDOW"] == "closed"
    assert wctl.run("open", "--kustomizations", "apps-rt").returncode == 0
    assert columns(wctl.run("status", "--window", NEVER))["apps-rt"]["WINDOW"] == "closed, but running"
    # Without a window, the marker goes to the override that decides.
    assert wctl.run("open", "--kustomizations", "apps-rt", "--for", "1h").returncode == 0
    patch_as(api, "apps-rt", {"spec": {"suspend": True}}, FLUX_CLI)
    assert columns(wctl.run("status"))["apps-rt"]["OVERRIDE"].endswith(", but suspended")


def test_status_json_carries_the_same_facts(wctl, api):
    assert wctl.run("close", "--kustomizations", "apps-rw", "--reason", "weekly").returncode == 0
    backdate_mark(api, "apps-rw")
    patch_as(api, "apps-rw", {"metadata": {"annotations": {REASON: "INC-999 do not resume"}}}, FLUX_CLI)
    assert wctl.run("close", "--kustomizations", "apps-rt", "--for", "1h").returncode == 0
    expire_override(api, "apps-rt")
    r = {x["name"]: x for x in json_out(wctl.run("status", "--window", ALWAYS, "-o", "json"))["results"]}
    rw = r["apps-rw"]
    assert rw["suspendedBy"] == "someone else" and rw["reason"] == "INC-999 do not resume"
    assert re.fullmatch(UTC, rw["since"])
    assert rw["held"] == {"by": "flux", "afterWindowctl": True, "message": (
        "suspended by someone else (flux changed the suspend reason after windowctl suspended it)")}
    assert (rw["desired"], rw["drift"]) == ("open", True)
    assert r["apps-rt"]["override"]["expired"] is True and r["apps-rt"]["held"] is None
    assert (r["infra"]["desired"], r["infra"]["drift"], r["infra"]["held"]) == ("open", False, None)
    plain = json_out(wctl.run("status", "--kustomizations", "infra", "-o", "json"))["results"][0]
    assert (plain["desired"], plain["drift"]) == (None, None)


def test_status_of_an_empty_namespace_says_so_as_kubectl_does(wctl, api):
    p = wctl.run("status", "-n", "flux-sytem")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "No resources found in flux-sytem namespace.\n")
    p = wctl.run("status", "-n", "flux-sytem", "-l", "window=rw")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "No resources found in flux-sytem namespace.\n")
    # JSON says it in its document, as kubectl -o json says nothing else.
    p = wctl.run("status", "-n", "flux-sytem", "-o", "json")
    assert p.returncode == 0 and json_out(p)["results"] == [] and p.stderr == ""
    # JSON logs: one object a line still.
    p = wctl.run("status", "-n", "flux-sytem", "--log-format", "json")
    assert p.returncode == 0 and '"msg":"No resources found in flux-sytem namespace."' in p.stderr
    for name in ("apps-rw", "apps-rt", "infra"):
        api.delete(KS, "flux-system", name)
    p = wctl.run("status", "-A")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "No resources found\n")
    # Not when there are rows, nor when the list failed (that is an error, said as one).
    assert "No resources" not in wctl.run("status", "-n", "flux-system", "--kind", "hr").stderr
