// Compiles a Function into the interpreter's Program: dense value slots,
// per-op Insts with decoded attributes, and every check that the element
// loops rely on (operand dtypes, shapes, region signatures), so that IR the
// loops cannot run is rejected with a message before any program starts and
// the loops themselves never see an inconsistent op.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "interp/interp_impl.h"
#include "interp/interp_scalar.h"
#include "ir/descriptor_load.h"
#include "ir/op_groups.h"

namespace tessera::interp::detail {

std::string locPrefix(const RunOptions &opts, SourceLoc loc) {
  if (!opts.sources || !loc.known()) return {};
  const SourceFile *f = opts.sources->file(loc.file);
  if (!f) return {};
  return f->name + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": ";
}

std::string renderAt(const RunOptions &opts, SourceLoc loc, const std::string &message,
                     const std::string &hint) {
  Diagnostic d;
  d.loc = loc;
  d.message = message;
  d.hint = hint;
  if (opts.sources) return render(*opts.sources, d);
  SourceManager none;
  return render(none, d);
}

namespace {

constexpr int64_t kMaxTileElems = int64_t(1) << 26;
constexpr size_t kMaxFrameBytes = size_t(1) << 31;

class Compiler {
 public:
  Compiler(const Function &fn, const RunOptions &opts) : fn_(fn), opts_(opts) {
    prog_ = std::make_unique<Program>();
    prog_->fn = &fn;
  }

  std::unique_ptr<Program> run() {
    for (auto &a : fn_.body.args) addSlot(a.get(), nullptr);
    for (auto &op : fn_.body.ops) assignSlots(*op);
    prog_->blocks.emplace_back();
    compileBlock(fn_.body, 0);
    for (CBlock &b : prog_->blocks) {
      const Inst *t = b.insts.empty() ? nullptr : &b.insts.back();
      b.term = t && (t->code == OpCode::Yield || t->code == OpCode::Condition) ? t : nullptr;
    }
    return std::move(prog_);
  }

 private:
  [[noreturn]] void bad(const Operation *op, const std::string &msg) {
    std::string what = op ? std::string("'") + op->info().mnemonic + "': " : std::string();
    throw RuntimeError(
        renderAt(opts_, op ? op->loc : fn_.loc,
                 "the interpreter cannot run " + what + msg + " (in kernel " + fn_.name + ")",
                 "the IR is malformed; run the verifier on it to find the cause"));
  }

  void addSlot(const Value *v, const Operation *op) {
    if (!v) bad(op, "null value");
    if (slotOf_.count(v)) bad(op, "a value is defined twice");
    const Type &t = v->type;
    SlotInfo s;
    switch (t.kind) {
      case Type::Kind::Scalar:
      case Type::Kind::Ptr:
      case Type::Kind::Tile:
        break;
      case Type::Kind::Void:
      case Type::Kind::MemDesc:
        bad(op, "values of type " + t.str() + " exist only on the GPU");
    }
    s.dtype = t.dtype;
    s.isPtr = t.isPtrLike();
    s.esize = s.isPtr ? 8 : byteSize(t.dtype);
    if (t.isTile()) {
      if (t.shape.empty()) bad(op, "tile type " + t.str() + " has no dimensions");
      s.shape = t.shape;
      int64_t n = 1;
      for (int64_t d : t.shape) {
        if (d <= 0 || d > kMaxTileElems || n * d > kMaxTileElems)
          bad(op, "tile type " + t.str() + " has a bad or too large shape");
        n *= d;
      }
      s.numel = n;
    }
    size_t bytes = static_cast<size_t>(s.numel) * static_cast<size_t>(s.esize);
    s.offset = prog_->frameBytes;
    prog_->frameBytes += (bytes + 63) & ~size_t(63);
    if (prog_->frameBytes > kMaxFrameBytes) bad(op, "the kernel's tiles need more than 2 GiB");
    slotOf_[v] = static_cast<uint32_t>(prog_->slots.size());
    prog_->slots.push_back(std::move(s));
  }

  void assignSlots(const Operation &op) {
    for (auto &r : op.results) addSlot(r.get(), &op);
    for (auto &reg : op.regions) {
      if (!reg) bad(&op, "null region");
      for (auto &a : reg->args) addSlot(a.get(), &op);
      for (auto &o : reg->ops) assignSlots(*o);
    }
  }

  uint32_t slot(const Operation *op, const Value *v) {
    auto it = slotOf_.find(v);
    if (it == slotOf_.end()) bad(op, "an operand is not defined in this kernel");
    return it->second;
  }
  const SlotInfo &S(uint32_t s) const { return prog_->slots[s]; }

