// Label selectors as the API server parses them (apimachinery's labels.Parse), checked before
// the first request: a typo in -l is a usage error (exit 2), not a 400 from the server halfway
// through a job, and a selector the server would read differently never reaches it.
//
// The API server selects what a command lists; `check` reads a job's -l offline, so it matches
// here, by the same parse, as apimachinery's Requirement.Matches does.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace windowctl {

struct LabelRequirement {
  // = and == are kIn with one value, != is kNotIn with one value, as apimachinery treats them.
  enum class Op { kExists, kDoesNotExist, kIn, kNotIn, kGreaterThan, kLessThan };
  std::string key;
  Op op = Op::kExists;
  std::vector<std::string> values;  // kGreaterThan, kLessThan: one, an integer
};

// Its requirements, all of which must hold; none selects everything.
using LabelSelector = std::vector<LabelRequirement>;

using Labels = std::map<std::string, std::string, std::less<>>;

// The selector as the API server reads it; nullopt when it refuses it, with `problem` (when given)
// saying why, as selector_problem does.
std::optional<LabelSelector> parse_selector(std::string_view selector, std::string* problem = nullptr);

// Empty when `selector` is valid (the empty selector is: it selects everything), else what is
// wrong with it, in apimachinery's words where it has them.
std::string selector_problem(std::string_view selector);

// Does the selector select an object with these labels?
bool selector_matches(const LabelSelector& selector, const Labels& labels);

}  // namespace windowctl
