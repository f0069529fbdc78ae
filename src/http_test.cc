#include "http.h"

#include <doctest/doctest.h>

using windowctl::http::Request;
using windowctl::http::ResponseParser;
using Result = ResponseParser::Result;

namespace {

// Feeds `wire` in pieces of `step` bytes, as a socket would deliver it.
Result feed_in_steps(ResponseParser& parser, std::string_view wire, std::size_t step) {
  Result r = Result::kNeedMore;
  for (std::size_t pos = 0; pos < wire.size() && r == Result::kNeedMore; pos += step) {
    r = parser.feed(wire.substr(pos, step));
  }
  return r;
}

}  // namespace

TEST_CASE("request carries Host, headers and Content-Length") {
  Request req{"PATCH", "/apis/x?fieldManager=windowctl", "127.0.0.1:6443", {{"Content-Type", "application/merge-patch+json"}}, "{}"};
  CHECK(serialize(req) ==
        "PATCH /apis/x?fieldManager=windowctl HTTP/1.1\r\nHost: 127.0.0.1:6443\r\n"
        "Content-Type: application/merge-patch+json\r\nContent-Length: 2\r\n\r\n{}");
  Request get{"GET", "/version", "h", {}, ""};
  CHECK(serialize(get) == "GET /version HTTP/1.1\r\nHost: h\r\n\r\n");
}

TEST_CASE("Content-Length body, fed whole and byte by byte") {
  const std::string wire = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"bc\"}\n";
  for (std::size_t step : {wire.size(), std::size_t{1}, std::size_t{7}}) {
    ResponseParser parser;
    REQUIRE(feed_in_steps(parser, wire, step) == Result::kDone);
    CHECK(parser.response().status == 200);
    CHECK(parser.response().reason == "OK");
    CHECK(parser.response().body == "{\"a\":\"bc\"}\n");
    CHECK(parser.response().keep_alive);
    CHECK(parser.response().header("content-type") == "application/json");
  }
}

TEST_CASE("bytes after the message are not consumed") {
  ResponseParser parser;
  std::size_t consumed = 0;
  std::string wire = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 ...";
  CHECK(parser.feed(wire, &consumed) == Result::kDone);
  CHECK(consumed == wire.find("HTTP/1.1 ..."));
}

TEST_CASE("chunked body with extensions and trailers") {
  const std::string wire =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n";
  for (std::size_t step : {wire.size(), std::size_t{1}, std::size_t{3}}) {
    ResponseParser parser;
    REQUIRE(feed_in_steps(parser, wire, step) == Result::kDone);
    CHECK(parser.response().body == "Wikipedia in\r\n\r\nchunks.");
    CHECK(parser.response().keep_alive);
  }
}

TEST_CASE("malformed chunk framing is an error") {
  ResponseParser parser;
  CHECK(parser.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") == Result::kError);
  CHECK(parser.error() == "malformed chunk size");
  ResponseParser missing_crlf;
  CHECK(missing_crlf.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n") == Result::kError);
}

TEST_CASE("Connection: close and HTTP/1.0 end keep-alive") {
  ResponseParser parser;
  REQUIRE(parser.feed("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n") == Result::kDone);
  CHECK_FALSE(parser.response().keep_alive);
  CHECK(parser.response().status == 503);
  ResponseParser old;
  REQUIRE(old.feed("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n") == Result::kDone);
  CHECK_FALSE(old.response().keep_alive);
  ResponseParser old_keep;
  REQUIRE(old_keep.feed("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n") == Result::kDone);
  CHECK(old_keep.response().keep_alive);
}

TEST_CASE("body delimited by close ends at EOF") {
  ResponseParser parser;
  CHECK(parser.feed("HTTP/1.1 200 OK\r\n\r\npartial") == Result::kNeedMore);
  CHECK(parser.finish_eof() == Result::kDone);
  CHECK(parser.response().body == "partial");
  CHECK_FALSE(parser.response().keep_alive);
}

TEST_CASE("truncated responses are errors at EOF") {
  ResponseParser none;
  CHECK(none.finish_eof() == Result::kError);
  CHECK(none.error() == "connection closed before a response");
  ResponseParser half;
  CHECK(half.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") == Result::kNeedMore);
  CHECK(half.finish_eof() == Result::kError);
  CHECK(half.error() == "connection closed in the middle of a response");
}

TEST_CASE("responses without a body") {
  ResponseParser no_content;
  CHECK(no_content.feed("HTTP/1.1 204 No Content\r\n\r\n") == Result::kDone);
  ResponseParser head(true);
  CHECK(head.feed("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n") == Result::kDone);
  CHECK(head.response().body.empty());
}

TEST_CASE("garbage is rejected, not crashed on") {
  for (const char* wire : {"garbage\r\n", "HTTP/1.1 2x0 OK\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"}) {
    ResponseParser parser;
    CHECK_MESSAGE(parser.feed(wire) == Result::kError, wire);
  }
  ResponseParser huge;
  CHECK(huge.feed("HTTP/1.1 200 OK\r\nX: " + std::string(ResponseParser::kMaxHeaderBytes, 'a')) == Result::kError);
}

TEST_CASE("query values are percent-encoded") {
  using windowctl::http::query_escape;
  CHECK(query_escape("app in (a,b)") == "app%20in%20%28a%2Cb%29");
  CHECK(query_escape("window=rw") == "window%3Drw");
  CHECK(query_escape("a-b_c.d~") == "a-b_c.d~");
}
