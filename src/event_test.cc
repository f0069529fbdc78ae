#include "event.h"

#include <doctest/doctest.h>

using namespace windowctl;

TEST_CASE("an Event points at the object and carries the reason") {
  auto obj = R"({"metadata":{"name":"apps-rw","namespace":"flux-system","uid":"u-1","resourceVersion":"9"}})"_json;
  SysTime now = std::chrono::sys_days(std::chrono::year{2026} / 11 / 22) + std::chrono::hours(8);
  auto e = make_event(*find_kind("ks"), "v1", obj, {"WindowClosed", "Normal", "Suspended by windowctl: window closed: INC-1", "job-1"}, now);
  CHECK(e["metadata"]["namespace"] == "flux-system");
  CHECK(e["metadata"]["name"].get<std::string>().rfind("apps-rw.", 0) == 0);
  CHECK(e["involvedObject"]["apiVersion"] == "kustomize.toolkit.fluxcd.io/v1");
  CHECK(e["involvedObject"]["kind"] == "Kustomization");
  CHECK(e["involvedObject"]["uid"] == "u-1");
  CHECK(e["reason"] == "WindowClosed");
  CHECK(e["message"] == "Suspended by windowctl: window closed: INC-1");
  CHECK(e["firstTimestamp"] == "2026-11-22T08:00:00Z");
  CHECK(e["source"]["component"] == "windowctl");
  CHECK(e["reportingInstance"] == "job-1");
  auto held = make_event(*find_kind("hr"), "v2", obj, {"WindowOpenHeld", "Warning", std::string(2000, 'x'), "h"}, now);
  CHECK(held["type"] == "Warning");
  CHECK(held["message"].get<std::string>().size() == 1024);
  CHECK(held["involvedObject"]["apiVersion"] == "helm.toolkit.fluxcd.io/v2");
}
