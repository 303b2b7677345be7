#include "ir/types.h"

#include <mutex>
#include <set>

namespace tessera {

namespace {
struct DTypeInfo {
  const char *ir, *triton, *sig;
  int bits;
  DClass cls;
};
constexpr DTypeInfo kInfo[] = {
#define DTYPE(E, ir, tri, sig, bits, cls) {ir, tri, sig, bits, DClass::cls},
#include "ir/dtypes.def"
};
constexpr int kNumDTypes = sizeof(kInfo) / sizeof(kInfo[0]);

template <class F>
std::optional<DType> lookup(std::string_view s, F field) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (s == field(kInfo[i])) return static_cast<DType>(i);
  return std::nullopt;
}
}  // namespace

int bitWidth(DType t) {
  return kInfo[static_cast<int>(t)].bits;
}
DClass dclass(DType t) {
  return kInfo[static_cast<int>(t)].cls;
}

bool fitsIntType(DType t, int64_t v) {
  const int w = bitWidth(t);
  if (w >= 64) return true;
  if (t == DType::I1) return v == 0 || v == 1;
  return v >= -(int64_t{1} << (w - 1)) && v < (int64_t{1} << w);
}

int64_t wrapToIntType(DType t, int64_t v) {
  const int w = bitWidth(t);
  if (w >= 64) return v;
  const uint64_t low = static_cast<uint64_t>(v) & ((uint64_t{1} << w) - 1);
  if (dclass(t) != DClass::Signed || !(low >> (w - 1))) return static_cast<int64_t>(low);
  return static_cast<int64_t>(low | ~((uint64_t{1} << w) - 1));
}

int byteSize(DType t) {
  return bitWidth(t) == 1 ? 1 : bitWidth(t) / 8;
}
const char *irName(DType t) {
  return kInfo[static_cast<int>(t)].ir;
}
const char *tritonName(DType t) {
  return kInfo[static_cast<int>(t)].triton;
}
const char *signatureName(DType t) {
  return kInfo[static_cast<int>(t)].sig;
}
std::optional<DType> dtypeFromIrName(std::string_view s) {
  return lookup(s, [](const DTypeInfo &i) { return i.ir; });
}
std::optional<DType> dtypeFromTritonName(std::string_view s) {
  return lookup(s, [](const DTypeInfo &i) { return i.triton; });
}
std::optional<DType> dtypeFromSignatureName(std::string_view s) {
  return lookup(s, [](const DTypeInfo &i) { return i.sig; });
}

LayoutName::LayoutName(std::string_view s) {
  if (s.empty()) return;
  // A std::set keeps each string at one address for good; the lock is for
  // programs that compile kernels on several threads at once.
  static std::mutex mu;
  static std::set<std::string, std::less<>> names;
  std::lock_guard<std::mutex> lock(mu);
  auto it = names.find(s);
  if (it == names.end()) it = names.emplace(s).first;
  name_ = &*it;
}

const std::string &LayoutName::str() const {
  static const std::string none;
  return name_ ? *name_ : none;
}

Type Type::scalar(DType d) {
  Type t;
  t.kind = Kind::Scalar;
  t.dtype = d;
  return t;
}

Type Type::ptr(DType pointee, int addrSpace) {
  Type t;
  t.kind = Kind::Ptr;
  t.dtype = pointee;
  t.addrSpace = static_cast<uint8_t>(addrSpace);
  return t;
}

Type Type::tile(std::vector<int64_t> shape, const Type &elem) {
  Type t;
  t.kind = Kind::Tile;
  t.dtype = elem.dtype;
  t.elemIsPtr = elem.isPtr();
  t.addrSpace = elem.addrSpace;
  t.shape = std::move(shape);
  return t;
}

Type Type::memdesc(std::vector<int64_t> shape, DType d, LayoutName layout) {
  Type t;
  t.kind = Kind::MemDesc;
  t.dtype = d;
  t.shape = std::move(shape);
  t.layout = layout;
  t.addrSpace = 3;
  return t;
}

Type Type::element() const {
  if (isScalar() || isPtr() || isVoid()) return *this;
  return elemIsPtr ? ptr(dtype, addrSpace) : scalar(dtype);
}

Type Type::withElement(const Type &elem) const {
  if (!isTile()) return elem;
  Type t = tile(shape, elem);
  t.layout = layout;
  return t;
}

Type Type::withShape(std::vector<int64_t> newShape) const {
  Type e = element();
  if (newShape.empty()) return e;
  return tile(std::move(newShape), e);
}

int64_t Type::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string Type::str() const {
  switch (kind) {
    case Kind::Void:
      return "void";
    case Kind::Scalar:
      return irName(dtype);
    case Kind::Ptr:
      return std::string("ptr<") + irName(dtype) +
             (addrSpace != 1 ? ", " + std::to_string(addrSpace) : std::string()) + ">";
    case Kind::Tile:
    case Kind::MemDesc: {
      std::string s = isTile() ? "tile<" : "memdesc<";
      for (int64_t d : shape) s += std::to_string(d) + "x";
      s += isTile() ? element().str() : irName(dtype);
      if (!layout.empty()) s += ", #" + layout.str();
      return s + ">";
    }
  }
  return "?";
}

}  // namespace tessera
