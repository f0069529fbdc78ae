#include "log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "text.h"
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

thread_local LogContext* current_context = nullptr;

// The message as this thread's fleet context has it: its name in front, its first error kept.
// The formatter runs on the logging thread (a synchronous logger), so the thread-local is the
// context of whoever logs.
std::string in_context(const spdlog::details::log_msg& msg) {
  std::string text(msg.payload.data(), msg.payload.size());
  if (!current_context) return text;
  if (msg.level >= spdlog::level::err) current_context->note_error(text);
  return current_context->name() + ": " + text;
}

class TextFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    if (!current_context) return inner_.format(msg, dest);
    const std::string text = in_context(msg);
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(text.data(), text.size());
    inner_.format(copy, dest);
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<TextFormatter>(); }

 private:
  spdlog::pattern_formatter inner_{"%Y-%m-%dT%H:%M:%SZ %l %v", spdlog::pattern_time_type::utc};
};

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string level(spdlog::level::to_string_view(msg.level).data(), spdlog::level::to_string_view(msg.level).size());
    if (level == "warning") level = "warn";
    std::string line = format_json_log(level, in_context(msg), rfc3339_nano(msg.time));
    dest.append(line.data(), line.data() + line.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

}  // namespace

namespace {
LogFormat current_format = LogFormat::kText;
}  // namespace

// A kubeconfig's context name is anyone's text: terminal-safe in front of every line.
LogContext::LogContext(std::string name) : name_(printable(name, 256)) { current_context = this; }

LogContext::~LogContext() { current_context = nullptr; }

void say(const std::string& message) {
  if (current_format == LogFormat::kJson) {
    spdlog::info("{}", message);
  } else {
    std::fputs(((current_context ? current_context->name() + ": " : std::string()) + message + "\n").c_str(), stderr);
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
    logger->set_formatter(std::make_unique<TextFormatter>());
  }
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace windowctl
