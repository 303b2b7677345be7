// The front end's entry point: from a parsed .py file and a kernel name plus
// its specialisation to a Tile IR module holding one kernel function.
//
// Specialisation follows Triton: each kernel parameter is a pointer (to an
// element dtype), a runtime scalar (i1..u64, f16..f64) or a compile-time value
// (a tl.constexpr parameter). Pointers and integers may carry the facts
// "divisible by 16" and (integers) "equal to 1". The lowered function keeps one
// argument per runtime parameter, in order; constexpr parameters disappear.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"

namespace tessera::frontend {

// A compile-time value handed to the compiler (a constexpr argument or a
// global constant resolved by the Python layer).
struct ConstValue {
  // DType: i = 1 for the pointer type to `dtype` (tl.pointer_type).
  // Builtin: s names a kernel-language function ("cuda.smid"), such as one
  // passed as a tl.constexpr argument.
  // TupleType: a namedtuple class, s its "Name(field,...)", elems the
  // defaults of its last fields. Function: the @jit function named s in
  // source unit i.
  enum class Kind { None, Bool, Int, Float, Str, DType, Tuple, Builtin, TupleType, Function };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  std::string s;  // Str, Builtin; Tuple: "" or a namedtuple's "Name(field,...)"
  DType dtype = DType::I32;
  std::vector<ConstValue> elems;

  static ConstValue none() { return {}; }
  static ConstValue boolean(bool b) {
    ConstValue v;
    v.kind = Kind::Bool;
    v.i = b;
    return v;
  }
  static ConstValue integer(int64_t i) {
    ConstValue v;
    v.kind = Kind::Int;
    v.i = i;
    return v;
  }
  static ConstValue floating(double f) {
    ConstValue v;
    v.kind = Kind::Float;
    v.f = f;
    return v;
  }
  static ConstValue string(std::string s) {
    ConstValue v;
    v.kind = Kind::Str;
    v.s = std::move(s);
    return v;
  }
  static ConstValue dtypeValue(DType d) {
    ConstValue v;
    v.kind = Kind::DType;
    v.dtype = d;
    return v;
  }
};

struct ArgSpec {
  // TensorDesc: a host TensorDescriptor; the kernel takes its base pointer,
  // then its shape (one i32 per dim), then its strides but the last (one i64
  // per dim; the last is 1 by the descriptor's contract).
  // Tuple: a tuple argument; the kernel takes its elements' arguments in
  // order, depth first (constexpr elements take none).
  enum class Kind { Pointer, Scalar, Constexpr, TensorDesc, Tuple };
  Kind kind = Kind::Scalar;
  DType dtype = DType::I32;                // Pointer, TensorDesc: pointee; Scalar: its type
  int64_t divisibility = 1;                // 16 when known divisible by 16 (bytes for pointers)
  bool equalToOne = false;                 // integer scalars known == 1
  ConstValue value;                        // Constexpr
  std::vector<int64_t> block;              // TensorDesc: the block shape
  bool nanPadding = false;                 // TensorDesc: out-of-bounds elements read NaN
  std::vector<int64_t> shapeDivisibility;  // TensorDesc: 16 or 1 per dim (empty: all 1)
  std::vector<ArgSpec> elems;              // Tuple
  std::string tupleType;                   // Tuple: "" or a namedtuple's "Name(field,...)"
};

// A namedtuple class as the host describes it: "Point(x,y)".
struct TupleType {
  std::string name;
  std::vector<std::string> fields;
};
// The class and fields of "Name(field,...)", or nullopt when it is not that
// shape of identifiers (distinct fields).
std::optional<TupleType> parseTupleType(const std::string &s);

// A global name visible to the functions of one source unit besides the
// unit's own top-level definitions (it wins over them): a constant, a module
// alias ("triton.language"), a @jit function of some unit, or a name the host
// language knows but a kernel cannot use (reported where it is used, quoting
// `description`).
struct Global {
  enum class Kind { Constant, ModuleAlias, JitFunction, Opaque };
  Kind kind = Kind::Constant;
  ConstValue value;         // Constant
  std::string module;       // ModuleAlias: dotted module path
  uint32_t unit = 0;        // JitFunction: index into the lowered units
  std::string function;     // JitFunction: its name in that unit
  std::string description;  // Opaque: what it is ("a Python function that is not @jit")
};

using GlobalMap = std::map<std::string, Global>;

// One parsed source text of a kernel. units[0] defines the kernel; each unit
// has its own module scope, so a callee's names resolve in its own unit.
struct LowerUnit {
  const ast::Module *module = nullptr;
  const GlobalMap *globals = nullptr;  // may be null: no globals
};

struct LowerOptions {
  bool debug = false;  // device_assert is kept only with debug
  int numWarps = 4;    // the launch's warps: tl.extra.cuda.num_warps() is a constexpr
  // Where the warnings go (each once per location and message); nullptr
  // drops them.
  std::vector<Diagnostic> *warnings = nullptr;
};

// Lowers kernel `name` of units[0]. `args` has one entry per kernel parameter
// (missing trailing entries take the parameter defaults, which must be
// constexpr). Throws CompileError on any user error.
std::unique_ptr<Module> lowerKernel(SourceManager &sm, const std::vector<LowerUnit> &units,
                                    const std::string &name, const std::vector<ArgSpec> &args,
                                    const LowerOptions &opts);
// The same for one file with no globals.
std::unique_ptr<Module> lowerKernel(SourceManager &sm, const ast::Module &mod,
                                    const std::string &name, const std::vector<ArgSpec> &args,
                                    const LowerOptions &opts);

// The qualified names of every builtin ("tl.load", "tensor.to",
// "builtins.min"), sorted; the same list on every call.
const std::vector<std::string> &builtinNames();

// Parses Triton's AOT signature syntax: "*fp32:16, *fp32, i32, 1024, i32:1".
// `*T` a pointer to T, `T` a scalar, `:16` divisibility, `:1` equal to one,
// a bare number (or True/False/None/quoted string/tl dtype) a constexpr,
// `tensordesc<T[B0, B1]>` a host TensorDescriptor of that block shape (then
// `:16`: base 16-byte aligned and every shape dim a multiple of 16; `:nan`:
// NaN padding).
// Throws CompileError (with no location) on a malformed entry.
std::vector<ArgSpec> parseSignature(const std::string &signature);

// Whether decorator `d` is @jit (`jit`, `triton.jit`, `tl.jit(...)`, any
// module's `jit`) or @constexpr_function, which the compiler inlines alike.
bool isJitDecorator(const ast::Expr &d);
// Whether decorator `d` is @constexpr_function (any module's).
bool isConstexprFunctionDecorator(const ast::Expr &d);

}  // namespace tessera::frontend
