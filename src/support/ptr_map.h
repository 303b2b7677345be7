// Hash maps and sets keyed by pointers (Value *, Operation *), for the
// per-value tables the passes, the verifier and the code generators build
// over a whole kernel (use counts, substitutions, axis info, registers).
//
// Why not std::unordered_map: it allocates one node per entry and reaches it
// through a bucket, two dependent cache misses per lookup and a malloc/free
// per insert. On a kernel of 100k statements these tables hold hundreds of
// thousands of entries, far beyond the caches, and the node traffic made
// compile time grow faster than the kernel (issue 13). Here the entries sit
// in one array probed linearly from a multiplicative hash: one miss per
// lookup, one allocation per growth.
//
// Keys must not be null (null marks an empty slot). Iteration order is
// unspecified; nothing may depend on it. Inserting may move every entry, so
// a reference from operator[] or a pointer from find() is valid only until
// the next insertion.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

template <class K, class V>
class PtrMap {
  static_assert(std::is_pointer_v<K>, "PtrMap keys are pointers");

 public:
  struct Slot {
    K key = nullptr;
    // Takes no room for PtrSet's empty values: a set's slot is one pointer,
    // half the memory (and the cache misses) of a padded pair.
    [[no_unique_address]] V value{};
  };

  PtrMap() = default;
  explicit PtrMap(size_t expected) { reserve(expected); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    slots_.clear();
    size_ = 0;
  }
  // Room for `n` entries without growing.
  void reserve(size_t n) {
    size_t want = 16;
    while (want < 2 * n) want *= 2;  // load factor at most 1/2
    if (want > slots_.size()) rehash(want);
  }

  // The entry of `k`, value-initialised when absent.
  V &operator[](K k) { return slotFor(k).value; }
  // Inserts (k, v) unless `k` is present; true when inserted.
  bool insert(K k, V v) {
    size_t before = size_;
    Slot &s = slotFor(k);
    if (size_ == before) return false;
    s.value = std::move(v);
    return true;
  }
  V *find(K k) {
    if (size_ == 0) return nullptr;
    for (size_t i = home(k);; i = (i + 1) & mask()) {
      if (slots_[i].key == k) return &slots_[i].value;
      if (!slots_[i].key) return nullptr;
    }
  }
  const V *find(K k) const { return const_cast<PtrMap *>(this)->find(k); }
  bool contains(K k) const { return find(k) != nullptr; }
  size_t count(K k) const { return contains(k) ? 1 : 0; }
  // The value of `k`, or `dflt` when absent.
  V get(K k, V dflt = V{}) const {
    const V *v = find(k);
    return v ? *v : dflt;
  }

  // Removes `k`; true when it was present. Later entries of its probe run
  // shift back into the hole, so lookups never need tombstones.
  bool erase(K k) {
    if (size_ == 0) return false;
    size_t i = home(k);
    while (slots_[i].key != k) {
      if (!slots_[i].key) return false;
      i = (i + 1) & mask();
    }
    for (size_t j = (i + 1) & mask(); slots_[j].key; j = (j + 1) & mask()) {
      size_t h = home(slots_[j].key);
      // Entry j may fill hole i when its home is not in the cyclic range (i, j].
      bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      i = j;
    }
    slots_[i] = Slot{};
    --size_;
    return true;
  }

  // Calls fn(key, value) for every entry, in unspecified order.
  template <class F>
  void forEach(F &&fn) {
    for (Slot &s : slots_)
      if (s.key) fn(s.key, s.value);
  }

 private:
  size_t mask() const { return slots_.size() - 1; }
  size_t home(K k) const {
    // Fibonacci hashing: the low bits of a pointer are alignment zeros, the
    // high bits of the product mix every bit of it.
    uint64_t x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(k)) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x >> (64 - std::countr_zero(slots_.size())));
  }

  Slot &slotFor(K k) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    size_t i = home(k);
    while (slots_[i].key && slots_[i].key != k) i = (i + 1) & mask();
    if (!slots_[i].key) {
      slots_[i].key = k;
      ++size_;
    }
    return slots_[i];
  }

  void rehash(size_t n) {
    std::vector<Slot> old = std::move(slots_);
    slots_ = std::vector<Slot>(n);
    for (Slot &s : old) {
      if (!s.key) continue;
      size_t i = home(s.key);
      while (slots_[i].key) i = (i + 1) & mask();
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// A set of pointers (see PtrMap).
template <class K>
class PtrSet {
 public:
  PtrSet() = default;
  explicit PtrSet(size_t expected) : map_(expected) {}
  void reserve(size_t n) { map_.reserve(n); }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  // True when `k` was not in the set.
  bool insert(K k) { return map_.insert(k, Empty{}); }
  bool erase(K k) { return map_.erase(k); }
  bool contains(K k) const { return map_.contains(k); }
  size_t count(K k) const { return map_.count(k); }

 private:
  struct Empty {};
  PtrMap<K, Empty> map_;
};

}  // namespace tessera
