// Sema and lowering, shared by lower_*.cpp and builtins_*.cpp.
//
// The Lowerer walks the AST of a kernel the way Triton's code generator does:
// names are bound to semantic values (SVal) that are either compile-time
// Python values (ints, floats, dtypes, tuples, functions, modules) or runtime
// IR values (scalars and tiles). Arithmetic on two compile-time values is
// evaluated here with Python semantics; anything involving a runtime value
// emits Tile IR with Triton's type promotion and broadcasting. @jit callees
// are inlined at their call sites; `if` on a compile-time value lowers only
// the taken branch; tl.static_range loops are unrolled.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/frontend.h"
#include "ir/ir.h"
#include "support/diagnostics.h"

namespace tessera::frontend {

struct ModuleScope;

// The most statements one kernel may lower, unrolled loops and inlined
// calls included (see Lowerer::loweredStatements_): 5x the longest kernel
// compile time is measured on (bench/core.py), refused after about two
// seconds and 500 MB of IR.
inline constexpr int64_t kMaxLoweredStatements = int64_t{1} << 19;

// The one 128-bit value whose negation (and division by -1) overflows.
inline constexpr __int128 kInt128Min =
    static_cast<__int128>(static_cast<unsigned __int128>(1) << 127);

struct SVal {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    Str,
    DType,     // compile-time scalars
    Tuple,     // elems (any kinds)
    Tensor,    // v: a runtime scalar or tile
    Function,  // fn: a @jit function (def) in scope
    Builtin,   // s: qualified builtin name; elems[0] = bound self, if any
    Module,    // s: canonical module name ("tl", "triton", "libdevice")
    BlockPtr,  // elems: base, shape..., strides..., offsets...; ints: block shape; ints2: order
    // elems: base, shape... (i32), strides... (i64, the last the constant 1);
    // ints: block shape; ints2: {1 when out-of-bounds elements read NaN}
    TensorDesc,
    Slice,  // elems: lo, hi, step (None when absent)
    Ellipsis,
    ConstexprType,  // elems[0]: the value; constexpr_type(v), the .type of a constexpr
    // A namedtuple class (callable: builds a Tuple whose s is this s):
    // s: "Name(field,...)"; elems: the defaults of its last fields.
    TupleType,
  };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  std::string s;
  DType dtype = DType::I32;
  Value *v = nullptr;
  std::vector<SVal> elems;
  std::vector<int64_t> ints, ints2;
  const ast::Stmt *fn = nullptr;
  const ModuleScope *scope = nullptr;  // Function, host Module: where its globals resolve
  bool knownJit = false;               // Function: reached through a JitFunction global
  // Int: the value is static_cast<uint64_t>(i), in [2^63, 2^64). Python ints
  // are unbounded and Triton types such a constant uint64 (1 << 63,
  // 0xFFFFFFFFFFFFFFFF), so it must not read as a negative int64.
  bool u64 = false;
  // Int: the exact value `big` lies outside [-2^63, 2^64) and `i` is
  // meaningless. Python computes such an intermediate exactly ((1 << 64) - 1
  // is a uint64); only the arithmetic of one expression may hold it, and
  // Lowerer::expr refuses it as Triton's "Nonrepresentable integer" error.
  bool isBig = false;
  __int128 big = 0;
  // Bool, Int, Float: bound by a plain assignment (`x = 10`, `x += 1`),
  // which Triton lifts to a scalar tensor of the literal's dtype. Tessera
  // keeps the value a compile-time constant (so it still serves where a
  // constexpr is needed, where Triton would reject it), but its .type is
  // the tensor's dtype, as in Triton, not a constexpr_type.
  bool assigned = false;

