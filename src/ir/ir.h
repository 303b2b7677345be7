// Tile IR: typed SSA with structured regions.
//
//   Module    a list of Functions (after inlining, usually one kernel)
//   Function  name, a body Block whose arguments are the kernel parameters
//   Block     arguments and a list of Operations; every region is one Block
//   Operation an OpCode from ops.def, operands, results, attributes, nested
//             regions (for/if/while/reduce/scan bodies) and a source location
//   Value     an op result or a block argument; compared by identity
//
// There are no use lists: passes that rewrite uses walk the function
// (kernels are small), see replaceAllUsesWith().
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ir/types.h"
#include "support/node_pool.h"
#include "support/ptr_map.h"
#include "support/source.h"

namespace tessera {

enum class OpCode : uint16_t {
#define OP(E, mn, nops, nres, nreg, flags) E,
#include "ir/ops.def"
};

namespace opflags {
enum : unsigned {
  Pure = 1,
  Elementwise = 2,
  Commutative = 4,
  ReadsMem = 8,
  WritesMem = 16,
  Terminator = 32
};
}

struct OpInfo {
  const char *mnemonic;
  int numOperands;  // -1: variadic
  int numResults;   // -1: variadic
  int numRegions;
  unsigned flags;
};
const OpInfo &opInfo(OpCode c);
std::optional<OpCode> opCodeFromMnemonic(std::string_view s);
inline bool hasFlag(OpCode c, unsigned f) {
  return (opInfo(c).flags & f) != 0;
}

// Attribute values. Integers and booleans are int64; strings name enums
// (cache modifiers, predicates); int lists are shapes, orders and hints.
using Attr = std::variant<int64_t, double, std::string, std::vector<int64_t>, Type>;

struct NamedAttr {
  std::string name;
  Attr value;
};

class Operation;
class Block;

// A block's ops. The list nodes come from a pool, beside each other, as
// Operations do (support/node_pool.h): every walk steps through them.
using OpList = std::list<std::unique_ptr<Operation>, PoolAllocator<std::unique_ptr<Operation>>>;

class Value final {
 public:
  Type type;
  Operation *def = nullptr;  // defining op, or null for a block argument
  Block *owner = nullptr;    // block of a block argument
  unsigned index = 0;        // result number or argument number
  std::string nameHint;      // for printing (parameter names); may be empty

  // From a pool of Values (support/node_pool.h).
  static void *operator new(size_t size);
  static void operator delete(void *p);
};

class Block {
 public:
  std::vector<std::unique_ptr<Value>> args;
  OpList ops;
  Operation *parentOp = nullptr;  // null for a function body

  Value *addArg(Type t, std::string nameHint = {});
  Operation *terminator() const;  // last op if it is a terminator, else null
};

class Operation final {
 public:
  OpCode code;
  std::vector<Value *> operands;
  std::vector<std::unique_ptr<Value>> results;
  std::vector<std::unique_ptr<Block>> regions;
  std::vector<NamedAttr> attrs;  // kept sorted by name
  SourceLoc loc;
  Block *parent = nullptr;
  // Where this op sits in parent->ops, so that finding it is O(1) (a search
  // made passes quadratic in kernel length). Set when the op is inserted
  // (Builder::create, the IR parser); std::list::splice keeps it valid, so
  // moving ops between blocks needs no update. Meaningful while `linked`:
  // a buried op (passes::Graveyard) is no longer in any block.
  OpList::iterator self;
  bool linked = false;

  const OpInfo &info() const { return opInfo(code); }
  Value *result(unsigned i = 0) const { return results.at(i).get(); }
  Value *operand(unsigned i) const { return operands.at(i); }

  const Attr *attr(std::string_view name) const;
  void setAttr(std::string name, Attr value);
  void removeAttr(std::string_view name);
  int64_t intAttr(std::string_view name, int64_t dflt = 0) const;
  double floatAttr(std::string_view name, double dflt = 0) const;
  std::string strAttr(std::string_view name, std::string dflt = {}) const;
  std::vector<int64_t> intsAttr(std::string_view name) const;

  // Pre-order walk over this op and every op nested in its regions.
  void walk(const std::function<void(Operation *)> &fn);

  // From a pool of Operations (support/node_pool.h).
  static void *operator new(size_t size);
  static void operator delete(void *p);
};

struct ParamAttrs {
  // Specialisation facts about a kernel parameter, as Triton's: a pointer or
  // integer known divisible by `divisibility`, an integer known == 1.
  int64_t divisibility = 1;
  bool equalToOne = false;
  // A parameter the launcher fills with the size of the grid the kernel
  // was launched with along this axis (0, 1, 2): a persistent kernel's,
  // which runs fewer programs (persistent-programs); -1 for the kernel's own.
  int gridAxis = -1;
};

class Function {
 public:
  std::string name;
  Block body;
  std::vector<ParamAttrs> paramAttrs;  // one per body argument
  std::vector<Type> resultTypes;       // non-kernel functions only
  SourceLoc loc;

