#include "http.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "util.h"

namespace windowctl::http {

std::string query_escape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string serialize(const Request& request) {
  std::string out;
  out.reserve(256 + request.body.size());
  out += request.method;
  out += ' ';
  out += request.target;
  out += " HTTP/1.1\r\nHost: ";
  out += request.host;
  out += "\r\n";
  for (const auto& [name, value] : request.headers) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (!request.body.empty() || request.method == "POST" || request.method == "PATCH" || request.method == "PUT") {
    out += "Content-Length: ";
    out += std::to_string(request.body.size());
    out += "\r\n";
  }
  out += "\r\n";
  out += request.body;
  return out;
}

std::optional<std::string> Response::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequals_ascii(key, name)) return value;
  }
  return std::nullopt;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool contains_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    auto comma = list.find(',');
    if (iequals_ascii(trim(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

ResponseParser::Result ResponseParser::fail(std::string message) {
  state_ = State::kError;
  error_ = std::move(message);
  return Result::kError;
}

bool ResponseParser::on_line(std::string_view line) {
  if (state_ == State::kStatusLine) {
    // "HTTP/1.1 200 OK"; the reason phrase may be empty.
    if (line.size() < 12 || line.substr(0, 5) != "HTTP/" || line[8] != ' ') {
      fail("malformed status line");
      return false;
    }
    int status = 0;
    auto [ptr, ec] = std::from_chars(line.data() + 9, line.data() + 12, status);
    // Three digits and then the end or a space: "HTTP/1.1 2000 OK" is not a 200.
    if (ec != std::errc() || ptr != line.data() + 12 || status < 100 || status > 999 ||
        (line.size() > 12 && line[12] != ' ')) {
      fail("malformed status code");
      return false;
    }
    response_.status = status;
    response_.reason = std::string(line.size() > 13 ? line.substr(13) : std::string_view());
    // HTTP/1.0 closes unless told otherwise.
    response_.keep_alive = line.substr(0, 8) == "HTTP/1.1";
    state_ = State::kHeaders;
    return true;
  }
  if (state_ == State::kHeaders) {
    if (line.empty()) return begin_body();
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      fail("malformed header line");
      return false;
    }
    response_.headers.emplace_back(std::string(line.substr(0, colon)), std::string(trim(line.substr(colon + 1))));
    return true;
  }
  if (state_ == State::kChunkSize) {
    auto hex = trim(line.substr(0, line.find(';')));  // chunk extensions are ignored
    std::size_t size = 0;
    auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
    if (hex.empty() || ec != std::errc() || ptr != hex.data() + hex.size()) {
      fail("malformed chunk size");
      return false;
    }
    if (size > max_body_ - response_.body.size()) {
      fail("response body too large (cap " + std::to_string(max_body_) + " bytes)");
      return false;
    }
    remaining_ = size;
    state_ = size == 0 ? State::kTrailers : State::kChunkData;
    return true;
  }
  if (state_ == State::kChunkDataEnd) {
    if (!line.empty()) {
      fail("missing CRLF after chunk");
      return false;
    }
    state_ = State::kChunkSize;
    return true;
  }
  if (state_ == State::kTrailers) {
    if (line.empty()) state_ = State::kDone;
    return true;
  }
  fail("unexpected line");
  return false;
}

bool ResponseParser::begin_body() {
  if (auto connection = response_.header("Connection")) {
    if (contains_token(*connection, "close")) response_.keep_alive = false;
    if (contains_token(*connection, "keep-alive")) response_.keep_alive = true;
  }
  const int status = response_.status;
  if (status == 101) {
    fail("unexpected 101 Switching Protocols: windowctl never asks to switch");
    return false;
  }
  if (status >= 100 && status < 200) {
    // An interim answer (100 Continue, 103 Early Hints): the real one follows on the same
    // stream. Its bytes still count against the header cap, so endless 1xx cannot go on.
    response_ = Response();
    state_ = State::kStatusLine;
    interim_ = true;
    return true;
  }
  if (head_request_ || status == 204 || status == 304) {
    state_ = State::kDone;
    return true;
  }
  auto te = response_.header("Transfer-Encoding");
  if (te && !iequals_ascii(*te, "identity")) {
    if (!contains_token(*te, "chunked")) {
      fail("unsupported transfer encoding");
      return false;
    }
    state_ = State::kChunkSize;
    return true;
  }
  if (auto cl = response_.header("Content-Length")) {
    std::size_t length = 0;
    auto [ptr, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), length);
    if (cl->empty() || ec != std::errc() || ptr != cl->data() + cl->size()) {
      fail("malformed Content-Length");
      return false;
    }
    if (length > max_body_) {
      fail("response body too large (cap " + std::to_string(max_body_) + " bytes)");
      return false;
    }
    remaining_ = length;
    response_.body.reserve(length);
    state_ = length == 0 ? State::kDone : State::kBody;
    return true;
  }
  response_.keep_alive = false;
  state_ = State::kUntilClose;
  return true;
}

ResponseParser::Result ResponseParser::feed(std::string_view data, std::size_t* consumed) {
  std::size_t pos = 0;
  while (pos < data.size() && state_ != State::kDone && state_ != State::kError) {
    switch (state_) {
      case State::kBody:
      case State::kChunkData: {
        std::size_t n = std::min(remaining_, data.size() - pos);
        response_.body.append(data.substr(pos, n));
        pos += n;
        remaining_ -= n;
        if (remaining_ == 0) state_ = state_ == State::kBody ? State::kDone : State::kChunkDataEnd;
        break;
      }
      case State::kUntilClose: {
        std::size_t n = data.size() - pos;
        if (n > max_body_ - response_.body.size())
          return fail("response body too large (cap " + std::to_string(max_body_) + " bytes)");
        response_.body.append(data.substr(pos));
        pos += n;
        break;
      }
      default: {
        auto nl = data.find('\n', pos);
        std::size_t end = nl == std::string_view::npos ? data.size() : nl;
        line_.append(data.substr(pos, end - pos));
        if (state_ == State::kChunkSize || state_ == State::kChunkDataEnd) {
          // Chunk framing lines are not headers: a large body has thousands of them.
          if (line_.size() > kMaxChunkLineBytes) return fail("chunk size line too long");
        } else {
          header_bytes_ += end - pos;
          if (header_bytes_ > kMaxHeaderBytes) return fail("response header too large");
        }
        if (nl == std::string_view::npos) {
          pos = data.size();
          break;
        }
        pos = nl + 1;
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        std::string line = std::move(line_);
        line_.clear();
        if (!on_line(line)) return Result::kError;
      }
    }
  }
  if (consumed) *consumed = pos;
  if (state_ == State::kError) return Result::kError;
  return state_ == State::kDone ? Result::kDone : Result::kNeedMore;
}

ResponseParser::Result ResponseParser::finish_eof() {
  if (state_ == State::kDone) return Result::kDone;
  if (state_ == State::kUntilClose) {
    state_ = State::kDone;
    return Result::kDone;
  }
  if (state_ == State::kError) return Result::kError;
  return fail(started() ? "connection closed in the middle of a response" : "connection closed before a response");
}

}  // namespace windowctl::http