  static SVal none() { return {}; }
  static SVal boolean(bool b) {
    SVal r;
    r.kind = Kind::Bool;
    r.i = b;
    return r;
  }
  static SVal integer(int64_t i) {
    SVal r;
    r.kind = Kind::Int;
    r.i = i;
    return r;
  }
  // An integer computed exactly: values in [2^63, 2^64) keep their sign as
  // u64; anything outside [-2^63, 2^64) is big (see isBig).
  static SVal wideInteger(__int128 v) {
    SVal r = integer(static_cast<int64_t>(static_cast<uint64_t>(v)));
    r.u64 = v > static_cast<__int128>(INT64_MAX) && v <= static_cast<__int128>(UINT64_MAX);
    if (v < static_cast<__int128>(INT64_MIN) || v > static_cast<__int128>(UINT64_MAX)) {
      r.isBig = true;
      r.big = v;
    }
    return r;
  }
  static SVal floating(double f) {
    SVal r;
    r.kind = Kind::Float;
    r.f = f;
    return r;
  }
  static SVal string(std::string s) {
    SVal r;
    r.kind = Kind::Str;
    r.s = std::move(s);
    return r;
  }
  static SVal dtypeVal(DType d) {
    SVal r;
    r.kind = Kind::DType;
    r.dtype = d;
    return r;
  }
  static SVal tensor(Value *v) {
    SVal r;
    r.kind = Kind::Tensor;
    r.v = v;
    return r;
  }
  static SVal tuple(std::vector<SVal> e) {
    SVal r;
    r.kind = Kind::Tuple;
    r.elems = std::move(e);
    return r;
  }
  static SVal builtin(std::string name) {
    SVal r;
    r.kind = Kind::Builtin;
    r.s = std::move(name);
    return r;
  }
  static SVal constexprType(SVal value) {
    value.assigned = false;
    SVal r;
    r.kind = Kind::ConstexprType;
    r.elems.push_back(std::move(value));
    return r;
  }
  static SVal module(std::string name) {
    SVal r;
    r.kind = Kind::Module;
    r.s = std::move(name);
    return r;
  }

  bool isNone() const { return kind == Kind::None; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isNumber() const { return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Float; }
  bool isIntLike() const { return kind == Kind::Bool || kind == Kind::Int; }
  // A compile-time value (no runtime part anywhere inside).
  bool isConst() const;
  double asDouble() const {
    if (kind == Kind::Float) return f;
    if (isBig) return static_cast<double>(big);
    return u64 ? static_cast<double>(static_cast<uint64_t>(i)) : static_cast<double>(i);
  }
  // The exact value of a Bool or Int.
  __int128 wide() const {
    if (isBig) return big;
    return u64 ? static_cast<__int128>(static_cast<uint64_t>(i)) : static_cast<__int128>(i);
  }
};

// A Module SVal whose name starts with this is a host module bound to the
// global named by the rest, in the unit of SVal::scope.
inline constexpr const char *kHostModulePrefix = "host:";

// A compile-time value handed to the compiler as an SVal.
SVal fromConst(const ConstValue &c);

// Python-ish description for messages: "int 3", "tensor<128xf32>", "tuple".
std::string describe(const SVal &v);

// The top-level names of one source unit: functions, constants, imports,
// and the globals that override them.
struct ModuleScope {
  const ast::Module *mod = nullptr;
  size_t unit = 0;                     // index into the Lowerer's units
  const GlobalMap *globals = nullptr;  // may be null
  std::map<std::string, SVal> names;
};

// Arguments bound to a builtin's declared parameters.
struct CallArgs {
  SourceLoc loc;                    // the call
  std::string name;                 // builtin name for messages ("tl.load")
  std::vector<std::string> params;  // declared names, in order
  std::vector<SVal> values;         // bound values (default applied)
  std::vector<SourceLoc> locs;      // where each came from (call loc for defaults)
  std::vector<bool> given;          // explicitly passed
  std::vector<SVal> varargs;        // for a "*args" parameter
  std::vector<SourceLoc> varargLocs;
  // For a "**kwargs" parameter: the keywords no other parameter takes.
  std::vector<std::pair<std::string, SVal>> extraKwargs;
  std::vector<SourceLoc> extraKwargLocs;

