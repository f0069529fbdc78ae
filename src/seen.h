// Which objects a run has handled already, in 8 bytes each: a LIST restarted after its continue
// token expired (410) delivers the first pages again, a named target may also match the
// selector, and a hostile server may repeat items. Keeping ns/name strings for 100,000 objects
// would cost more than the rest of the run.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace windowctl {

class SeenSet {
 public:
  // The hash is keyed per process, so names chosen to collide cannot be prepared in advance.
  SeenSet();
  explicit SeenSet(std::uint64_t key) : key_(key) {}

  // True when namespace/name was not in the set (and now is).
  bool insert(std::string_view ns, std::string_view name);
  std::size_t size() const { return size_; }

 private:
  std::uint64_t hash(std::string_view ns, std::string_view name) const;
  void grow();

  std::uint64_t key_;
  std::vector<std::uint64_t> slots_;  // open addressing, linear probing; 0 marks an empty slot
  std::size_t size_ = 0;
};

}  // namespace windowctl
