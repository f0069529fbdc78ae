// HTTP/1.1 framing for the API client: request serialisation and an incremental response
// parser. No I/O here, so every framing rule (Content-Length, chunked, keep-alive) is unit-tested.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace windowctl::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;
  std::string target;  // origin-form: path and query
  std::string host;    // Host header value
  Headers headers;
  std::string body;
};

std::string serialize(const Request& request);

struct Response {
  int status = 0;
  std::string reason;
  Headers headers;
  std::string body;
  bool keep_alive = true;

  // Case-insensitive lookup of the first header with that name.
  std::optional<std::string> header(std::string_view name) const;
};

class ResponseParser {
 public:
  enum class Result { kNeedMore, kDone, kError };

  explicit ResponseParser(bool head_request = false, std::size_t max_body = kMaxBodyBytes)
      : head_request_(head_request), max_body_(max_body) {}

  // Consumes bytes; bytes after the end of the message are left unconsumed in `consumed`.
  Result feed(std::string_view data, std::size_t* consumed = nullptr);
  // The peer closed the connection: a body delimited by close ends here, anything else is truncated.
  Result finish_eof();

  bool started() const { return interim_ || state_ != State::kStatusLine || !line_.empty(); }
  const std::string& error() const { return error_; }
  Response& response() { return response_; }

  static constexpr std::size_t kMaxHeaderBytes = 64 * 1024;       // status, header and trailer lines, 1xx included
  static constexpr std::size_t kMaxChunkLineBytes = 4096;         // one chunk size line, extensions included
  static constexpr std::size_t kMaxBodyBytes = 64 * 1024 * 1024;  // the default cap

 private:
  enum class State {
    kStatusLine,
    kHeaders,
    kBody,
    kChunkSize,
    kChunkData,
    kChunkDataEnd,
    kTrailers,
    kUntilClose,
    kDone,
    kError
  };

  Result fail(std::string message);
  bool on_line(std::string_view line);
  bool begin_body();

  bool head_request_;
  std::size_t max_body_;
  bool interim_ = false;  // a 1xx came before
  State state_ = State::kStatusLine;
  std::string line_;
  std::size_t header_bytes_ = 0;
  std::size_t remaining_ = 0;
  std::string error_;
  Response response_;
};

// Percent-encodes a query parameter value (RFC 3986 unreserved characters pass through).
std::string query_escape(std::string_view value);

}  // namespace windowctl::http
