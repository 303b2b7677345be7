// Memory ops of the interpreter: masked loads and stores, atomic
// read-modify-write and compare-and-swap on host memory.
//
// Every unmasked element is checked against the buffers passed to run():
// [addr, addr + size) must lie inside one of them. A per-op window caches the
// last buffer hit, so the check is one subtraction and one compare per
// element. A kernel that makes pointers from integers (a table of matrix
// addresses) may also reach any memory the process has mapped with the
// access it needs: that keeps the interpreter from faulting, but such
// pointers are not bounds-checked against one buffer (the GPU does not check
// them either). Atomics are real atomics (std::atomic_ref) because programs run
// concurrently and kernels build locks from them; max/min, float arithmetic
// and 8/16-bit elements go through CAS loops (on the element itself where the
// host has 8/16-bit CAS, else on the containing aligned 32-bit word).

// The element loops need GCC's full vectoriser (-O2 only vectorises loops
// whose trip count is known); clang vectorises them at -O2 already.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "interp/interp_impl.h"
#include "interp/interp_scalar.h"

namespace tessera::interp::detail {

namespace {

// The last buffer that held an access of `size` bytes: addresses a with
// a - lo < span are inside it. span == 0 means "no window yet". Loads search
// every buffer, stores and atomics only the writable ones.
// `mapped` is the process's memory for kernels that make pointers from
// integers (empty otherwise), tried after the buffers.
struct Checker {
  const std::vector<BufRange> &ranges;
  uint64_t size;
  const std::vector<BufRange> &mapped;
  uint64_t lo = 0, span = 0;

  bool ok(uint64_t a) { return a - lo < span || refill(a); }

  bool refill(uint64_t a) { return refillFrom(ranges, a) || refillFrom(mapped, a); }

  bool refillFrom(const std::vector<BufRange> &rs, uint64_t a) {
    uint64_t end = a + size;
    if (end < a) return false;
    for (const BufRange &r : rs) {
      if (r.lo <= a && end <= r.hi) {
        lo = r.lo;
        span = r.hi - r.lo - size + 1;
        return true;
      }
    }
    return false;
  }
};

}  // namespace

// Linux lists the process's mappings in /proc/self/maps. Pseudo-mappings
// ([vvar], [vsyscall], ...) and device files are left out: reading them can
// fault even where they are marked readable. Adjacent mappings with the same
// access merge, so the list stays short for the checker's linear search.
void readMappedMemory(std::vector<BufRange> &readable, std::vector<BufRange> &writable) {
  readable.clear();
  writable.clear();
#if defined(__linux__)
  std::FILE *maps = std::fopen("/proc/self/maps", "re");
  if (!maps) return;
  auto append = [](std::vector<BufRange> &v, uint64_t lo, uint64_t hi) {
    if (!v.empty() && v.back().hi == lo)
      v.back().hi = hi;
    else
      v.push_back({lo, hi, 0});
  };
  char line[4096];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {};
    int pathAt = 0;
    if (std::sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &lo, &hi, perms, &pathAt) < 3) continue;
    const char *path = pathAt > 0 ? line + pathAt : "";
    bool pseudo = path[0] == '[' && std::strncmp(path, "[heap]", 6) != 0 &&
                  std::strncmp(path, "[stack]", 7) != 0;
    if (pseudo || std::strncmp(path, "/dev/", 5) == 0 || perms[0] != 'r') continue;
    append(readable, lo, hi);
    if (perms[1] == 'w') append(writable, lo, hi);
  }
  std::fclose(maps);
#endif
}