  int index(std::string_view p) const;
  const SVal &operator[](std::string_view p) const { return values[index(p)]; }
  SourceLoc locOf(std::string_view p) const { return locs[index(p)]; }
  bool has(std::string_view p) const { return given[index(p)]; }
};

class Lowerer;
using BuiltinFn = SVal (*)(Lowerer &, CallArgs &);

struct BuiltinDef {
  const char *name;  // canonical: "tl.load", "tensor.to", "triton.cdiv", "builtins.min"
  // Python-style parameters: "x", "axis=None", "*args", "keep_dims=False",
  // "**kwargs" (last).
  std::vector<const char *> params;
  BuiltinFn fn;
};

// All builtins, gathered from the builtins_*.cpp tables below.
const BuiltinDef *findBuiltin(std::string_view name);
std::vector<BuiltinDef> coreBuiltins();        // builtins_core.cpp
std::vector<BuiltinDef> reduceBuiltins();      // builtins_reduce.cpp
std::vector<BuiltinDef> shapeBuiltins();       // builtins_shape.cpp
std::vector<BuiltinDef> scanBuiltins();        // builtins_scan.cpp
std::vector<BuiltinDef> memoryBuiltins();      // builtins_memory.cpp
std::vector<BuiltinDef> dotScaledBuiltins();   // builtins_dot_scaled.cpp
std::vector<BuiltinDef> descriptorBuiltins();  // builtins_descriptor.cpp
std::vector<BuiltinDef> randomBuiltins();      // builtins_random.cpp
std::vector<BuiltinDef> debugBuiltins();       // builtins_debug.cpp
std::vector<BuiltinDef> libdeviceBuiltins();   // builtins_libdevice.cpp
std::vector<BuiltinDef> asmBuiltins();         // builtins_asm.cpp

class Lowerer {
 public:
  Lowerer(SourceManager &sm, const LowerOptions &opts, const std::vector<LowerUnit> &units)
      : sm_(sm), opts_(opts), units_(units), scopes_(units.size()) {}

  // Lowers kernel `name` of units[0].
  std::unique_ptr<Module> lowerKernel(const std::string &name, const std::vector<ArgSpec> &args);
  SVal descriptorParameter(Function &fn, const ast::Param &p, const std::string &name,
                           const ArgSpec &a);
  SVal parameterValue(Function &fn, const ast::Param &p, const std::string &name, const ArgSpec &a,
                      bool constexprParam, int depth);

  // ---- errors -----------------------------------------------------------------
  [[noreturn]] void error(SourceLoc loc, std::string msg, std::string hint = {}) const {
    fail(loc, std::move(msg), std::move(hint));
  }
  // A warning (support/diagnostics.h): kept once per location and message,
  // none from a dry run (its code may never be the kernel's).
  void warn(SourceLoc loc, std::string msg, std::string hint = {}) const {
    if (dryRun_ || !opts_.warnings) return;
    for (const Diagnostic &w : *opts_.warnings)
      if (w.loc.file == loc.file && w.loc.line == loc.line && w.loc.col == loc.col &&
          w.message == msg)
        return;
    opts_.warnings->push_back({loc, std::move(msg), std::move(hint)});
  }
  // A compile-time integer computed exactly: `v`, big when outside [-2^63,
  // 2^64) (see SVal::isBig). `overflowed`: the 128-bit computation itself
  // overflowed, Triton's "Nonrepresentable integer" error at once.
  SVal exactInteger(__int128 v, SourceLoc loc, bool overflowed = false) const;
  // Triton's "Nonrepresentable integer" error when `v` is a big integer: the
  // value leaves the arithmetic of its expression (the kernel's integers
  // have 64 bits).
  void requireRepresentable(const SVal &v, SourceLoc loc) const;