  uint32_t compileRegion(const Operation &op, int r) {
    uint32_t idx = static_cast<uint32_t>(prog_->blocks.size());
    prog_->blocks.emplace_back();
    compileBlock(*op.regions[r], idx);
    return idx;
  }

  void compileBlock(const Block &b, uint32_t idx) {
    CBlock cb;
    for (auto &a : b.args) cb.args.push_back(slot(nullptr, a.get()));
    for (auto &opp : b.ops) {
      const Operation &op = *opp;
      Inst in;
      in.code = op.code;
      in.op = &op;
      for (Value *v : op.operands) in.in.push_back(slot(&op, v));
      for (auto &r : op.results) in.out.push_back(slot(&op, r.get()));
      const OpInfo &info = op.info();
      if (info.numOperands >= 0 && static_cast<int>(op.operands.size()) != info.numOperands)
        bad(&op, "wrong number of operands");
      if (info.numResults >= 0 && static_cast<int>(op.results.size()) != info.numResults)
        bad(&op, "wrong number of results");
      if (info.numRegions != static_cast<int>(op.regions.size()))
        bad(&op, "wrong number of regions");
      for (size_t r = 0; r < op.regions.size(); ++r)
        in.regions.push_back(compileRegion(op, static_cast<int>(r)));
      bool once = decode(op, in);
      (once ? prog_->once : cb.insts).push_back(std::move(in));
    }
    prog_->blocks[idx] = std::move(cb);
  }

  // ---- checks ---------------------------------------------------------------------
  void sameElem(const Operation &op, uint32_t a, uint32_t b, const char *what) {
    if (S(a).dtype != S(b).dtype || S(a).isPtr != S(b).isPtr)
      bad(&op, std::string(what) + " have different element types");
  }
  // Elementwise operand: same numel as the result, or a single element.
  void ewOperand(const Operation &op, uint32_t operand, uint32_t result) {
    if (S(operand).numel != S(result).numel && S(operand).numel != 1)
      bad(&op, "operand and result shapes differ");
  }
  void sameBytes(const Operation &op, uint32_t a, uint32_t b, const char *what) {
    if (S(a).numel != S(b).numel || S(a).esize != S(b).esize || S(a).isPtr != S(b).isPtr ||
        (!S(a).isPtr && S(a).dtype != S(b).dtype))
      bad(&op, std::string(what) + " do not match in type");
  }
  void needInt(const Operation &op, uint32_t s, const char *what) {
    if (S(s).isPtr || isFloat(S(s).dtype)) bad(&op, std::string(what) + " must be an integer");
  }
  void needScalar(const Operation &op, uint32_t s, const char *what) {
    if (S(s).numel != 1 || !S(s).shape.empty()) bad(&op, std::string(what) + " must be a scalar");
  }
  // The terminator of region `r` (the block's last op) must be `code` with
  // `n` operands matching `types` slots byte for byte.
  const Operation *terminatorOf(const Operation &op, int r, OpCode code) {
    const Block &b = *op.regions[r];
    const Operation *t = b.ops.empty() ? nullptr : b.ops.back().get();
    if (!t || t->code != code)
      bad(&op, std::string("region ") + std::to_string(r) + " does not end in '" +
                   opInfo(code).mnemonic + "'");
    return t;
  }
  void matchList(const Operation &op, const std::vector<Value *> &vals, size_t first,
                 const std::vector<uint32_t> &slots, const char *what) {
    if (vals.size() - first != slots.size())
      bad(&op, std::string(what) + ": wrong number of values");
    for (size_t i = 0; i < slots.size(); ++i)
      sameBytes(op, slot(&op, vals[first + i]), slots[i], what);
  }
  std::vector<uint32_t> argSlots(const Operation &op, int r) {
    std::vector<uint32_t> v;
    for (auto &a : op.regions[r]->args) v.push_back(slot(&op, a.get()));
    return v;
  }
  int64_t axisAttr(const Operation &op, int rank) {
    int64_t ax = op.intAttr("axis", 0);
    if (ax < 0) ax += rank;
    if (ax < 0 || ax >= std::max(rank, 1)) bad(&op, "axis out of range");
    return ax;
  }
  static int predFrom(const Operation &op) {
    static const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    const Attr *a = op.attr("pred");
    if (a)
      if (auto *s = std::get_if<std::string>(a))
        for (int i = 0; i < 6; ++i)
          if (*s == names[i]) return i;
    if (a)
      if (auto *i = std::get_if<int64_t>(a))
        if (*i >= 0 && *i < 6) return static_cast<int>(*i);
    return -1;
  }

