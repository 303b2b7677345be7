// persistent-programs: on sm_90a, a kernel whose program computes one tile
// (the example matmul: a K loop of tensor-core dots between the tile's
// coordinates and its store) becomes a persistent kernel: as many programs
// as the GPU holds at once, each looping over tiles, the loop marked
// flatten so that flatten-loops fuses it with the K loop and one ring of
// copies spans the tiles. A program then starts the next tile's copies
// during this tile's last products and epilogue instead of beginning each
// tile with an empty ring (on an H200 the example gained 0.87 -> 0.97 of
// cuBLAS at 4096x4096x2048, written so by hand; README).
//
// Requires: one optimised, inlined kernel; runs first of the GPU passes,
// before descriptors-from-pointers (which the change must leave serving
// every dot operand of the K loop on the copy engine: tried on a copy; a
// dot on mma.sync, whose loads that pass leaves as they are, so keeps one
// tile a program).
// Guarantees: a kernel whose body is
//   P  pure ops without regions (program ids, the tile's offsets)
//   I  one `for` loop (i32 counter, constant positive step, not marked
//      warp_specialize) with a dot that reads a load of pointers
//   E  ops after it (the epilogue), then `return`
// with no atomics, `while` loops, inline assembly or nested `return`
// (programs that could wait on each other, or leave early) and no
// device_print or device_assert (which name the program) anywhere, gets
// three i32 parameters after its own (ParamAttrs::gridAxis 0, 1, 2: the
// grid it was launched with, which the launcher passes; gpu_launch.cpp)
// and becomes
//   for t in [program_id(0), gx * gy * gz) step num_programs(0) {flatten}:
//     pid = (t % gx, t / gx % gy, t / gx / gy)
//     P, I, E with program_id(a) -> pid[a], num_programs(a) -> g[a]
//   return
// The emitter states the grid's parameters in the PTX header
// (tessera.persistent); the launcher runs min(gx * gy * gz, SMs x blocks
// per SM) programs along x. Only where the launcher is Tessera's runtime
// (Module::globalScratch; ahead-of-time launchers are not).
// Preserves: what each tile computes. Tiles run in order of t within a
// program, which independent programs cannot observe.
#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/tma.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

// Ops whose presence keeps one tile a program: programs that may depend on
// each other or leave early, and debugging output, which names the program
// running (device_print's pid, device_assert's block).
bool keepsOneTileAProgram(const Operation &op, const Block &body) {
  switch (op.code) {
    case OpCode::AtomicRmw:
    case OpCode::AtomicCas:
    case OpCode::While:
    case OpCode::InlineAsm:
    case OpCode::Print:
    case OpCode::Assert:
      return true;
    case OpCode::Return:
      return op.parent != &body;
    default:
      return false;
  }
}

// The op a dot operand is loaded by, through transposes and casts (null
// where it is a loop's carried value).
const Operation *loadedFrom(const Value *v) {
  const Operation *d = v->def;
  while (d && (d->code == OpCode::Permute || d->code == OpCode::Cast)) d = d->operand(0)->def;
  return d;
}

// Whether operand `i` of dot `op` is a tile of pointers' load.
bool readsLoad(const Operation &op, unsigned i) {
  const Operation *d = loadedFrom(op.operand(i));
  return d && d->code == OpCode::Load;
}

// The K loop of a one-tile kernel body, or null where the body does not
// have the shape this pass takes: the matmul loads its operands by pointers
// (kernels on tensor descriptors are left as written), and the loop's warp
// specialisation was not asked for (warp-specialize takes no fused loop;
// the unspecialised twin of a marked loop carries warp_specialize = 0).
Operation *tileLoop(Function &fn) {
  Block &body = fn.body;
  Operation *loop = nullptr;
  bool shared = false;
  for (auto &o : body.ops) {
    Operation *op = o.get();
    op->walk([&](Operation *inner) { shared = shared || keepsOneTileAProgram(*inner, body); });
    if (op->code == OpCode::Return) continue;
    if (op->code == OpCode::For && !loop) {
      loop = op;
    } else if (!loop && (!isPureOp(*op) || !op->regions.empty())) {
      return nullptr;  // P: pure ops only
    } else if (loop && isLoop(*op)) {
      return nullptr;  // a second loop
    }
  }
  if (shared || !loop || body.terminator() == nullptr ||
      body.terminator()->code != OpCode::Return || !passes::forYield(loop) ||
      !passes::i32Loop(*loop) || !passes::positiveConstantStep(*loop) ||
      loop->attr("warp_specialize"))
    return nullptr;
  bool dot = false;
  for (auto &o : loop->regions[0]->ops)
    dot = dot || (o->code == OpCode::Dot && (readsLoad(*o, 0) || readsLoad(*o, 1)));
  return dot ? loop : nullptr;
}