  // ---- expressions and statements ---------------------------------------------
  // The value of `e`, never a big integer (see SVal::isBig).
  SVal expr(const ast::Expr &e);
  // The value of `e` as an operand of compile-time arithmetic: may be big.
  SVal operand(const ast::Expr &e);
  SVal call(const SVal &callee, std::vector<SVal> args, std::vector<SourceLoc> argLocs,
            std::vector<std::pair<std::string, SVal>> kwargs, std::vector<SourceLoc> kwLocs,
            SourceLoc loc);
  // Inlines a @jit function; returns its return value (None when it returns nothing).
  // `finalFirst`: where to put the first parameter's value when the body
  // ends (an aggregate's __init__ leaves its `self` built there).
  SVal inlineFunction(const SVal &fn, std::vector<SVal> args,
                      std::vector<std::pair<std::string, SVal>> kwargs, SourceLoc loc,
                      SVal *finalFirst = nullptr);

  // ---- values -------------------------------------------------------------------
  // A runtime value for `v`: constants become `constant` ops with Triton's
  // literal typing (int -> i32/u32/i64/u64 by magnitude, float -> f32, bool -> i1),
  // or with dtype `want` when given.
  Value *toValue(const SVal &v, SourceLoc loc, std::optional<DType> want = std::nullopt);
  Value *constant(double f, const Type &t);
  Value *constantInt(int64_t i, const Type &t);
  // Element conversion (Triton's tl.cast): keeps the shape.
  Value *cast(Value *v, const Type &elem, SourceLoc loc, bool bitcast = false,
              const std::string &rounding = {});
  Value *castTo(Value *v, DType d, SourceLoc loc) { return cast(v, Type::scalar(d), loc); }
  // Scalar -> tile, or tile with size-1 dims -> larger tile.
  Value *broadcastTo(Value *v, const std::vector<int64_t> &shape, SourceLoc loc);
  // Numpy-style broadcast of two values to a common shape.
  void broadcastPair(Value *&a, Value *&b, SourceLoc loc);
  std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
                                       SourceLoc loc) const;
  // Triton's binary operators on SVals (constant folding for two compile-time values).
  SVal binary(ast::BinOp op, const SVal &a, const SVal &b, SourceLoc loc);
  SVal compare(ast::CmpOp op, const SVal &a, const SVal &b, SourceLoc loc);
  SVal unary(ast::UnaryOp op, const SVal &a, SourceLoc loc);
  // The common element dtype of two operands (Triton's computation_type_impl).
  DType promote(const SVal &a, const SVal &b, bool divOrMod, SourceLoc loc) const;
  DType dtypeOf(const SVal &v) const;  // element dtype of a tensor or literal

  // ---- compile-time values --------------------------------------------------------
  int64_t constInt(const SVal &v, SourceLoc loc, const std::string &what) const;
  bool constBool(const SVal &v, SourceLoc loc, const std::string &what) const;
  std::vector<int64_t> constInts(const SVal &v, SourceLoc loc, const std::string &what) const;
  DType constDType(const SVal &v, SourceLoc loc, const std::string &what) const;
  std::string constStr(const SVal &v, SourceLoc loc, const std::string &what) const;
  Value *tensorArg(const SVal &v, SourceLoc loc, const std::string &what);

  Builder &builder() { return b_; }
  SourceManager &sources() { return sm_; }
  const LowerOptions &options() const { return opts_; }
  bool dryRun() const { return dryRun_ > 0; }
  bool inConstexprFunction() const { return constexprFunctionDepth_ > 0; }

  // Emit helpers (set the location, create, return the single result).
  Value *emit(OpCode c, std::vector<Value *> operands, Type t, SourceLoc loc,
              std::vector<NamedAttr> attrs = {});

  // Triton's `tl.const` pointer parameters: whether `v` may be computed from
  // one (through pointer arithmetic, splats, selects, if and loop values),
  // and the error a store or atomic through such a pointer is.
  void markConstPointer(const Value *param) { constPointers_.insert(param); }
  bool fromConstPointer(const Value *v) const;
  void checkWritablePointer(const Value *ptr, SourceLoc loc, const std::string &what);