namespace {

Checker readChecker(const Frame &f, uint64_t size) {
  return Checker{f.ctx->ranges, size, f.ctx->mappedReadable};
}
Checker writeChecker(const Frame &f, uint64_t size) {
  return Checker{f.ctx->writable, size, f.ctx->mappedWritable};
}

// A write into a buffer the caller marked read-only (a read-only NumPy array,
// bytes, a read-only mmap): refused before any byte of it changes.
[[noreturn]] void readOnlyWrite(const Frame &f, const Inst &in, const char *what,
                                const HostBuffer &b, uint32_t index) {
  std::string name = b.name.empty() ? "#" + std::to_string(index) : std::string(b.name);
  runtimeFail(f, in,
              std::string(what) + " to read-only buffer " + name + " in kernel " +
                  f.prog->fn->name + ": program " + programStr(f) +
                  " writes memory the caller passed as read-only",
              "pass a writable copy (e.g. numpy.array(x) or bytearray(x)), or do not store "
              "through this pointer");
}

[[noreturn]] void outOfBounds(const Frame &f, const Inst &in, const char *what, const char *verb,
                              uint64_t addr, uint64_t esize, int64_t lane) {
  const Ctx &c = *f.ctx;
  if (verb[0] != 'r')  // a write: inside a read-only buffer is its own error
    for (const BufRange &r : c.ranges)
      if (c.buffers[r.index].readOnly && r.lo <= addr && addr < r.hi)
        readOnlyWrite(f, in, what, c.buffers[r.index], r.index);
  // Name the buffer nearest to the address: the pointer was most likely
  // computed from it with a wrong offset.
  const BufRange *best = nullptr;
  uint64_t bestDist = UINT64_MAX;
  for (const BufRange &r : c.ranges) {
    uint64_t d = addr < r.lo ? r.lo - addr : (addr >= r.hi ? addr - r.hi : 0);
    if (d < bestDist) {
      bestDist = d;
      best = &r;
    }
  }
  std::string msg = std::string("out-of-bounds ") + what + " in kernel " + f.prog->fn->name +
                    ": program " + programStr(f);
  if (addr >= kOverflowedAddress) {
    msg += std::string(
        ": the pointer arithmetic overflowed the 64-bit address space (an offset far "
        "beyond any buffer)");
  } else if (best && bestDist <= std::max<uint64_t>(best->hi - best->lo, uint64_t(1) << 20)) {
    const HostBuffer &b = c.buffers[best->index];
    int64_t rel = static_cast<int64_t>(addr - best->lo);
    int64_t es = static_cast<int64_t>(esize);
    int64_t idx = rel >= 0 ? rel / es : -((-rel + es - 1) / es);
    std::string name = b.name.empty() ? "#" + std::to_string(best->index) : std::string(b.name);
    msg += std::string(" ") + verb + " element " + std::to_string(idx) + " of buffer " + name +
           " (" + std::to_string((best->hi - best->lo) / esize) + " elements)";
  } else {
    // An empty buffer has no range; a pointer computed from one still
    // deserves its name, not a raw address.
    const HostBuffer *empty = nullptr;
    size_t emptyIndex = 0;
    for (size_t i = 0; i < c.buffers.size(); ++i) {
      uint64_t lo = reinterpret_cast<uint64_t>(c.buffers[i].base);
      if (c.buffers[i].bytes == 0 && (addr >= lo ? addr - lo : lo - addr) <= (uint64_t{1} << 20)) {
        empty = &c.buffers[i];
        emptyIndex = i;
        break;
      }
    }
    if (empty) {
      int64_t rel = static_cast<int64_t>(addr - reinterpret_cast<uint64_t>(empty->base));
      int64_t es = static_cast<int64_t>(esize);
      int64_t idx = rel >= 0 ? rel / es : -((-rel + es - 1) / es);
      std::string name =
          empty->name.empty() ? "#" + std::to_string(emptyIndex) : std::string(empty->name);
      msg += std::string(" ") + verb + " element " + std::to_string(idx) + " of buffer " + name +
             ", which is empty (0 elements)";
    } else {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%" PRIx64, addr);
      msg += std::string(": address ") + hex + " is outside every buffer passed to the kernel";
      if (f.prog->makesPointers)
        msg += c.mappedReadable.empty()
                   ? " (the kernel makes pointers from integers; on this platform the "
                     "interpreter follows them only into buffers passed to the kernel)"
                   : std::string(" and outside the process's ") +
                         (verb[0] == 'r' ? "readable" : "writable") + " memory";
    }
  }
  const SlotInfo &p = f.info(in.in[0]);
  std::string hint = p.shape.empty()
                         ? std::string("the pointer")
                         : "element " + indexStr(p.shape, lane) + " of the pointer tile";
  hint += " is out of range; mask the access (e.g. mask=offsets < n) or fix the offsets";
  runtimeFail(f, in, msg, hint);
}

inline int64_t strideOf(const Frame &f, uint32_t operand, int64_t n) {
  return f.info(operand).numel == n ? 1 : 0;
}

// When p[i] == p[0] + i * sizeof(T) for all i and the whole range lies in one
// buffer, the start of that range; else null (the per-element path decides).
template <class T>
const T *contiguousInBounds(Checker whole, const uint64_t *__restrict p, int64_t n) {
  if (n < 4) return nullptr;
  uint64_t p0 = p[0], diff = 0;
  for (int64_t i = 0; i < n; ++i) diff |= p[i] ^ (p0 + static_cast<uint64_t>(i) * sizeof(T));
  if (diff != 0) return nullptr;
  return whole.refill(p0) ? reinterpret_cast<const T *>(p0) : nullptr;
}

template <class T>
void loadLoop(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  int64_t n = r.numel;
  const uint64_t *p = f.at<uint64_t>(in.in[0]);
  const uint8_t *mask = in.in.size() > 1 ? f.at<uint8_t>(in.in[1]) : nullptr;
  const T *other = in.in.size() > 2 ? f.at<T>(in.in[2]) : nullptr;
  int64_t sm = mask ? strideOf(f, in.in[1], n) : 0, so = other ? strideOf(f, in.in[2], n) : 0;
  T *o = f.at<T>(in.out[0]);
  if (const T *src =
          contiguousInBounds<T>(readChecker(f, static_cast<uint64_t>(n) * sizeof(T)), p, n)) {
    // The whole range is inside one buffer, so masked lanes may be read too:
    // branch-free loops the compiler vectorises.
    if (!mask) {
      std::memcpy(o, src, static_cast<size_t>(n) * sizeof(T));
    } else if (other) {
      for (int64_t i = 0; i < n; ++i) o[i] = mask[i * sm] ? src[i] : other[i * so];
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = mask[i * sm] ? src[i] : T(0);
    }
  } else if (!mask) {
    Checker ck = readChecker(f, sizeof(T));
    for (int64_t i = 0; i < n; ++i) {
      uint64_t a = p[i];
      if (!ck.ok(a)) [[unlikely]]
        outOfBounds(f, in, "load", "reads", a, sizeof(T), i);
      o[i] = loadBits<T>(reinterpret_cast<const void *>(a));
    }
  } else {
    Checker ck = readChecker(f, sizeof(T));
    for (int64_t i = 0; i < n; ++i) {
      if (!mask[i * sm]) {
        o[i] = other ? other[i * so] : T(0);
        continue;
      }
      uint64_t a = p[i];
      if (!ck.ok(a)) [[unlikely]]
        outOfBounds(f, in, "load", "reads", a, sizeof(T), i);
      o[i] = loadBits<T>(reinterpret_cast<const void *>(a));
    }
  }
  if (r.dtype == DType::I1)  // bool memory holds any byte; i1 values are 0/1
    for (int64_t i = 0; i < n; ++i) o[i] = o[i] != 0;
}

template <class T>
void storeLoop(Frame &f, const Inst &in) {
  const SlotInfo &ps = f.info(in.in[0]);
  int64_t n = ps.numel;
  const uint64_t *p = f.at<uint64_t>(in.in[0]);
  const T *v = f.at<T>(in.in[1]);
  int64_t sv = strideOf(f, in.in[1], n);
  const uint8_t *mask = in.in.size() > 2 ? f.at<uint8_t>(in.in[2]) : nullptr;
  int64_t sm = mask ? strideOf(f, in.in[2], n) : 0;
  if (T *dst = const_cast<T *>(
          contiguousInBounds<T>(writeChecker(f, static_cast<uint64_t>(n) * sizeof(T)), p, n))) {
    if (!mask && sv == 1) {
      std::memcpy(dst, v, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i)
        if (!mask || mask[i * sm]) dst[i] = v[i * sv];  // never touch masked-off lanes
    }
    return;
  }
  Checker ck = writeChecker(f, sizeof(T));
  for (int64_t i = 0; i < n; ++i) {
    if (mask && !mask[i * sm]) continue;
    uint64_t a = p[i];
    if (!ck.ok(a)) [[unlikely]]
      outOfBounds(f, in, "store", "writes", a, sizeof(T), i);
    T x = v[i * sv];
    std::memcpy(reinterpret_cast<void *>(a), &x, sizeof(T));
  }
}

// Float atomic max and min as the GPU runs them, on the bit patterns
// (emit_memory.cpp): a value whose sign bit is clear takes the signed
// integer op, one whose sign bit is set the opposite unsigned op. For
// numbers that is the float order with -0.0 below +0.0. A NaN orders by its
// bits too, as a positive one: the GPU's arithmetic makes NaNs with the sign
// bit clear (x86's default NaN has it set), so that is the NaN the two
// backends share.
template <class K>
typename K::S floatAtomicMaxMin(bool max, typename K::S old, typename K::S val) {
  using S = typename K::S;
  auto positiveNan = [](S x) { return std::isnan(K::get(x)) ? K::put(std::fabs(K::get(x))) : x; };
  old = positiveNan(old);
  val = positiveNan(val);
  using U = std::make_unsigned_t<std::conditional_t<
      std::is_floating_point_v<S>, std::conditional_t<sizeof(S) == 8, uint64_t, uint32_t>, S>>;
  using I = std::make_signed_t<U>;
  U o, v;
  std::memcpy(&o, &old, sizeof(S));
  std::memcpy(&v, &val, sizeof(S));
  U r;
  if (static_cast<I>(v) >= 0)
    r = max ? U(std::max(I(o), I(v))) : U(std::min(I(o), I(v)));
  else
    r = max ? std::min(o, v) : std::max(o, v);
  S out;
  std::memcpy(&out, &r, sizeof(S));
  return out;
}

// The new value of an RMW element of codec K.
template <class K>
typename K::S combine(Rmw kind, typename K::S old, typename K::S val) {
  switch (kind) {
    case Rmw::Add:
      return K::put(applyBin<K, Bin::Add>(K::get(old), K::get(val)));
    case Rmw::Max:
      if constexpr (K::isFloat) return floatAtomicMaxMin<K>(true, old, val);
      return K::put(applyBin<K, Bin::Max>(K::get(old), K::get(val)));
    case Rmw::Min:
      if constexpr (K::isFloat) return floatAtomicMaxMin<K>(false, old, val);
      return K::put(applyBin<K, Bin::Min>(K::get(old), K::get(val)));
    case Rmw::And:
      return K::put(applyBin<K, Bin::And>(K::get(old), K::get(val)));
    case Rmw::Or:
      return K::put(applyBin<K, Bin::Or>(K::get(old), K::get(val)));
    case Rmw::Xor:
      return K::put(applyBin<K, Bin::Xor>(K::get(old), K::get(val)));
    case Rmw::Xchg:
      return val;
  }
  return val;
}

template <class S>
using WordOf = std::conditional_t<sizeof(S) == 8, uint64_t, uint32_t>;

// Atomically replaces *addr by fn(*addr) (when fn returns true); returns the
// old value.
template <class S, class Fn>
S atomicUpdate(uint64_t addr, Fn fn) {
  // Native-width CAS where the host has it (x86 and ARM do for 8/16 bits),
  // so no byte outside the element is touched; else the containing word.
  using N = std::conditional_t<sizeof(S) == 1, uint8_t, uint16_t>;
  constexpr bool native = sizeof(S) >= 4 || std::atomic_ref<N>::is_always_lock_free;
  using W = std::conditional_t<sizeof(S) >= 4, WordOf<S>, std::conditional_t<native, N, uint32_t>>;
  if constexpr (native) {
    std::atomic_ref<W> ref(*reinterpret_cast<W *>(addr));
    W cur = ref.load();
    for (;;) {
      S old, nw;
      std::memcpy(&old, &cur, sizeof(S));
      if (!fn(old, nw)) return old;
      W next;
      std::memcpy(&next, &nw, sizeof(S));
      if (ref.compare_exchange_weak(cur, next)) return old;
    }
  } else {
    uint64_t waddr = addr & ~uint64_t(3);
    unsigned shift = static_cast<unsigned>(addr & 3) * 8;  // little-endian
    W mask = static_cast<W>((uint64_t(1) << (8 * sizeof(S))) - 1) << shift;
    std::atomic_ref<W> ref(*reinterpret_cast<W *>(waddr));
    W cur = ref.load();
    for (;;) {
      S old = static_cast<S>((cur & mask) >> shift), nw;
      if (!fn(old, nw)) return old;
      W next = (cur & ~mask) | (static_cast<W>(nw) << shift);
      if (ref.compare_exchange_weak(cur, next)) return old;
    }
  }
}

template <class K>
typename K::S rmwOne(Rmw kind, uint64_t addr, typename K::S val) {
  using S = typename K::S;
  if constexpr (!K::isFloat && sizeof(S) >= 4 && !std::is_same_v<K, BoolK>) {
    using U = std::make_unsigned_t<S>;
    std::atomic_ref<U> ref(*reinterpret_cast<U *>(addr));
    U v = static_cast<U>(val);
    switch (kind) {
      case Rmw::Add:
        return static_cast<S>(ref.fetch_add(v));
      case Rmw::And:
        return static_cast<S>(ref.fetch_and(v));
      case Rmw::Or:
        return static_cast<S>(ref.fetch_or(v));
      case Rmw::Xor:
        return static_cast<S>(ref.fetch_xor(v));
      case Rmw::Xchg:
        return static_cast<S>(ref.exchange(v));
      case Rmw::Max:
      case Rmw::Min:
        break;  // signed comparisons: the CAS loop below
    }
  }
  return atomicUpdate<S>(addr, [&](S old, S &nw) {
    nw = combine<K>(kind, old, val);
    return true;
  });
}

void checkAtomic(Frame &f, const Inst &in, Checker &ck, uint64_t a, uint64_t size, int64_t lane) {
  if (!ck.ok(a)) outOfBounds(f, in, in.op->info().mnemonic, "accesses", a, size, lane);
  if (a % size != 0)
    runtimeFail(f, in,
                std::string("misaligned ") + in.op->info().mnemonic + " in kernel " +
                    f.prog->fn->name + ": program " + programStr(f) + " accesses a " +
                    std::to_string(size) + "-byte element at an unaligned address",
                "atomics need naturally aligned addresses");
}

}  // namespace

