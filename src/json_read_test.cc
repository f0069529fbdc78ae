#include "json_read.h"

#include <doctest/doctest.h>

using namespace windowctl;
using nlohmann::json;

TEST_CASE("outside JSON: the wrong type reads as absent") {
  json obj = json::parse(R"({"s": "x", "n": 5, "u": 18446744073709551615, "neg": -3, "o": {"a": 1}, "null": null})");
  CHECK(string_at(obj, "s") == "x");
  CHECK(string_at(obj, "n") == "");
  CHECK(string_at(obj, "o") == "");
  CHECK(string_at(obj, "missing") == "");
  CHECK(*int_at(obj, "n") == 5);
  CHECK(*int_at(obj, "neg") == -3);
  CHECK_FALSE(int_at(obj, "u"));  // beyond long long
  CHECK_FALSE(int_at(obj, "s"));
  CHECK(field(obj, "o") != nullptr);
  CHECK(field(obj, "missing") == nullptr);
  for (const json& other : {json::array({1, 2}), json("s"), json(5), json(nullptr)}) {
    CHECK(field(other, "s") == nullptr);
    CHECK(string_at(other, "s") == "");
    CHECK_FALSE(int_at(other, "s"));
  }
}

TEST_CASE("nesting depth, strings not counted") {
  CHECK(json_depth("") == 0);
  CHECK(json_depth("5") == 0);
  CHECK(json_depth(R"({"a": [1, {"b": []}], "c": {}})") == 4);
  CHECK(json_depth(R"({"a": "[[[[{{{\"[[["})") == 1);
  CHECK(json_depth(std::string(100000, '[')) == kMaxJsonDepth + 1);  // stops counting there
  std::string deep = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(json_depth(deep) == kMaxJsonDepth);
}
