// Logs go to stderr: text for people, one JSON object per line for cluster log pipelines.
#pragma once

#include <string>

namespace windowctl {

enum class LogFormat { kText, kJson };

void setup_logging(LogFormat format, bool verbose);

// A line for people as kubectl writes it to stderr ("No resources found in x namespace."): bare
// with text logs, an info entry with JSON logs, so a log pipeline still reads one object a line.
void say(const std::string& message);

// A fleet run's context on the thread that runs it: while it lives, every line this thread logs
// (and says) names the context first ("prod-b: ..."), and the first error is kept for the
// context's line in the report. Lines of other threads are untouched: the scope is per thread.
class LogContext {
 public:
  explicit LogContext(std::string name);
  ~LogContext();
  LogContext(const LogContext&) = delete;
  LogContext& operator=(const LogContext&) = delete;

  const std::string& name() const { return name_; }
  const std::string& first_error() const { return first_error_; }
  void note_error(const std::string& message) {
    if (first_error_.empty()) first_error_ = message;
  }

 private:
  std::string name_;
  std::string first_error_;
};

// The log line a formatter produces, exposed for tests.
std::string format_json_log(const std::string& level, const std::string& message, const std::string& time);

}  // namespace windowctl
