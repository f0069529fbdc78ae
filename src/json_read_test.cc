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