void execLoad(Frame &f, const Inst &in) {
  withSize(f.info(in.out[0]).esize, [&](auto t) { loadLoop<decltype(t)>(f, in); });
}

void execStore(Frame &f, const Inst &in) {
  withSize(f.info(in.in[1]).esize, [&](auto t) { storeLoop<decltype(t)>(f, in); });
}

void execAtomicRmw(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  int64_t n = r.numel;
  Rmw kind = static_cast<Rmw>(in.sub);
  const uint64_t *p = f.at<uint64_t>(in.in[0]);
  const uint8_t *mask = in.in.size() > 2 ? f.at<uint8_t>(in.in[2]) : nullptr;
  int64_t sm = mask ? strideOf(f, in.in[2], n) : 0, sv = strideOf(f, in.in[1], n);
  withCodec(r.dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    const S *v = f.at<S>(in.in[1]);
    S *o = f.at<S>(in.out[0]);
    Checker ck = writeChecker(f, sizeof(S));
    for (int64_t i = 0; i < n; ++i) {  // row-major order, one element at a time
      if (mask && !mask[i * sm]) {
        o[i] = S(0);
        continue;
      }
      checkAtomic(f, in, ck, p[i], sizeof(S), i);
      o[i] = rmwOne<K>(kind, p[i], K::put(K::get(v[i * sv])));
    }
  });
}

void execAtomicCas(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  int64_t n = r.numel;
  const uint64_t *p = f.at<uint64_t>(in.in[0]);
  int64_t sc = strideOf(f, in.in[1], n), sv = strideOf(f, in.in[2], n);
  withSize(r.esize, [&](auto t) {
    using S = decltype(t);
    const S *cmp = f.at<S>(in.in[1]);
    const S *val = f.at<S>(in.in[2]);
    S *o = f.at<S>(in.out[0]);
    Checker ck = writeChecker(f, sizeof(S));
    for (int64_t i = 0; i < n; ++i) {
      checkAtomic(f, in, ck, p[i], sizeof(S), i);
      S c = cmp[i * sc], v = val[i * sv];
      // Compares bit patterns, as the hardware does.
      o[i] = atomicUpdate<S>(p[i], [&](S old, S &nw) {
        nw = v;
        return old == c;
      });
    }
  });
}

}  // namespace tessera::interp::detail
