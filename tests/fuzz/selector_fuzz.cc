// -l/--selector, checked before any request. Invariants: any input gets an answer (no crash, no
// hang); an accepted selector stays accepted with spaces around its commas, and every accepted
// selector is made of characters a label selector may hold.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "selector.h"

using namespace windowctl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  std::string problem = selector_problem(s);
  FUZZ_CHECK(problem.size() < 1024);
  if (!problem.empty()) return 0;
  std::string spaced;
  for (char c : s) spaced += c == ',' ? std::string(" , ") : std::string(1, c);
  FUZZ_CHECK(selector_problem(spaced).empty());
  for (unsigned char c : s) {
    FUZZ_CHECK(c < 0x80);
  }
  return 0;
}
