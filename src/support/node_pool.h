// A free-list allocator for one size of object, for the IR's nodes
// (Operation, Value) through their class-specific operator new/delete.
//
// Why: a long kernel has hundreds of thousands of ops and values, and every
// pass walks them all. From malloc they sit among their vectors' buffers and
// the strings of the pass that made them, so a walk touched many more cache
// lines and pages than the nodes take; malloc and free themselves were a
// seventh of the compile (issue 13). Here nodes of one kind sit side by side
// in 64 KiB chunks, and a freed node is reused by the next one.
//
// Chunks are kept for the life of the process, so memory held by the IR at
// its peak is not returned to the system, only reused. One lock guards the
// pool: IR may be built and freed on several threads.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>

namespace tessera {

class NodePool {
 public:
  explicit NodePool(size_t size) : size_((size + kAlign - 1) / kAlign * kAlign) {}

  void *allocate() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_) {
      FreeNode *n = free_;
      free_ = n->next;
      return n;
    }
    if (end_ - next_ < static_cast<std::ptrdiff_t>(size_)) {
      // Never freed (see above); a chunk holds several hundred nodes.
      next_ = static_cast<char *>(::operator new(kChunk, std::align_val_t(kAlign)));
      end_ = next_ + kChunk;
    }
    void *p = next_;
    next_ += size_;
    return p;
  }

  void deallocate(void *p) {
    std::lock_guard<std::mutex> lock(mu_);
    free_ = new (p) FreeNode{free_};
  }

 private:
  struct FreeNode {
    FreeNode *next;
  };
  static constexpr size_t kAlign = alignof(std::max_align_t);
  static constexpr size_t kChunk = 64 * 1024;

  std::mutex mu_;
  size_t size_;
  FreeNode *free_ = nullptr;
  char *next_ = nullptr, *end_ = nullptr;
};

// The allocator of a node-based container (the std::list of a block's ops)
// whose nodes come from a NodePool. Stateless: all allocators of one T share
// one pool and compare equal, so lists may splice ops between each other.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U> &) {}  // NOLINT: rebinding, as std::allocator

  T *allocate(size_t n) {
    return n == 1 ? static_cast<T *>(pool().allocate()) : std::allocator<T>().allocate(n);
  }
  void deallocate(T *p, size_t n) {
    if (n == 1)
      pool().deallocate(p);
    else
      std::allocator<T>().deallocate(p, n);
  }
  friend bool operator==(const PoolAllocator &, const PoolAllocator &) { return true; }

 private:
  // Never destroyed, as the IR's pools (ir.cpp).
  static NodePool &pool() {
    static NodePool &p = *new NodePool(sizeof(T));
    return p;
  }
};

}  // namespace tessera
