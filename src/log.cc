#include "log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "timefmt.h"

namespace windowctl {

std::string format_json_log(const std::string& level, const std::string& message, const std::string& time) {
  nlohmann::json line;
  line["time"] = time;
  line["level"] = level;
  line["msg"] = message;
  // A message may carry server text that is not UTF-8; replace rather than throw.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string level(spdlog::level::to_string_view(msg.level).data(), spdlog::level::to_string_view(msg.level).size());
    if (level == "warning") level = "warn";
    std::string line =
        format_json_log(level, std::string(msg.payload.data(), msg.payload.size()), rfc3339_nano(msg.time));
    dest.append(line.data(), line.data() + line.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

}  // namespace

namespace {
LogFormat current_format = LogFormat::kText;
}  // namespace

void say(const std::string& message) {
  if (current_format == LogFormat::kJson) {
    spdlog::info("{}", message);
  } else {
    std::fputs((message + "\n").c_str(), stderr);
    std::fflush(stderr);
  }
}

void setup_logging(LogFormat format, bool verbose) {
  current_format = format;
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("windowctl", sink);
  if (format == LogFormat::kJson) {
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    logger->set_formatter(
        std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%SZ %l %v", spdlog::pattern_time_type::utc));
  }
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace windowctl
