#include "selector.h"

#include <doctest/doctest.h>

#include <string>

using namespace windowctl;

// Each case is what apimachinery's labels.Parse accepts or refuses (selector_test.go's tables,
// and kubectl get -l against a real API server).
TEST_CASE("selectors the API server accepts") {
  for (const char* s : {"", "  ", "x", "!x", "x=a", "x==a", "x!=a", "x=", "x==", "x!=", "x in (a)", "x in (a,b)",
                        "x notin (a, b)", "x in ()", "x in (a,,b)", "x in (,a)", "x>1", "x<0", "x>9223372036854775807",
                        "x=a,y!=b,!z,w", " x = a , y in ( b ) ", "example.com/x=a", "app.kubernetes.io/name=web",
                        "x=A.b-c_d", "in=notin", "x in (in,notin)", "a.b/c-d=e", "x,y"}) {
    CAPTURE(s);
    CHECK(selector_problem(s) == "");
  }
}

TEST_CASE("selectors the API server refuses, each with its reason") {
  struct Case {
    const char* selector;
    const char* problem;
  };
  const Case cases[] = {
      {"x=a y", "found \"y\", expected: ',' or end of string"},
      {"x=a\ty", "found \"y\", expected: ',' or end of string"},
      {",x", "found \",\", expected: !, identifier, or end of string"},
      {"x,", "found end of string, expected: identifier after ','"},
      {"x,,y", "found \",\", expected: identifier after ','"},
      {"=a", "found \"=\", expected: !, identifier, or end of string"},
      {"x=(a)", "found \"(\", expected: a value"},
      {"x in a", "found \"a\", expected: '('"},
      {"x in (a", "found end of string, expected: ',' or ')'"},
      {"x in (a b)", "found \"b\", expected: ',' or ')'"},
      {"x notin", "found end of string, expected: '('"},
      {"!x=a", "found \"=\", expected: ',' or end of string after '!x'"},
      {"x y", "found \"y\", expected: an operator (=, ==, !=, in, notin, >, <)"},
      {"x>a", "for '>' and '<' the value must be an integer, not \"a\""},
      {"x<", "for '>' and '<' the value must be an integer"},
      {"x>-1", "value \"-1\": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
      {"-x=a", "key \"-x\": a label name is at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
      {"Example.com/x", "key \"Example.com/x\": its prefix must be a DNS subdomain (lowercase, at most 253 characters)"},
      {"/x", "key \"/x\": its prefix must be a DNS subdomain (lowercase, at most 253 characters)"},
      {"a/b/c", "key \"a/b/c\": a label name is at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
      {"x=a_", "value \"a_\": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
      {"x=\xc3\xa9", "value \"\xc3\xa9\": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.selector);
    CHECK(selector_problem(c.selector) == c.problem);
  }
}

TEST_CASE("names and values have their length limits") {
  const std::string n63(63, 'a'), n64(64, 'a');
  CHECK(selector_problem(n63 + "=" + n63) == "");
  CHECK(selector_problem(n64) != "");
  CHECK(selector_problem("x=" + n64) != "");
  std::string prefix;
  while (prefix.size() < 253) prefix += "a.";
  prefix.resize(253);
  if (prefix.back() == '.') prefix.back() = 'a';
  CHECK(selector_problem(prefix + "/x") == "");
  CHECK(selector_problem(prefix + "a/x") != "");
}

TEST_CASE("a long input is quoted short") {
  std::string problem = selector_problem("x=" + std::string(5000, '-'));
  CHECK(problem.size() < 300);
  CHECK(problem.find("...\"") != std::string::npos);
}
