// HTTP response framing as the client meets it: bytes from the peer in whatever pieces the
// socket delivers. Invariants: the body never exceeds its cap, at any moment; the outcome does
// not depend on how the bytes were split; a final answer is never 1xx; a Content-Length body
// is exactly that long; whatever follows a complete answer is left unconsumed.
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "http.h"
#include "util.h"

using windowctl::http::ResponseParser;
using Result = ResponseParser::Result;

namespace {

struct Outcome {
  Result result = Result::kNeedMore;
  std::size_t consumed = 0;  // when done
  int status = 0;
  std::string reason, body, error;
  windowctl::http::Headers headers;
  bool keep_alive = false;
  bool operator==(const Outcome&) const = default;
};

std::string describe(const Outcome& o) {
  return "result " + std::to_string(static_cast<int>(o.result)) + " consumed " + std::to_string(o.consumed) +
         " status " + std::to_string(o.status) + " body " + std::to_string(o.body.size()) + " bytes, error \"" +
         o.error + "\"";
}

// Feeds `wire` in the pieces `splits` cuts it into, checking the cap after every piece, then
// the end of the stream when the parser still waits.
Outcome run(std::string_view wire, const std::vector<std::size_t>& splits, bool head, std::size_t cap, bool eof) {
  ResponseParser parser(head, cap);
  Outcome o;
  std::size_t pos = 0;
  for (std::size_t i = 0; o.result == Result::kNeedMore && pos < wire.size(); ++i) {
    std::size_t n = i < splits.size() ? std::min(splits[i], wire.size() - pos) : wire.size() - pos;
    std::size_t used = 0;
    o.result = parser.feed(wire.substr(pos, n), &used);
    FUZZ_CHECK(parser.response().body.size() <= cap, "body " + std::to_string(parser.response().body.size()));
    if (o.result == Result::kDone) {
      FUZZ_CHECK(used <= n);
      o.consumed = pos + used;
    } else if (o.result == Result::kNeedMore) {
      FUZZ_CHECK(used == n, "a parser that needs more must take everything it was given");
    }
    pos += n;
  }
  if (o.result == Result::kNeedMore && eof) {
    o.result = parser.finish_eof();
    if (o.result == Result::kDone) o.consumed = wire.size();
  }
  FUZZ_CHECK(parser.response().body.size() <= cap);
  if (o.result == Result::kError) {
    o.error = parser.error();
    FUZZ_CHECK(!o.error.empty());
    return o;
  }
  const auto& r = parser.response();
  o.status = r.status;
  o.reason = r.reason;
  o.body = r.body;
  o.headers = r.headers;
  o.keep_alive = r.keep_alive;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool head = in.ConsumeBool();
  const bool eof = in.ConsumeBool();
  // Small caps reach the cap checks; the default one is what a real answer meets.
  const std::size_t cap =
      in.ConsumeBool() ? ResponseParser::kMaxBodyBytes : in.ConsumeIntegralInRange<std::size_t>(0, 300);
  std::vector<std::size_t> splits(in.ConsumeIntegralInRange<std::size_t>(0, 16));
  for (auto& s : splits) s = in.ConsumeIntegralInRange<std::size_t>(0, 64);
  const std::string wire = in.ConsumeRemainingBytesAsString();

  const Outcome whole = run(wire, {}, head, cap, eof);
  const Outcome pieces = run(wire, splits, head, cap, eof);
  std::vector<std::size_t> bytes(wire.size(), 1);
  const Outcome one_by_one = run(wire, bytes, head, cap, eof);
  FUZZ_CHECK(whole == pieces, describe(whole) + " / " + describe(pieces));
  FUZZ_CHECK(whole == one_by_one, describe(whole) + " / " + describe(one_by_one));

  if (whole.result == Result::kDone) {
    FUZZ_CHECK(whole.status >= 200 && whole.status <= 999, std::to_string(whole.status));
    FUZZ_CHECK(whole.consumed <= wire.size());
    auto header = [&](std::string_view name) -> std::optional<std::string> {
      for (const auto& [k, v] : whole.headers) {
        if (windowctl::iequals_ascii(k, name)) return v;
      }
      return std::nullopt;
    };
    auto cl = header("Content-Length");
    auto te = header("Transfer-Encoding");
    if (head || whole.status == 204 || whole.status == 304) {
      FUZZ_CHECK(whole.body.empty());
    } else if (cl && !te) {
      std::size_t length = 0;
      std::from_chars(cl->data(), cl->data() + cl->size(), length);
      FUZZ_CHECK(whole.body.size() == length, *cl + " vs " + std::to_string(whole.body.size()));
    }
  }
  return 0;
}
