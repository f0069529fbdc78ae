// Small helpers more than one unit needs, in one home (as ninja's src/util.h): a second copy of
// one of these is how two units come to disagree.
#pragma once

#include <string>
#include <string_view>

namespace windowctl {

// ASCII lower case. Kubernetes names, kinds, header names and cron's month and day names are
// ASCII; the C locale's tolower is what every caller means, whatever the process locale is.
std::string ascii_lower(std::string_view text);
// ASCII case-insensitive equality (HTTP header names, Connection tokens).
bool iequals_ascii(std::string_view a, std::string_view b);
// How windowctl names an object to people: "NAMESPACE/NAME", or "kind/NAMESPACE/NAME" with its
// kind in lower case when the kind is given (a run over more than one kind).
std::string object_label(std::string_view kind, std::string_view ns, std::string_view name);

}  // namespace windowctl
