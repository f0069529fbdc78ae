#include "apply.h"

#include <doctest/doctest.h>

using namespace windowctl;
using nlohmann::json;

TEST_CASE("an Event names the target asked for, whatever the answer says") {
  const Target t{"flux-system", "apps-rw"};
  const json own = {
      {"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}, {"uid", "u1"}, {"resourceVersion", "7"}}}};
  CHECK(
      event_subject(t, own) ==
      json{{"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}, {"uid", "u1"}, {"resourceVersion", "7"}}}});

  const json expected = {{"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}}}};
  // Another object's answer, a namespace that is a path, fields of the wrong type, no object:
  // the identity is the target's, and another object's uid/resourceVersion is not borrowed.
  for (const json& answer : {
           json{{"metadata",
                 {{"name", "infra"}, {"namespace", "flux-system"}, {"uid", "u2"}, {"resourceVersion", "9"}}}},
           json{{"metadata", {{"name", "apps-rw"}, {"namespace", "kube-system"}, {"uid", "u3"}}}},
           json{{"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system/events/x?dryRun=All"}}}},
           json{{"metadata", {{"name", 5}, {"namespace", json::object()}, {"uid", 1}}}},
           json{{"metadata", json::array({1, 2})}},
           json::array(),
           json("ok"),
           json(nullptr),
       }) {
    CHECK_MESSAGE(event_subject(t, answer) == expected, answer.dump());
  }
  // The target's own answer with a uid of the wrong type: that field alone is left out.
  const json odd = {
      {"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}, {"uid", 5}, {"resourceVersion", "8"}}}};
  CHECK(event_subject(t, odd) ==
        json{{"metadata", {{"name", "apps-rw"}, {"namespace", "flux-system"}, {"resourceVersion", "8"}}}});
}
