// WC016 of `windowctl check`: one object, two owners. An object that a windowed Kustomization and
// a real-time one both apply changes while the window is closed (the real-time one applies it),
// and the two undo each other's changes: the "same configuration in the live and maintenance
// windows" that the design this project comes from warns about. Two windowed Kustomizations with
// different windows make it change whenever either is open. Pure: the caller (check.cc, over
// what check read from the cluster) says which Kustomizations a window suspends and which window.
//
// What a Kustomization applies is its status.inventory, which kustomize-controller writes: no
// manifest has it, so the rule runs only against the cluster.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check.h"

namespace windowctl {

// One status.inventory.entries[].id. The format is kustomize-controller's (api/v1/inventory_types.go,
// ResourceRef.ID: "<namespace>_<name>_<group>_<kind>"), written by internal/inventory AddChangeSet
// with fluxcd/cli-utils' ObjMetadata.String() and read back by its ParseObjMetadata
// (pkg/object/objmetadata.go), which this mirrors: the namespace ends at the first '_' (a
// namespace has none; "" for a cluster-scoped object, so the id starts with '_'), the kind is
// after the last '_', the group (empty for the core group) before that, and the name is the rest,
// '_' included (RBAC names may hold one), with "__" read back as ':' (RBAC names' colons).
struct InventoryId {
  std::string ns, name, group, kind;
  bool operator==(const InventoryId&) const = default;
};

// nullopt where ParseObjMetadata fails, and where the name or kind is empty (no object has one).
std::optional<InventoryId> parse_inventory_id(std::string_view id);

// How many inventory entries check indexes in all: a bound on its memory (a hundred bytes or so
// each) whatever the cluster holds. Entries past it are named in a finding, never dropped silently.
inline constexpr std::size_t kMaxInventoryEntries = 100000;

// A Kustomization that check read, and whether (and by which jobs) a window suspends it: check's
// own notion of windowed (check.h), not one of this rule's.
struct Owner {
  std::string key;                       // Kustomization/ns/name
  const nlohmann::json* object;          // as read, with its status.inventory
  std::vector<std::string> windowed_by;  // the window jobs that suspend it; empty: real-time
};

// The window of owners[i], as one comparable text: equal texts, the same window. Asked only for
// windowed owners that share an object, so a check with nothing shared computes no window.
using WindowOf = std::function<std::string(std::size_t)>;

// WC016 findings, one per object shared: an error when a windowed and a real-time owner both
// apply it, a warning when windowed owners with different windows do; and a warning per
// Kustomization whose inventory is malformed (the entries that parse are still compared) or was
// cut at `cap`. Linear in the entries (a hash map from id to owners).
std::vector<Finding> shared_objects(const std::vector<Owner>& owners, const WindowOf& window_of,
                                    std::size_t cap = kMaxInventoryEntries);

// Offline there is no inventory: the one line check prints when its jobs window a Kustomization,
// whose shared objects only the cluster can show; "" when they window none.
std::string owners_offline_note(const std::vector<JobTargets>& jobs);

}  // namespace windowctl