  void decodeReduceLike(const Operation &op, Inst &in, bool scan) {
    size_t n = op.operands.size();
    if (n == 0 || op.results.size() != n) bad(&op, "needs N operands and N results");
    const SlotInfo &x0 = S(in.in[0]);
    if (x0.shape.empty()) bad(&op, "operands must be tiles");
    in.a = axisAttr(op, x0.rank());
    for (size_t i = 0; i < n; ++i) {
      const SlotInfo &x = S(in.in[i]);
      const SlotInfo &r = S(in.out[i]);
      if (x.shape != x0.shape) bad(&op, "operands have different shapes");
      std::vector<int64_t> want = x.shape;
      if (!scan) want.erase(want.begin() + in.a);
      if (r.shape != want || r.dtype != x.dtype || r.isPtr != x.isPtr)
        bad(&op, "result " + std::to_string(i) + " does not match its operand");
    }
    const Block &body = *op.regions[0];
    if (body.args.size() != 2 * n) bad(&op, "the combine region needs 2N arguments");
    for (size_t i = 0; i < 2 * n; ++i) {
      const SlotInfo &a = S(slot(&op, body.args[i].get()));
      const SlotInfo &x = S(in.in[i % n]);
      if (a.numel != 1 || a.dtype != x.dtype || a.isPtr != x.isPtr)
        bad(&op, "combine region arguments must be scalars of the operands' element types");
    }
    const Operation *y = terminatorOf(op, 0, OpCode::Yield);
    std::vector<uint32_t> lhs(prog_->blocks[in.regions[0]].args.begin(),
                              prog_->blocks[in.regions[0]].args.begin() + n);
    matchList(op, y->operands, 0, lhs, "combine region yield");
    // Fast path: one binary op of the two arguments, yielded.
    in.flag = false;
    if (n == 1 && body.ops.size() == 2 && y->operands[0] == body.ops.front()->result(0)) {
      const Operation &c = *body.ops.front();
      bool argsOk = c.operands.size() == 2 && c.results.size() == 1 &&
                    ((c.operands[0] == body.args[0].get() && c.operands[1] == body.args[1].get()) ||
                     (c.operands[0] == body.args[1].get() && c.operands[1] == body.args[0].get()));
      int fast = c.code == OpCode::Add   ? int(Bin::Add)
                 : c.code == OpCode::Mul ? int(Bin::Mul)
                 : c.code == OpCode::Max ? int(Bin::Max)
                 : c.code == OpCode::Min ? int(Bin::Min)
                 : c.code == OpCode::And ? int(Bin::And)
                 : c.code == OpCode::Or  ? int(Bin::Or)
                 : c.code == OpCode::Xor ? int(Bin::Xor)
                                         : -1;
      bool bitwise = fast == int(Bin::And) || fast == int(Bin::Or) || fast == int(Bin::Xor);
      if (argsOk && fast >= 0 && !x0.isPtr && !(bitwise && isFloat(x0.dtype))) {
        in.flag = true;
        in.sub = static_cast<uint8_t>(fast);
        in.b = c.intAttr("propagate_nan", 0) != 0;
      }
    }
    // reverse lives in `ints` so that `flag` can mean "fast path".
    in.ints = {op.intAttr("reverse", 0) != 0 ? 1 : 0};
  }

