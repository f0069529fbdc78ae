// Carrying out the decisions: per object a fresh decision (plan.h), one conditional merge patch,
// its Event, and for open --wait the readiness check. One failed target never stops the others.
#pragma once

#include <functional>
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

  // close --overrun: apply() puts aside (TargetResult::deferred) a target it would close while
  // Flux is in the middle of changing it (in_progress). This closes them, polling all of them in
  // one loop every --poll-interval: each once it settles, or when its overrun runs out (closed
  // anyway, said in the output and its Event). Each result goes to `done` as it is decided.
  void finish_overrun(const PlanInput& input, const std::function<void(const TargetResult&)>& done);

 private:
  // Where the window a sync or a scheduled open opens ends, for --cutoff.
  struct Opening {
    bool by_window = false;  // the window decided to open, no override
    std::optional<SysTime> closes;
    SysTime now;
  };
  PlanInput input_for(const KindAdapter& kind, const nlohmann::json& object, const PlanInput& input,
                      Opening* opening) const;
  void record_event(const KindVersion& kind, const Target& target, const nlohmann::json& answer,
                    const Decision& decision);
  void notify_failed(const KindVersion& kind, const Target& target, const std::string& error);

  Client& client_;
  const CommandOptions& opt_;
  const Resolution& res_;  // the version of each kind
  std::string instance_;
  int writes_ = 0;
  std::optional<Notifier> notifier_;  // --notify
  struct Deferred {
    Target target;
    std::string reason;  // what Flux is doing, as last read
    Clock::time_point since;
  };
  std::vector<Deferred> deferred_;
  // finish_overrun's target apply() closes now: no deferring again; `expired`: still in progress.
  const Deferred* finishing_ = nullptr;
  bool finishing_expired_ = false;
};

}  // namespace windowctl
