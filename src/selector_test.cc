#include "selector.h"

#include <doctest/doctest.h>

#include <string>

using namespace windowctl;

// Each case is what apimachinery's labels.Parse accepts or refuses (selector_test.go's tables,
// and kubectl get -l against a real API server).
TEST_CASE("selectors the API server accepts") {
  for (const char* s : {"",
                        "  ",
                        "x",
                        "!x",
                        "x=a",
                        "x==a",
                        "x!=a",
                        "x=",
                        "x==",
                        "x!=",
                        "x in (a)",
                        "x in (a,b)",
                        "x notin (a, b)",
                        "x in ()",
                        "x in (a,,b)",
                        "x in (,a)",
                        "x>1",
                        "x<0",
                        "x>9223372036854775807",
                        "x=a,y!=b,!z,w",
                        " x = a , y in ( b ) ",
                        "example.com/x=a",
                        "app.kubernetes.io/name=web",
                        "x=A.b-c_d",
                        "in=notin",
                        "x in (in,notin)",
                        "a.b/c-d=e",
                        "x,y"}) {
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
      {"x>-1",
       "value \"-1\": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' "
       "between"},
      {"-x=a",
       "key \"-x\": a label name is at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
      {"Example.com/x",
       "key \"Example.com/x\": its prefix must be a DNS subdomain (lowercase, at most 253 characters)"},
      {"/x", "key \"/x\": its prefix must be a DNS subdomain (lowercase, at most 253 characters)"},
      {"a/b/c",
       "key \"a/b/c\": a label name is at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' between"},
      {"x=a_",
       "value \"a_\": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' or '.' "
       "between"},
      {"x=\xc3\xa9",
       "value \"\xc3\xa9\": a label value is empty or at most 63 characters, alphanumeric at both ends, with '-', '_' "
       "or '.' between"},
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

// apimachinery's Requirement.Matches over the parsed selector (labels_test.go's TestRequirementMatches,
// and what the API server's LIST returns for each).
TEST_CASE("what a selector selects") {
  struct Case {
    const char* selector;
    Labels labels;
    bool selected;
  };
  const Labels web{{"tier", "2"}, {"team", "web"}};
  const Case cases[] = {
      {"", {}, true},
      {"tier", web, true},
      {"tier", {{"team", "web"}}, false},
      {"!tier", web, false},
      {"!tier", {}, true},
      {"tier=2", web, true},
      {"tier==2", web, true},
      {"tier=3", web, false},
      {"tier=", {{"tier", ""}}, true},
      {"tier=", {}, false},
      {"tier!=2", web, false},
      {"tier!=3", web, true},
      {"tier!=3", {}, true},  // no label: not equal
      {"tier in (1,2)", web, true},
      {"tier in (1,3)", web, false},
      {"tier in (1,3)", {}, false},
      {"tier in ()", {{"tier", ""}}, true},
      {"tier in (1,,3)", {{"tier", ""}}, true},
      {"tier notin (1, 3)", web, true},
      {"tier notin (2)", web, false},
      {"tier notin (2)", {}, true},
      {"tier>1", web, true},
      {"tier>2", web, false},
      {"tier>1", {{"tier", "10"}}, true},   // numbers, not text: "10" > "1"
      {"tier<3", {{"tier", "10"}}, false},  // and "10" < "3" as text only
      {"tier>0", {{"tier", "x"}}, false},   // not a number: never greater nor less
      {"tier<9", {{"tier", "x"}}, false},
      {"tier>0", {}, false},
      {"tier<9223372036854775807", {{"tier", "9223372036854775807"}}, false},
      {"tier<1", {{"tier", "-5"}}, true},
      {"tier>1", {{"tier", "99999999999999999999"}}, false},  // out of int64: not a number
      {"tier>1,team", web, true},
      {"tier>1,team notin (web)", web, false},
      {"in=notin", {{"in", "notin"}}, true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.selector);
    auto parsed = parse_selector(c.selector);
    REQUIRE(parsed);
    CHECK(selector_matches(*parsed, c.labels) == c.selected);
  }
}

TEST_CASE("parse_selector: the requirements, or the problem selector_problem names") {
  using Op = LabelRequirement::Op;
  auto s = parse_selector("a=b, c!=d, e in (f,,g), !h, i, j>1");
  REQUIRE(s);
  REQUIRE(s->size() == 6);
  CHECK(((*s)[0].key == "a" && (*s)[0].op == Op::kIn && (*s)[0].values == std::vector<std::string>{"b"}));
  CHECK(((*s)[1].op == Op::kNotIn && (*s)[1].values == std::vector<std::string>{"d"}));
  CHECK(((*s)[2].op == Op::kIn && (*s)[2].values == std::vector<std::string>{"f", "", "g"}));
  CHECK(((*s)[3].key == "h" && (*s)[3].op == Op::kDoesNotExist));
  CHECK(((*s)[4].key == "i" && (*s)[4].op == Op::kExists));
  CHECK(((*s)[5].op == Op::kGreaterThan && (*s)[5].values == std::vector<std::string>{"1"}));
  CHECK(parse_selector("")->empty());
  std::string problem;
  CHECK(!parse_selector("x in (a", &problem));
  CHECK(problem == selector_problem("x in (a"));
  CHECK(!problem.empty());
}
