// Logs go to stderr: text for people, one JSON object per line for cluster log pipelines.
#pragma once

#include <string>

namespace windowctl {

enum class LogFormat { kText, kJson };

void setup_logging(LogFormat format, bool verbose);

// A line for people as kubectl writes it to stderr ("No resources found in x namespace."): bare
// with text logs, an info entry with JSON logs, so a log pipeline still reads one object a line.
void say(const std::string& message);

// The log line a formatter produces, exposed for tests.
std::string format_json_log(const std::string& level, const std::string& message, const std::string& time);

}  // namespace windowctl