 private:
  friend struct StmtLowering;
  SourceManager &sm_;
  const LowerOptions &opts_;
  const std::vector<LowerUnit> &units_;
  Builder b_;
  std::map<std::string, SVal> *env_ = nullptr;
  const ModuleScope *scope_ = nullptr;
  std::vector<std::unique_ptr<ModuleScope>> scopes_;  // one per unit, built on first use
  int inlineDepth_ = 0;
  // Statements lowered so far, each unrolled iteration and inlined call
  // counted again: the budget that keeps nested tl.static_range loops and
  // calls that double per level (f(x, N - 1) + f(x, N - 1)) from running
  // out of memory or time.
  int64_t loweredStatements_ = 0;
  int dryRun_ = 0;
  int loopDepth_ = 0;  // loops enclosing the statement being lowered, in this function
  // 1 while lowering the body of a @constexpr_function: numbers bound by
  // assignment stay numbers and loops run at compile time (lower_control.cpp).
  int constexprFunctionDepth_ = 0;
  std::set<const Value *> constPointers_;   // tl.const parameters
  std::map<std::string, SVal> aggregates_;  // aggregate classes met, by "Name(field,...)"
  // The environments of the aggregate __init__ bodies being lowered: only
  // there may `self.field = value` run (see lower_aggregate.cpp).
  std::vector<const std::map<std::string, SVal> *> initEnvs_;
  bool nextCallIsInit_ = false;  // set by newAggregate for the inlineFunction it calls
  // The names the function being lowered declared `name: tl.constexpr`
  // (with a value or without): its later assignments keep them constexpr.
  std::set<std::string> *constexprNames_ = nullptr;

 public:
  // Statement lowering state (see lower_stmt.cpp).
  struct FlowResult {
    bool returned = false;  // every path through the statements returned
    bool exited = false;    // every path left the loop iteration (break/continue)
    std::vector<SVal> returnValues;
  };
  FlowResult lowerBody(const ast::Body &body, size_t from = 0);
  // Statements body[from..] still to run.
  struct Segment {
    const ast::Body *body;
    size_t from;
  };
  // What runs after the body being lowered, up to the end of the function
  // (empty inside loop bodies and at the top of an inlined callee). A run-time
  // `if` whose branches may return moves it into its branches, so returns
  // nested in ifs stay structured (lower_control.cpp).
  std::vector<Segment> &continuation() { return continuation_; }

 private:
  std::vector<Segment> continuation_;

 public:
  void lowerStmt(const ast::Stmt &s, const ast::Body &body, size_t index, FlowResult &flow,
                 bool &consumedRest);
  SVal lookupName(const std::string &name, SourceLoc loc);
  void assign(const ast::Expr &target, const SVal &value);
  // (name := value): binds the name as an assignment does; the value is the result.
  SVal namedExpr(const ast::Expr &e);
  // What an assignment binds to `target`: numbers marked as bound by
  // assignment (SVal::assigned), except for names declared tl.constexpr,
  // which must get compile-time values and stay constexpr.
  SVal bindingValue(const ast::Expr &target, SVal value);
  const ModuleScope *scopeForUnit(size_t unit);
  std::optional<SVal> globalValue(const ModuleScope &scope, const std::string &name, SourceLoc loc);
  // The value of a global handed to the compiler for `name`, used at `loc`.
  SVal globalOverride(const ModuleScope &scope, const Global &g, const std::string &name,
                      SourceLoc loc);
  SVal attribute(const SVal &obj, const std::string &name, SourceLoc loc);
  SVal subscript(const SVal &obj, const ast::Expr &index, SourceLoc loc);
  SVal listComprehension(const ast::Expr &e);
  SVal jitFunction(size_t unit, const std::string &function, const std::string &name,
                   SourceLoc loc);
  // A compile-time value handed to the compiler, its @jit functions
  // resolved (`name`: the global or argument it is, for messages).
  SVal constant(const ConstValue &c, const std::string &name, SourceLoc loc);
  SVal newNamedTuple(const SVal &type, const std::vector<SVal> &args,
                     const std::vector<std::pair<std::string, SVal>> &kwargs, SourceLoc loc);

