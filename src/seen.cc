#include "seen.h"

#include <random>

namespace windowctl {

namespace {

// splitmix64's finaliser: spreads FNV's weak low bits over the whole word.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

SeenSet::SeenSet() : key_((std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()) {}

std::uint64_t SeenSet::hash(std::string_view ns, std::string_view name) const {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ key_;
  auto add = [&h](unsigned char c) { h = (h ^ c) * 0x100000001b3ULL; };
  for (unsigned char c : ns) add(c);
  add(0);  // neither part can hold a NUL, so "a"+"bc" and "ab"+"c" differ
  for (unsigned char c : name) add(c);
  h = mix(h ^ key_);
  return h == 0 ? 1 : h;
}

void SeenSet::grow() {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, 0);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint64_t h : old) {
    if (h == 0) continue;
    std::size_t i = h & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = h;
  }
}

bool SeenSet::insert(std::string_view ns, std::string_view name) {
  // At most half full, so probes stay short and a free slot always exists.
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const std::uint64_t h = hash(ns, name);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    if (slots_[i] == h) return false;
    if (slots_[i] == 0) {
      slots_[i] = h;
      ++size_;
      return true;
    }
  }
}

}  // namespace windowctl
