// Carrying out the decisions: per object a fresh decision (plan.h), one conditional merge patch,
// its Event, and for open --wait the readiness check. One failed target never stops the others.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client.h"
#include "commands.h"
#include "notify.h"
#include "output.h"
#include "plan.h"
#include "resolve.h"

namespace windowctl {

// What an Event names: the target (name, namespace), and the answer's uid and resourceVersion
// only when the answer is about that target.
nlohmann::json event_subject(const Target& target, const nlohmann::json& answer);

class Applier {
 public:
  Applier(Client& client, const CommandOptions& options, const Resolution& resolution)
      : client_(client), opt_(options), res_(resolution) {
    if (options.notify) notifier_.emplace(*options.notify, options.notify_timeout, options.client.user_agent);
  }

  // Decides on the object as read (again after a 409) and writes; the result says what
  // happened, including a write that landed before a later step failed.
  TargetResult apply(const Work& work, const PlanInput& input);

  // open --wait: polls the opened targets until Ready with the token handled, failed or timeout.
  void wait(std::vector<TargetResult>& results, const std::string& token);

 private:
  PlanInput input_for(const KindAdapter& kind, const nlohmann::json& object, const PlanInput& input) const;
  void record_event(const KindVersion& kind, const Target& target, const nlohmann::json& answer,
                    const Decision& decision);
  void notify_failed(const KindVersion& kind, const Target& target, const std::string& error);

  Client& client_;
  const CommandOptions& opt_;
  const Resolution& res_;  // the version of each kind
  std::string instance_;
  int writes_ = 0;
  std::optional<Notifier> notifier_;  // --notify
};

}  // namespace windowctl
