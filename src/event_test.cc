#include "event.h"

#include <doctest/doctest.h>

using namespace windowctl;

TEST_CASE("an Event points at the object and carries the reason") {
  auto obj = R"({"metadata":{"name":"apps-rw","namespace":"flux-system","uid":"u-1","resourceVersion":"9"}})"_json;
  SysTime now = std::chrono::sys_days(std::chrono::year{2026} / 11 / 22) + std::chrono::hours(8);
  auto e = make_event(*find_kind("ks"), "v1", obj,
                      {"WindowClosed", "Normal", "Suspended by windowctl: window closed: INC-1", "job-1"}, now);
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

TEST_CASE("an Event always serialises: a long message is cut between characters, stray bytes replaced") {
  auto obj = R"({"metadata":{"name":"apps-rw","namespace":"flux-system"}})"_json;
  SysTime now{};
  // 1,021 bytes would end inside a "ü" (two bytes each, after a 1-byte prefix): dump() threw.
  std::string umlauts = "xy";
  for (int i = 0; i < 600; ++i) umlauts += "\xC3\xBC";
  auto cut = make_event(*find_kind("ks"), "v1", obj, {"WindowClosed", "Normal", umlauts, "h"}, now);
  CHECK_NOTHROW((void)cut.dump());
  std::string message = cut["message"].get<std::string>();
  CHECK(message.size() <= 1024);
  CHECK(message.ends_with("\xC3\xBC..."));
  auto stray = make_event(*find_kind("ks"), "v1", obj, {"WindowClosed", "Normal", "reason \xFF\xFE", "pod\xC3"}, now);
  CHECK_NOTHROW((void)stray.dump());
  CHECK(stray["message"] == "reason \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(stray["reportingInstance"] == "pod\xEF\xBF\xBD");
  auto long_instance =
      make_event(*find_kind("ks"), "v1", obj, {"WindowClosed", "Normal", "m", std::string(300, 'p')}, now);
  CHECK(long_instance["reportingInstance"].get<std::string>().size() == 128);
}