  // ---- aggregates (triton.aggregate classes; lower_aggregate.cpp) -------------
  // A TupleType with i > 0 is an aggregate class: a namedtuple whose last
  // i - 1 elems are class attributes (STRING name, BOOL binds self, value).
  // Instances are Tuples whose s names the class, as namedtuples are.
  static size_t classAttributeCount(const SVal &type);
  // Remembers the aggregate classes in `v` (a constant handed in), so that
  // their instances find their methods.
  void registerAggregates(const SVal &v, SourceLoc loc);
  // The aggregate class of an instance or class named `s`, or nullptr.
  const SVal *aggregateClass(const std::string &s) const;
  // Attribute `name` of aggregate class `cls`: a method bound to `self`
  // when `self` is given and the method takes it.
  std::optional<SVal> classAttribute(const SVal &cls, const std::string &name,
                                     const SVal *self) const;
  // Cls(args): the class's __init__ run on an instance with no fields set.
  SVal newAggregate(const SVal &cls, std::vector<SVal> args,
                    std::vector<std::pair<std::string, SVal>> kwargs, SourceLoc loc);
  // `obj.field = value` where obj names an aggregate instance.
  void assignField(const ast::Expr &target, const SVal &value);
  // tl.aggregate_replace(obj, field=value, ...): a copy of the instance
  // `obj` with those fields changed.
  SVal replaceFields(const SVal &obj, SourceLoc objLoc,
                     const std::vector<std::pair<std::string, SVal>> &changes,
                     const std::vector<SourceLoc> &changeLocs);
  std::map<std::string, SVal> *env() { return env_; }
  void setEnv(std::map<std::string, SVal> *e) { env_ = e; }
  const ModuleScope *scope() const { return scope_; }
  void setScope(const ModuleScope *s) { scope_ = s; }
  int &loopDepth() { return loopDepth_; }
  struct DryRunGuard {
    Lowerer &l;
    explicit DryRunGuard(Lowerer &l) : l(l) { ++l.dryRun_; }
    ~DryRunGuard() { --l.dryRun_; }
  };
};

// Control flow lowering (lower_control.cpp).
void lowerIf(Lowerer &l, const ast::Stmt &s, const ast::Body &body, size_t index,
             Lowerer::FlowResult &flow, bool &consumedRest);
void lowerFor(Lowerer &l, const ast::Stmt &s);
// The values a compile-time iteration (a list comprehension, a for loop over
// a tuple) visits: a tuple's elements, or the integers of range() or
// tl.static_range() with constant bounds, at most `limit` of them; `what`
// names the construct in messages.
std::vector<SVal> compileTimeItems(Lowerer &l, const ast::Expr &iter, const std::string &what,
                                   int64_t limit);
// `a if c else b` with a run-time condition `cond` (c's value).
SVal lowerIfExp(Lowerer &l, const ast::Expr &e, const SVal &cond);
void lowerWhile(Lowerer &l, const ast::Stmt &s);
// `tl.multiple_of(x, 16)` (or max_contiguous, max_constancy, or such hints
// nested in one another) written as a statement: x, which the hint then
// annotates (Triton sets hints on the value itself, so the discarded result
// still counts); else null. Syntactic, so loops can count x among the names
// they reassign.
const ast::Expr *hintStatementTarget(const ast::Stmt &s);

// Flattening of structured values (tuples, block pointers) to IR values, for
// loop-carried values and if results.
// A tensor descriptor SVal (builtins_descriptor.cpp): shape i32 scalars,
// strides i64 scalars (the last the constant 1).
SVal descriptorValue(Value *base, const std::vector<Value *> &shape,
                     const std::vector<Value *> &strides, const std::vector<int64_t> &block,
                     bool nanPadding);
void flattenRuntime(const SVal &v, std::vector<Value *> &out);
SVal rebuildRuntime(const SVal &shape, const std::vector<Value *> &vals, size_t &pos);

}  // namespace tessera::frontend
