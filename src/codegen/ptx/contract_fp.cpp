// contract-fp: Triton's `enable_fp_fusion` launch option on the GPU.
//
// Requires: layouts assigned (the last GPU pass); Module::fpFusion set.
// Guarantees, with fusion on (the default): an fp32 or fp64 `add` (either
// operand order) of a value `c` and the result of a `mul` of the same type
// that has no other use, sits in the same block and neither is `precise`,
// becomes `fma(a, b, c)` at the add's place, with the mul's location (one
// rounding instead of two). With fusion off: every float add, sub and
// mul is marked `precise`, which the emitter writes with `.rn`, a rounding
// ptxas never contracts into an fma, so the GPU rounds every operation as
// the interpreter does.
// Preserves: every other op; op order otherwise; locations.
//
// Why explicit: ptxas contracts a `mul.f32` and an `add.f32` without a
// rounding modifier by itself, so fusion was already what ran; the `fma` in
// the PTX says so (Triton's tests read it), and turning fusion off needs
// the `.rn` marks. Other contractible pairs (a sub of a product) stay for
// ptxas to fuse.
#include "codegen/ptx/gpu_passes.h"
#include "ir/ir.h"

namespace tessera::ptx {
namespace {

bool isFusibleFloat(const Operation &op) {
  DType d = op.result(0)->type.dtype;
  return (d == DType::F32 || d == DType::F64) && !op.intAttr("precise");
}

class FmaContractor {
 public:
  explicit FmaContractor(Function &fn) : fn_(fn), uses_(countUses(fn)) {}

  void run() { contractIn(fn_.body); }

 private:
  // The add becomes the fma in place, with the mul's location, and the mul
  // (whose one use it was) goes: the add's result stays the result, so no
  // use needs rewriting.
  void contractIn(Block &b) {
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      Operation *op = (it++)->get();  // advance first: the mul erased is before op
      for (auto &r : op->regions) contractIn(*r);
      if (op->code != OpCode::Add || !isFusibleFloat(*op)) continue;
      for (unsigned i = 0; i < 2; ++i)
        if (Operation *mul = product(op, op->operand(i))) {
          op->code = OpCode::Fma;
          op->operands = {mul->operand(0), mul->operand(1), op->operand(1 - i)};
          op->loc = mul->loc;
          eraseOp(mul);
          break;
        }
    }
  }

  // The mul defining `v` when `add` may absorb it, else null.
  Operation *product(Operation *add, Value *v) {
    Operation *mul = v->def;
    if (!mul || mul->code != OpCode::Mul || mul->parent != add->parent) return nullptr;
    if (uses_.get(v) != 1 || !isFusibleFloat(*mul)) return nullptr;
    if (mul->result(0)->type != add->result(0)->type) return nullptr;
    return mul;
  }

  Function &fn_;
  PtrMap<const Value *, int> uses_;
};

void markRoundedSeparately(Function &fn) {
  fn.walk([](Operation *op) {
    bool arith = op->code == OpCode::Add || op->code == OpCode::Sub || op->code == OpCode::Mul;
    if (arith && op->results.size() == 1 && isFloat(op->result(0)->type.dtype))
      op->setAttr("precise", int64_t{1});
  });
}

}  // namespace

void contractFloatOps(Module &m) {
  for (auto &fn : m.functions) {
    if (m.fpFusion)
      FmaContractor(*fn).run();
    else
      markRoundedSeparately(*fn);
  }
}

}  // namespace tessera::ptx
