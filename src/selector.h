// Label selectors as the API server parses them (apimachinery's labels.Parse), checked before
// the first request: a typo in -l is a usage error (exit 2), not a 400 from the server halfway
// through a job, and a selector the server would read differently never reaches it.
#pragma once

#include <string>
#include <string_view>

namespace windowctl {

// Empty when `selector` is valid (the empty selector is: it selects everything), else what is
// wrong with it, in apimachinery's words where it has them.
std::string selector_problem(std::string_view selector);

}  // namespace windowctl