  void walk(const std::function<void(Operation *)> &fn);
};

class Module {
 public:
  std::vector<std::unique_ptr<Function>> functions;
  // Warps per program, for the GPU stages (layout assignment, PTX); a compile
  // option, not printed (tessera-opt takes --num-warps).
  int numWarps = 4;
  // Software pipelining depth of loops (pipeline-loads); a compile option
  // like numWarps (tessera-opt takes --num-stages).
  int numStages = 3;
  // The GPU's compute capability (80, 89, 90, ...) for the GPU stages: which
  // tensor-core instructions a dot may use (tessera-opt takes --target).
  int targetSm = 80;
  // The architecture-specific target (sm_90a): Hopper's wgmma may be used.
  bool archSpecific = false;
  // The launcher is Tessera's runtime: tensor maps may be built in the
  // kernel (a global scratch the launcher passes), and the kernel may be
  // persistent (the launcher passes the grid; persistent-programs).
  // Ahead-of-time launchers do neither.
  bool globalScratch = true;
  // Triton's enable_fp_fusion (contract-fp) and enable_reflect_ftz (exp2
  // flushes subnormal results to zero), GPU compile options.
  bool fpFusion = true;
  bool reflectFtz = true;
  Function *lookup(std::string_view name) const;
};

// Inserts new operations at a point in a block.
class Builder {
 public:
  Builder() = default;
  explicit Builder(Block *b) { setInsertionPointToEnd(b); }
  void setInsertionPointToEnd(Block *b) {
    block_ = b;
    point_ = b->ops.end();
  }
  void setInsertionPoint(Block *b, OpList::iterator it) {
    block_ = b;
    point_ = it;
  }
  // Before op `op` in its block.
  void setInsertionPointBefore(Operation *op);
  Block *block() const { return block_; }
  void setLoc(SourceLoc l) { loc_ = l; }
  SourceLoc loc() const { return loc_; }

  // The general entry point; the op gets the builder's current location.
  Operation *create(OpCode code, std::vector<Value *> operands, std::vector<Type> resultTypes,
                    std::vector<NamedAttr> attrs = {}, int numRegions = 0);
  // Single-result convenience.
  Value *op1(OpCode code, std::vector<Value *> operands, Type resultType,
             std::vector<NamedAttr> attrs = {}) {
    return create(code, std::move(operands), {std::move(resultType)}, std::move(attrs))->result();
  }
  Value *constInt(int64_t v, Type t) { return op1(OpCode::Constant, {}, t, {{"value", v}}); }
  Value *constFloat(double v, Type t) { return op1(OpCode::Constant, {}, t, {{"value", v}}); }

 private:
  Block *block_ = nullptr;
  OpList::iterator point_;
  SourceLoc loc_;
};

// Replaces every use of `from` inside `scope` (recursively) with `to`.
// Side effects of one op, for the passes that move or delete ops: the
// table's flags, except that an inline_asm says per call whether it is pure
// (tl.inline_asm_elementwise's is_pure), so a pure one reads and writes
// nothing and an impure one is neither CSE'd, hoisted nor deleted.
bool isPureOp(const Operation &op);
// A for or while loop (the ops whose body runs more than once).
inline bool isLoop(const Operation &op) {
  return op.code == OpCode::For || op.code == OpCode::While;
}
bool writesMemOp(const Operation &op);

void replaceAllUsesWith(Block &scope, Value *from, Value *to);
// Number of uses of each value in `fn`.
PtrMap<const Value *, int> countUses(Function &fn);
// Erases `op` from its parent block (its results must be unused).
void eraseOp(Operation *op);
// Deep copy of `src`'s ops into `dst` (at the end) with `mapping` applied to
// operands; results of copied ops are added to the mapping.
void cloneOpsInto(const Block &src, Block &dst,
                  std::unordered_map<const Value *, Value *> &mapping);
Operation *cloneOp(const Operation &op, Builder &b,
                   std::unordered_map<const Value *, Value *> &mapping);
// v's copy in a cloning's `mapping`, or v itself (defined outside what was
// cloned).
Value *mapped(const std::unordered_map<const Value *, Value *> &mapping, Value *v);
// A deep copy of `m` (functions, their arguments, ops and attributes).
std::unique_ptr<Module> cloneModule(const Module &m);
// A deep copy of one function.
std::unique_ptr<Function> cloneFunction(const Function &f);

}  // namespace tessera
