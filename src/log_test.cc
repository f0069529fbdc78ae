#include "log.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

TEST_CASE("JSON log lines are one valid object, whatever the message holds") {
  auto line = windowctl::format_json_log("warn", "quote \" newline \n bad \xff byte", "2026-11-22T08:00:00Z");
  CHECK(line.find('\n') == std::string::npos);
  auto j = nlohmann::json::parse(line);
  CHECK(j["level"] == "warn");
  CHECK(j["time"] == "2026-11-22T08:00:00Z");
  CHECK(j["msg"].get<std::string>().rfind("quote \" newline \n bad ", 0) == 0);
}
