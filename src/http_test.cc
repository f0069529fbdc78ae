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
  Request req{"PATCH",
              "/apis/x?fieldManager=windowctl",
              "127.0.0.1:6443",
              {{"Content-Type", "application/merge-patch+json"}},
              "{}"};
  CHECK(serialize(req) ==
        "PATCH /apis/x?fieldManager=windowctl HTTP/1.1\r\nHost: 127.0.0.1:6443\r\n"
        "Content-Type: application/merge-patch+json\r\nContent-Length: 2\r\n\r\n{}");
  Request get{"GET", "/version", "h", {}, ""};
  CHECK(serialize(get) == "GET /version HTTP/1.1\r\nHost: h\r\n\r\n");
}

TEST_CASE("Content-Length body, fed whole and byte by byte") {
  const std::string wire =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"bc\"}\n";
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
  REQUIRE(parser.feed("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n") ==
          Result::kDone);
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
  for (const char* wire :
       {"garbage\r\n", "HTTP/1.1 2x0 OK\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"}) {
    ResponseParser parser;
    CHECK_MESSAGE(parser.feed(wire) == Result::kError, wire);
  }
  ResponseParser huge;
  CHECK(huge.feed("HTTP/1.1 200 OK\r\nX: " + std::string(ResponseParser::kMaxHeaderBytes, 'a')) == Result::kError);
}

TEST_CASE("a status code is exactly three digits: 2000 is not read as 200") {
  for (const char* wire : {"HTTP/1.1 2000 OK\r\n", "HTTP/1.1 200x OK\r\n", "HTTP/1.1 200\tOK\r\n"}) {
    ResponseParser parser;
    CHECK_MESSAGE(parser.feed(wire) == Result::kError, wire);
  }
  ResponseParser bare;  // a status line without a reason phrase (and without its space) is fine
  CHECK(bare.feed("HTTP/1.1 204\r\n\r\n") == Result::kDone);
  CHECK(bare.response().status == 204);
}

TEST_CASE("query values are percent-encoded") {
  using windowctl::http::query_escape;
  CHECK(query_escape("app in (a,b)") == "app%20in%20%28a%2Cb%29");
  CHECK(query_escape("window=rw") == "window%3Drw");
  CHECK(query_escape("a-b_c.d~") == "a-b_c.d~");
}

TEST_CASE("a chunk size near 2^64 after a first chunk is refused, not wrapped past the cap") {
  for (const char* size : {"FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFF0", "FFFFFFFFFFFFFFFE"}) {
    CAPTURE(size);
    ResponseParser parser(false, 1024);
    std::string wire = std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n") + size + "\r\n";
    CHECK(parser.feed(wire) == Result::kError);
    CHECK(parser.error().find("too large") != std::string::npos);
    CHECK(parser.response().body.size() <= 1024);
  }
  // Beyond 64 bits is malformed outright.
  ResponseParser parser;
  CHECK(parser.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1FFFFFFFFFFFFFFFF\r\n") == Result::kError);
}

TEST_CASE("the body cap holds whatever the framing: chunks, Content-Length, until close") {
  const std::size_t cap = 100;
  std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 30; ++i) chunked += "5\r\n01234\r\n";
  ResponseParser a(false, cap);
  CHECK(feed_in_steps(a, chunked, 7) == Result::kError);
  CHECK(a.response().body.size() <= cap);
  ResponseParser b(false, cap);
  CHECK(b.feed("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n") == Result::kError);
  ResponseParser c(false, cap);
  CHECK(c.feed("HTTP/1.0 200 OK\r\n\r\n" + std::string(101, 'x')) == Result::kError);
  ResponseParser d(false, cap);
  CHECK(d.feed("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x')) == Result::kDone);
}

TEST_CASE("a large body in many small chunks is not a large header") {
  // Go's API server writes a big LIST in chunks of a few KiB: 20,000 size lines, 64 KiB of them.
  std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 20000; ++i) wire += "1\r\nx\r\n";
  wire += "0\r\n\r\n";
  ResponseParser parser;
  REQUIRE(parser.feed(wire) == Result::kDone);
  CHECK(parser.response().body.size() == 20000);
  ResponseParser long_line;
  CHECK(long_line.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(5000, 'e')) ==
        Result::kError);
}

TEST_CASE("1xx interim answers are skipped; the final answer is the response") {
  const std::string final_answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
  for (const std::string interim : {"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n",
                                    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"}) {
    for (std::size_t step : {1u, 3u, 1000u}) {
      ResponseParser parser;
      std::string wire = interim + final_answer + "HTTP/1.1 200 OK\r\n";  // the next response stays unread
      std::size_t consumed = 0;
      Result r = Result::kNeedMore;
      std::size_t pos = 0;
      for (; pos < wire.size() && r == Result::kNeedMore; pos += step) {
        std::size_t used = 0;
        r = parser.feed(std::string_view(wire).substr(pos, step), &used);
        consumed = pos + used;
      }
      REQUIRE(r == Result::kDone);
      CHECK(parser.response().status == 200);
      CHECK(parser.response().body == "{}");
      CHECK(parser.response().headers.size() == 1);  // the interim's Link header is not the answer's
      CHECK(consumed == interim.size() + final_answer.size());
    }
  }
  // Endless 1xx are bounded by the header cap; 101 is never asked for.
  std::string endless;
  while (endless.size() < 70 * 1024) endless += "HTTP/1.1 100 Continue\r\n\r\n";
  ResponseParser parser;
  CHECK(parser.feed(endless) == Result::kError);
  ResponseParser upgrade;
  CHECK(upgrade.feed("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n") == Result::kError);
  // A connection that closes after an interim answer closed in the middle of a response.
  ResponseParser cut;
  CHECK(cut.feed("HTTP/1.1 100 Continue\r\n\r\n") == Result::kNeedMore);
  CHECK(cut.started());
  CHECK(cut.finish_eof() == Result::kError);
}