// Whether one of `m`'s dots reads an operand the copy engine will not load
// (a pointer load, or a descriptor load it cannot serve): a loop over tiles
// then costs more than it gains.
bool dotReadsOtherLoads(Module &m) {
  Function &fn = *m.functions[0];
  bool other = false;
  fn.walk([&](Operation *op) {
    if (op->code != OpCode::Dot) return;
    for (unsigned i = 0; i < 2; ++i) {
      const Operation *d = loadedFrom(op->operand(i));
      other = other || !d || d->code != OpCode::DescriptorLoad || !tmaMayServe(*d, fn, m);
    }
  });
  return other;
}

// Wraps fn's body (P, I, E) in the loop over tiles.
void makePersistent(Function &fn) {
  Block &body = fn.body;
  const Type i32 = Type::scalar(DType::I32);
  std::vector<Value *> grid;
  static const char *names[] = {"grid_x", "grid_y", "grid_z"};
  for (int a = 0; a < 3; ++a) {
    grid.push_back(body.addArg(i32, names[a]));
    ParamAttrs pa;
    pa.gridAxis = a;
    fn.paramAttrs.push_back(pa);
  }
  Operation *ret = body.terminator();
  Operation *first = body.ops.front().get();
  Builder b;
  b.setInsertionPointBefore(first);
  b.setLoc(first->loc);
  Value *start = b.op1(OpCode::ProgramId, {}, i32, {{"axis", int64_t{0}}});
  Value *launched = b.op1(OpCode::NumPrograms, {}, i32, {{"axis", int64_t{0}}});
  Value *total = b.op1(OpCode::Mul, {b.op1(OpCode::Mul, {grid[0], grid[1]}, i32), grid[2]}, i32);
  Operation *tiles =
      b.create(OpCode::For, {start, total, launched}, {}, {{"flatten", int64_t{1}}}, 1);
  Block &tb = *tiles->regions[0];
  Value *t = tb.addArg(i32, "tile");

  // Everything but the new ops and the return moves into the loop.
  std::vector<Operation *> moved;
  bool past = false;
  for (auto &o : body.ops) {
    past = past || o.get() == tiles;
    if (past && o.get() != tiles && o.get() != ret) moved.push_back(o.get());
  }
  Builder in(&tb);
  in.setLoc(fn.loc);
  Value *pid[3];
  pid[0] = in.op1(OpCode::Rem, {t, grid[0]}, i32);
  Value *rest = in.op1(OpCode::Div, {t, grid[0]}, i32);
  pid[1] = in.op1(OpCode::Rem, {rest, grid[1]}, i32);
  pid[2] = in.op1(OpCode::Div, {rest, grid[1]}, i32);
  Operation *yield = in.create(OpCode::Yield, {}, {});
  for (Operation *op : moved) passes::moveBefore(op, yield);

  // The tile's program ids and the grid it was launched with.
  std::vector<Operation *> ids;
  for (auto &o : tb.ops)
    o->walk([&](Operation *op) {
      if (op->code == OpCode::ProgramId || op->code == OpCode::NumPrograms) ids.push_back(op);
    });
  for (Operation *op : ids) {
    int64_t axis = op->intAttr("axis");
    if (axis < 0 || axis > 2) continue;  // the verifier refuses these
    replaceAllUsesWith(tb, op->result(), op->code == OpCode::ProgramId ? pid[axis] : grid[axis]);
    eraseOp(op);
  }
}

}  // namespace

void persistentPrograms(Module &m) {
  if (m.targetSm != 90 || !m.archSpecific || !m.globalScratch || m.functions.size() != 1) return;
  Function &fn = *m.functions[0];
  for (const ParamAttrs &pa : fn.paramAttrs)
    if (pa.gridAxis >= 0) return;  // already persistent
  if (!tileLoop(fn)) return;
  // Tried on a copy first: made persistent, do the K loop's dot operands
  // all load through the copy engine?
  std::unique_ptr<Module> trial = cloneModule(m);
  makePersistent(*trial->functions[0]);
  descriptorsFromPointers(*trial);
  if (dotReadsOtherLoads(*trial)) return;
  makePersistent(fn);
}

}  // namespace tessera::ptx