  // Fills `in` for `op`; returns true when the op is run once per frame.
  bool decode(const Operation &op, Inst &in) {
    auto nIn = in.in.size();
    switch (op.code) {
      case OpCode::Constant: {
        const SlotInfo &r = S(in.out[0]);
        const Attr *v = op.attr("value");
        if (!v) bad(&op, "missing 'value'");
        if (auto *i = std::get_if<int64_t>(v)) {
          in.bits = r.isPtr ? static_cast<uint64_t>(*i) : constantBits(r.dtype, true, *i, 0);
        } else if (auto *d = std::get_if<double>(v)) {
          if (r.isPtr) bad(&op, "a pointer constant must be an integer");
          in.bits = constantBits(r.dtype, false, 0, *d);
        } else {
          bad(&op, "'value' must be an int or a float");
        }
        return true;
      }
      case OpCode::ProgramId:
      case OpCode::NumPrograms:
        needInt(op, in.out[0], "the result");
        in.a = op.intAttr("axis", 0);
        if (in.a < 0 || in.a > 2) bad(&op, "axis must be 0, 1 or 2");
        return false;
      case OpCode::Arange: {
        const SlotInfo &r = S(in.out[0]);
        in.a = op.intAttr("start", 0);
        int64_t end = op.intAttr("end", 0);
        needInt(op, in.out[0], "the result");
        if (r.rank() != 1 || end - in.a != r.numel) bad(&op, "result shape is not [end - start]");
        return true;
      }
      case OpCode::Splat:
        if (S(in.in[0]).numel != 1) bad(&op, "operand must be a scalar");
        sameElem(op, in.in[0], in.out[0], "operand and result");
        return false;
      case OpCode::Broadcast: {
        const SlotInfo &x = S(in.in[0]), &r = S(in.out[0]);
        sameElem(op, in.in[0], in.out[0], "operand and result");
        if (x.rank() > r.rank()) bad(&op, "operand has more dims than the result");
        int off = r.rank() - x.rank();
        for (int i = 0; i < x.rank(); ++i)
          if (x.shape[i] != 1 && x.shape[i] != r.shape[i + off])
            bad(&op, "operand dim " + std::to_string(i) + " cannot be broadcast");
        return false;
      }
      case OpCode::ExpandDims:
      case OpCode::Reshape:
      case OpCode::Hint:
      case OpCode::ConvertLayout:
        sameElem(op, in.in[0], in.out[0], "operand and result");
        if (S(in.in[0]).numel != S(in.out[0]).numel) bad(&op, "element counts differ");
        return false;
      case OpCode::Permute: {
        const SlotInfo &x = S(in.in[0]), &r = S(in.out[0]);
        sameElem(op, in.in[0], in.out[0], "operand and result");
        in.ints = op.intsAttr("order");
        if (static_cast<int>(in.ints.size()) != x.rank() || r.rank() != x.rank())
          bad(&op, "'order' must list every dim once");
        std::vector<int64_t> seen(x.rank(), 0);
        for (int i = 0; i < x.rank(); ++i) {
          int64_t o = in.ints[i];
          if (o < 0 || o >= x.rank() || seen[o]++) bad(&op, "'order' must list every dim once");
          if (r.shape[i] != x.shape[o]) bad(&op, "result shape does not match 'order'");
        }
        return false;
      }
      case OpCode::Join: {
        const SlotInfo &x = S(in.in[0]), &r = S(in.out[0]);
        sameBytes(op, in.in[0], in.in[1], "operands");
        sameElem(op, in.in[0], in.out[0], "operand and result");
        std::vector<int64_t> want = x.shape;
        want.push_back(2);
        if (r.shape != want) bad(&op, "result shape must be the operand shape x 2");
        return false;
      }
      case OpCode::Split: {
        const SlotInfo &x = S(in.in[0]);
        if (x.rank() < 1 || x.shape.back() != 2) bad(&op, "the minor dim must have size 2");
        std::vector<int64_t> want(x.shape.begin(), x.shape.end() - 1);
        for (uint32_t o : in.out) {
          sameElem(op, in.in[0], o, "operand and results");
          if (S(o).shape != want) bad(&op, "result shape must drop the minor dim");
        }
        return false;
      }
      case OpCode::Cat: {
        const SlotInfo &x = S(in.in[0]), &y = S(in.in[1]), &r = S(in.out[0]);
        sameElem(op, in.in[0], in.in[1], "operands");
        sameElem(op, in.in[0], in.out[0], "operand and result");
        if (x.rank() < 1 || x.rank() != y.rank() || r.rank() != x.rank() ||
            !std::equal(x.shape.begin() + 1, x.shape.end(), y.shape.begin() + 1) ||
            !std::equal(x.shape.begin() + 1, x.shape.end(), r.shape.begin() + 1) ||
            r.shape[0] != x.shape[0] + y.shape[0])
          bad(&op, "shapes do not concatenate along dim 0");
        return false;
      }
      case OpCode::Flip:
        sameBytes(op, in.in[0], in.out[0], "operand and result");
        if (S(in.in[0]).shape != S(in.out[0]).shape) bad(&op, "shapes differ");
        in.a = axisAttr(op, S(in.in[0]).rank());
        return false;
      case OpCode::Gather: {
        const SlotInfo &x = S(in.in[0]), &idx = S(in.in[1]), &r = S(in.out[0]);
        sameElem(op, in.in[0], in.out[0], "source and result");
        needInt(op, in.in[1], "the index");
        if (x.rank() < 1 || idx.shape != r.shape || idx.rank() != x.rank())
          bad(&op, "index and result must have the source's rank and the same shape");
        in.a = axisAttr(op, x.rank());
        for (int i = 0; i < x.rank(); ++i)
          if (i != in.a && idx.shape[i] > x.shape[i])
            bad(&op, "index dim " + std::to_string(i) + " is larger than the source's");
        return false;
      }
      case OpCode::Sort:
        sameBytes(op, in.in[0], in.out[0], "operand and result");
        if (S(in.in[0]).isPtr || S(in.in[0]).shape.empty()) bad(&op, "operand must be a tile");
        if (S(in.in[0]).shape != S(in.out[0]).shape) bad(&op, "shapes differ");
        in.a = axisAttr(op, S(in.in[0]).rank());
        in.flag = op.intAttr("descending", 0) != 0;
        return false;
      case OpCode::Histogram: {
        if (nIn < 1 || nIn > 2) bad(&op, "takes (values[, mask])");
        needInt(op, in.in[0], "the values");
        needInt(op, in.out[0], "the result");
        in.a = op.intAttr("bins", S(in.out[0]).numel);
        if (S(in.out[0]).rank() != 1 || S(in.out[0]).numel != in.a)
          bad(&op, "result must be tile<bins>");
        if (nIn == 2) {
          if (S(in.in[1]).dtype != DType::I1 || S(in.in[1]).isPtr) bad(&op, "mask must be i1");
          ewOperand(op, in.in[1], in.in[0]);
        }
        return false;
      }
      TESSERA_BINARY_CASES : {
        Bin b = op.code == OpCode::Add   ? Bin::Add
                : op.code == OpCode::Sub ? Bin::Sub
                : op.code == OpCode::Mul ? Bin::Mul
                : op.code == OpCode::Div ? Bin::Div
                : op.code == OpCode::Rem ? Bin::Rem
                : op.code == OpCode::And ? Bin::And
                : op.code == OpCode::Or  ? Bin::Or
                : op.code == OpCode::Xor ? Bin::Xor
                : op.code == OpCode::Shl ? Bin::Shl
                : op.code == OpCode::Shr ? Bin::Shr
                : op.code == OpCode::Max ? Bin::Max
                : op.code == OpCode::Min ? Bin::Min
                                         : Bin::Umulhi;
        in.sub = static_cast<uint8_t>(b);
        in.flag = op.intAttr("propagate_nan", 0) != 0;
        for (uint32_t s : in.in) {
          sameElem(op, s, in.out[0], "operands and result");
          ewOperand(op, s, in.out[0]);
        }
        if (S(in.out[0]).isPtr) bad(&op, "operands must not be pointers");
        bool intOnly = b == Bin::And || b == Bin::Or || b == Bin::Xor || b == Bin::Shl ||
                       b == Bin::Shr || b == Bin::Umulhi;
        if (intOnly) needInt(op, in.out[0], "the operands");
        return false;
      }
      case OpCode::Neg:
      case OpCode::Not:
      TESSERA_UNARY_MATH_CASES:
      case OpCode::Abs: {
        Un u = op.code == OpCode::Neg     ? Un::Neg
               : op.code == OpCode::Not   ? Un::Not
               : op.code == OpCode::Exp   ? Un::Exp
               : op.code == OpCode::Exp2  ? Un::Exp2
               : op.code == OpCode::Log   ? Un::Log
               : op.code == OpCode::Log2  ? Un::Log2
               : op.code == OpCode::Sqrt  ? Un::Sqrt
               : op.code == OpCode::Rsqrt ? Un::Rsqrt
               : op.code == OpCode::Sin   ? Un::Sin
               : op.code == OpCode::Cos   ? Un::Cos
               : op.code == OpCode::Abs   ? Un::Abs
               : op.code == OpCode::Erf   ? Un::Erf
               : op.code == OpCode::Floor ? Un::Floor
                                          : Un::Ceil;
        in.sub = static_cast<uint8_t>(u);
        sameElem(op, in.in[0], in.out[0], "operand and result");
        ewOperand(op, in.in[0], in.out[0]);
        if (S(in.out[0]).isPtr) bad(&op, "operand must not be a pointer");
        if (u == Un::Not) needInt(op, in.out[0], "the operand");
        bool math = u != Un::Neg && u != Un::Not && u != Un::Abs;
        if (math && !isFloat(S(in.out[0]).dtype)) bad(&op, "operand must be a float");
        return false;
      }
      case OpCode::Cmp: {
        int p = predFrom(op);
        if (p < 0) bad(&op, "'pred' must be one of eq, ne, lt, le, gt, ge");
        in.sub = static_cast<uint8_t>(p);
        sameElem(op, in.in[0], in.in[1], "operands");
        const SlotInfo &r = S(in.out[0]);
        if (r.isPtr || r.dtype != DType::I1) bad(&op, "result must be i1");
        for (uint32_t s : in.in) ewOperand(op, s, in.out[0]);
        return false;
      }
      case OpCode::Select: {
        const SlotInfo &c = S(in.in[0]);
        if (c.isPtr || c.dtype != DType::I1) bad(&op, "condition must be i1");
        for (uint32_t s : in.in) ewOperand(op, s, in.out[0]);
        sameElem(op, in.in[1], in.out[0], "operands and result");
        sameElem(op, in.in[2], in.out[0], "operands and result");
        return false;
      }
      case OpCode::Fma:
      case OpCode::Clamp:
        in.flag = op.intAttr("propagate_nan", 0) != 0;
        for (uint32_t s : in.in) {
          sameElem(op, s, in.out[0], "operands and result");
          ewOperand(op, s, in.out[0]);
        }
        if (S(in.out[0]).isPtr) bad(&op, "operands must not be pointers");
        return false;
      case OpCode::Cast:
        if (S(in.in[0]).numel != S(in.out[0]).numel) bad(&op, "element counts differ");
        in.flag = op.strAttr("rounding", "rtne") == "rtz";
        if (S(in.out[0]).isPtr && !S(in.in[0]).isPtr) prog_->makesPointers = true;
        return false;
      case OpCode::Bitcast: {
        const SlotInfo &x = S(in.in[0]), &r = S(in.out[0]);
        if (r.isPtr && !x.isPtr) prog_->makesPointers = true;
        int bx = x.isPtr ? 64 : bitWidth(x.dtype), br = r.isPtr ? 64 : bitWidth(r.dtype);
        if (x.numel != r.numel || bx != br) bad(&op, "bit widths or element counts differ");
        return false;
      }
      case OpCode::AddPtr:
        if (!S(in.in[0]).isPtr || !S(in.out[0]).isPtr) bad(&op, "needs a pointer operand");
        needInt(op, in.in[1], "the offset");
        for (uint32_t s : in.in) ewOperand(op, s, in.out[0]);
        return false;
      case OpCode::Load: {
        if (nIn < 1 || nIn > 3) bad(&op, "takes (ptr[, mask[, other]])");
        const SlotInfo &p = S(in.in[0]), &r = S(in.out[0]);
        if (!p.isPtr || r.isPtr || r.dtype != p.dtype || r.numel != p.numel)
          bad(&op, "result must be the pointee type in the pointer's shape");
        if (nIn >= 2 && (S(in.in[1]).isPtr || S(in.in[1]).dtype != DType::I1))
          bad(&op, "mask must be i1");
        if (nIn == 3) sameElem(op, in.in[2], in.out[0], "'other' and result");
        for (size_t i = 1; i < nIn; ++i) ewOperand(op, in.in[i], in.out[0]);
        return false;
      }
      case OpCode::Store: {
        if (nIn < 2 || nIn > 3) bad(&op, "takes (ptr, value[, mask])");
        const SlotInfo &p = S(in.in[0]), &v = S(in.in[1]);
        if (!p.isPtr || v.isPtr || v.dtype != p.dtype) bad(&op, "value must be the pointee type");
        if (nIn == 3 && (S(in.in[2]).isPtr || S(in.in[2]).dtype != DType::I1))
          bad(&op, "mask must be i1");
        for (size_t i = 1; i < nIn; ++i) ewOperand(op, in.in[i], in.in[0]);
        return false;
      }
      case OpCode::AtomicRmw:
      case OpCode::AtomicCas: {
        bool cas = op.code == OpCode::AtomicCas;
        if (!cas && (nIn < 2 || nIn > 3)) bad(&op, "takes (ptr, val[, mask])");
        const SlotInfo &p = S(in.in[0]), &r = S(in.out[0]);
        if (!p.isPtr || r.isPtr || r.dtype != p.dtype || r.numel != p.numel)
          bad(&op, "result must be the pointee type in the pointer's shape");
        for (size_t i = 1; i < nIn; ++i) {
          bool isMask = !cas && i == 2;
          if (isMask && (S(in.in[i]).isPtr || S(in.in[i]).dtype != DType::I1))
            bad(&op, "mask must be i1");
          if (!isMask) sameElem(op, in.in[i], in.out[0], "values and result");
          ewOperand(op, in.in[i], in.out[0]);
        }
        if (!cas) {
          static const char *kinds[] = {"add", "max", "min", "and", "or", "xor", "xchg"};
          std::string k = op.strAttr("kind");
          int idx = -1;
          for (int i = 0; i < 7; ++i)
            if (k == kinds[i]) idx = i;
          if (idx < 0) bad(&op, "'kind' must be add, max, min, and, or, xor or xchg");
          in.sub = static_cast<uint8_t>(idx);
          if (idx >= int(Rmw::And) && idx <= int(Rmw::Xor) && isFloat(r.dtype))
            bad(&op, "bitwise atomics need an integer type");
        }
        return false;
      }
      case OpCode::Dot: {
        if (op.operands.size() != 3)
          bad(&op,
              "the GPU back end's forms of dot (use_acc, prefetched operands) do not run here");
        const SlotInfo &A = S(in.in[0]), &B = S(in.in[1]), &Cc = S(in.in[2]), &R = S(in.out[0]);
        int rk = A.rank();
        if ((rk != 2 && rk != 3) || B.rank() != rk || Cc.rank() != rk || R.shape != Cc.shape)
          bad(&op, "operands must be [M,K] x [K,N] + [M,N] (or batched)");
        int o = rk - 2;
        if ((o && (B.shape[0] != A.shape[0] || Cc.shape[0] != A.shape[0])) ||
            A.shape[o + 1] != B.shape[o] || Cc.shape[o] != A.shape[o] ||
            Cc.shape[o + 1] != B.shape[o + 1])
          bad(&op, "operand shapes do not agree");
        if (A.isPtr || B.isPtr || Cc.isPtr || R.isPtr) bad(&op, "operands must be numbers");
        bool fa = isFloat(A.dtype), fb = isFloat(B.dtype), fc = isFloat(Cc.dtype);
        if (fa != fb || fa != fc || isFloat(R.dtype) != fa)
          bad(&op, "cannot mix integer and float operands");
        std::string p = op.strAttr("input_precision", "ieee");
        in.sub = static_cast<uint8_t>(p == "tf32"     ? DotPrec::Tf32
                                      : p == "tf32x3" ? DotPrec::Tf32x3
                                                      : DotPrec::Ieee);
        return false;
      }
      case OpCode::Reduce:
        decodeReduceLike(op, in, false);
        return false;
      case OpCode::Scan:
        decodeReduceLike(op, in, true);
        return false;
      case OpCode::MapElementwise: {
        in.a = op.intAttr("pack", 1);
        if (in.a < 1 || in.a > 64 || in.out.empty()) bad(&op, "needs results and 1 <= pack <= 64");
        int64_t numel = S(in.out[0]).numel;
        for (uint32_t s : in.in)
          if (S(s).numel != numel) bad(&op, "operands and results differ in shape");
        for (uint32_t s : in.out)
          if (S(s).numel != numel) bad(&op, "results differ in shape");
        const CBlock &body = prog_->blocks[in.regions[0]];
        if (body.args.size() != in.in.size() * static_cast<size_t>(in.a))
          bad(&op, "the region needs pack arguments per operand");
        for (size_t k = 0; k < body.args.size(); ++k)
          sameElem(op, in.in[k / in.a], body.args[k], "operands and region arguments");
        const Operation *y = terminatorOf(op, 0, OpCode::Yield);
        if (y->operands.size() != in.out.size() * static_cast<size_t>(in.a))
          bad(&op, "the region must yield pack values per result");
        for (size_t k = 0; k < y->operands.size(); ++k)
          sameElem(op, slot(&op, y->operands[k]), in.out[k / in.a], "yielded values and results");
        return false;
      }
      case OpCode::Philox: {
        needInt(op, in.in[0], "the seed");
        needInt(op, in.in[1], "the offset");
        in.a = op.intAttr("rounds", 10);
        if (in.a < 0 || in.a > 1000) bad(&op, "'rounds' out of range");
        for (uint32_t o : in.out) {
          if (S(o).isPtr || S(o).dtype != DType::U32) bad(&op, "results must be u32");
          ewOperand(op, in.in[0], o);
          ewOperand(op, in.in[1], o);
          if (S(o).numel != S(in.out[0]).numel) bad(&op, "results differ in shape");
        }
        return false;
      }
      case OpCode::Print:
        in.flag = op.intAttr("hex", 0) != 0;
        return false;
      case OpCode::Assert:
      case OpCode::Assume:
        if (S(in.in[0]).isPtr) bad(&op, "condition must be an integer");
        return false;
      case OpCode::Barrier:
        return false;
      case OpCode::InlineAsm:
        // A user error, not malformed IR: Triton's interpreter cannot run
        // inline assembly either.
        throw RuntimeError(renderAt(
            opts_, op.loc,
            "inline PTX assembly (tl.inline_asm_elementwise) runs only on the GPU back end; "
            "the CPU interpreter cannot execute it (in kernel " +
                fn_.name + ")",
            "launch the kernel on a CUDA device, or write the computation with tl operations "
            "when it must also run on the CPU"));
      case OpCode::ReadSreg: {
        std::string reg = op.strAttr("reg");
        if (reg != "smid" && reg != "globaltimer") bad(&op, "unknown special register");
        in.a = reg == "globaltimer";
        needInt(op, in.out[0], "the result");
        needScalar(op, in.out[0], "the result");
        return false;
      }
      case OpCode::DescriptorLoad:
      case OpCode::DescriptorStore:
        bad(&op, std::string(op.info().mnemonic) + " is expanded before the program is compiled");
      case OpCode::LocalAlloc:
      case OpCode::LocalDealloc:
      case OpCode::MemDescIndex:
      case OpCode::MemDescTrans:
      case OpCode::AsyncCopy:
      case OpCode::LocalStore:
      case OpCode::AsyncCommit:
      case OpCode::AsyncWait:
      case OpCode::BarrierAlloc:
      case OpCode::BarrierDealloc:
      case OpCode::TmaCopy:
      case OpCode::BarrierWait:
      case OpCode::BarrierArrive:
      case OpCode::TensormapCreate:
      case OpCode::WarpSpecialize:
        bad(&op,
            "it is a GPU code generator op (shared memory, asynchronous copies); the "
            "interpreter runs Tile IR from before the GPU passes");
      case OpCode::For: {
        if (nIn < 3) bad(&op, "takes (lb, ub, step, inits...)");
        for (int i = 0; i < 3; ++i) {
          needInt(op, in.in[i], "bounds and step");
          needScalar(op, in.in[i], "bounds and step");
        }
        const CBlock &body = prog_->blocks[in.regions[0]];
        if (body.args.size() != nIn - 2) bad(&op, "region needs (iv, iter args...)");
        if (S(body.args[0]).numel != 1 || S(body.args[0]).isPtr || isFloat(S(body.args[0]).dtype))
          bad(&op, "induction variable must be an integer scalar");
        std::vector<uint32_t> iters(body.args.begin() + 1, body.args.end());
        matchList(op, op.operands, 3, iters, "inits and iter args");
        matchList(op, terminatorOf(op, 0, OpCode::Yield)->operands, 0, iters, "yield");
        if (in.out.size() != iters.size()) bad(&op, "results must match iter args");
        for (size_t i = 0; i < iters.size(); ++i) sameBytes(op, iters[i], in.out[i], "results");
        return false;
      }
      case OpCode::If: {
        if (nIn != 1) bad(&op, "takes (cond)");
        needScalar(op, in.in[0], "the condition");
        needInt(op, in.in[0], "the condition");
        for (int r = 0; r < 2; ++r) {
          const Block &b = *op.regions[r];
          if (!argSlots(op, r).empty()) bad(&op, "regions take no arguments");
          if (in.out.empty() && (b.ops.empty() || b.ops.back()->code != OpCode::Yield)) continue;
          matchList(op, terminatorOf(op, r, OpCode::Yield)->operands, 0, in.out, "yield");
        }
        return false;
      }
      case OpCode::While: {
        std::vector<uint32_t> before = argSlots(op, 0), after = argSlots(op, 1);
        matchList(op, op.operands, 0, before, "inits and before-region arguments");
        const Operation *c = terminatorOf(op, 0, OpCode::Condition);
        if (c->operands.empty()) bad(&op, "'condition' needs a condition operand");
        uint32_t cs = slot(&op, c->operands[0]);
        needScalar(op, cs, "the condition");
        needInt(op, cs, "the condition");
        matchList(op, c->operands, 1, after, "condition values and after-region arguments");
        matchList(op, c->operands, 1, in.out, "condition values and results");
        matchList(op, terminatorOf(op, 1, OpCode::Yield)->operands, 0, before, "yield");
        return false;
      }
      case OpCode::Yield:
      case OpCode::Condition:
      case OpCode::Return:
        return false;
      case OpCode::Call:
        throw RuntimeError(renderAt(opts_, op.loc,
                                    "call to @" + op.strAttr("callee") + " was not inlined",
                                    "the interpreter runs kernels after inlining; inline the "
                                    "callee (the front end does this for @jit functions)"));
    }
    return false;
  }

  const Function &fn_;
  const RunOptions &opts_;
  std::unique_ptr<Program> prog_;
  std::unordered_map<const Value *, uint32_t> slotOf_;
};

}  // namespace

std::unique_ptr<Program> compileProgram(const Function &fn, const RunOptions &opts) {
  // A descriptor_load means the masked load it expands to: run that.
  if (!hasDescriptorLoads(fn)) return Compiler(fn, opts).run();
  std::unique_ptr<Function> expanded = cloneFunction(fn);
  expandDescriptorLoads(*expanded);
  std::unique_ptr<Program> prog = Compiler(*expanded, opts).run();
  prog->expanded = std::move(expanded);
  return prog;
}

}  // namespace tessera::interp::detail
