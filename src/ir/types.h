// Tile IR types.
//
//   scalar   i32, f16, ...                       a single value per program
//   ptr      ptr<f32>, ptr<f16, 3>               address of an element; 1 = global, 3 = shared
//   tile     tile<128x64xf32>, tile<128xptr<f16>>, tile<64x64xf32, #mma0>
//            a static power-of-two shaped array of scalars or pointers, with an
//            optional layout attribute that GPU stages attach
//   memdesc  memdesc<64x64xf16, #swizzled0>      a tile held in shared memory (GPU stages)
//
// Types are small values compared by ==; the layout is an opaque name here,
// defined by the GPU code generator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

enum class DType : uint8_t {
#define DTYPE(E, ir, tri, sig, bits, cls) E,
#include "ir/dtypes.def"
};

enum class DClass : uint8_t { Bool, Signed, Unsigned, Float };

int bitWidth(DType t);
DClass dclass(DType t);
inline bool isFloat(DType t) {
  return dclass(t) == DClass::Float;
}
inline bool isInt(DType t) {
  return !isFloat(t);
}  // includes i1
inline bool isSigned(DType t) {
  return dclass(t) == DClass::Signed;
}
inline bool isUnsigned(DType t) {
  return dclass(t) == DClass::Unsigned;
}
// Any of the 8-bit float formats (float8e4nv, float8e5, float8e4b15, ...).
inline bool isFp8(DType t) {
  return isFloat(t) && bitWidth(t) == 8;
}
int byteSize(DType t);  // storage size in memory (i1 takes one byte)
// Whether integer `v` is a value of integer type `t` read as signed or as
// unsigned (-1 is a u8's 255): a kernel argument that is not is refused.
bool fitsIntType(DType t, int64_t v);
// `v` as a register of integer type `t` holds it: its low bits, sign-
// extended for signed types and zero-extended for the others.
int64_t wrapToIntType(DType t, int64_t v);
const char *irName(DType t);
const char *tritonName(DType t);
const char *signatureName(DType t);
std::optional<DType> dtypeFromIrName(std::string_view s);
std::optional<DType> dtypeFromTritonName(std::string_view s);
std::optional<DType> dtypeFromSignatureName(std::string_view s);

// A layout attribute name, interned in a process-wide table. The GPU stages
// give every tile value a layout, and a long kernel copies its types
// hundreds of thousands of times: as a string each copy allocated, and each
// layout-keyed lookup hashed some 70 characters (issue 13). Interned, a copy
// is a pointer copy, and two names are equal exactly when their pointers
// are. Names are never freed: a kernel has a handful, so the table stays
// small.
class LayoutName {
 public:
  LayoutName() = default;          // no layout
  LayoutName(std::string_view s);  // interns s
  LayoutName(const std::string &s) : LayoutName(std::string_view(s)) {}
  LayoutName(const char *s) : LayoutName(std::string_view(s)) {}

  bool empty() const { return name_ == nullptr; }
  const std::string &str() const;
  // The interned string's address: a stable key for hash maps.
  const std::string *key() const { return name_; }
  bool operator==(const LayoutName &) const = default;

 private:
  const std::string *name_ = nullptr;  // null for the empty name
};

struct Type {
  enum class Kind : uint8_t { Void, Scalar, Ptr, Tile, MemDesc };
  Kind kind = Kind::Void;
  DType dtype = DType::I32;  // Scalar: itself; Ptr: pointee; Tile/MemDesc: element (or its pointee)
  bool elemIsPtr = false;    // Tile: elements are pointers to dtype
  uint8_t addrSpace = 1;     // pointers (Ptr, or Tile with elemIsPtr)
  std::vector<int64_t> shape;  // Tile/MemDesc
  LayoutName layout;           // Tile/MemDesc: layout attribute name, empty when none

  static Type voidTy() { return {}; }
  static Type scalar(DType d);
  static Type ptr(DType pointee, int addrSpace = 1);
  // A tile whose elements have type `elem` (a Scalar or Ptr type).
  static Type tile(std::vector<int64_t> shape, const Type &elem);
  static Type memdesc(std::vector<int64_t> shape, DType d, LayoutName layout = {});

  bool isVoid() const { return kind == Kind::Void; }
  bool isScalar() const { return kind == Kind::Scalar; }
  bool isPtr() const { return kind == Kind::Ptr; }
  bool isTile() const { return kind == Kind::Tile; }
  bool isMemDesc() const { return kind == Kind::MemDesc; }
  // Scalar or Ptr type of one element (the type itself for Scalar and Ptr).
  Type element() const;
  // Same kind of container with another element type (keeps shape and layout).
  Type withElement(const Type &elem) const;
  // Tile of `shape` with this type's element (scalar/ptr when shape empty).
  Type withShape(std::vector<int64_t> shape) const;
  bool isPtrLike() const { return isPtr() || (isTile() && elemIsPtr); }
  bool isFloatLike() const { return !isPtrLike() && (isScalar() || isTile()) && isFloat(dtype); }
  bool isIntLike() const { return !isPtrLike() && (isScalar() || isTile()) && isInt(dtype); }
  int64_t numel() const;  // 1 for scalars
  int rank() const { return static_cast<int>(shape.size()); }

  bool operator==(const Type &) const = default;
  std::string str() const;  // textual IR spelling
};

}  // namespace tessera
