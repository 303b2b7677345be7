// The Tile IR verifier, structural half: operand/result/region counts from
// ops.def, terminators, the consistency of parent and definition pointers,
// and dominance (every operand is defined earlier in its block or in an
// enclosing one). Per-op type rules live in verifier_rules.cpp.
//
// Errors are collected (up to a limit) rather than thrown, so a tool can
// report every broken op of a file at once; an op that fails a structural
// check is not type-checked, which keeps the rules free of bounds checks.
#include "ir/verifier.h"

#include <unordered_set>

#include "ir/printer.h"
#include "ir/verifier_diagnostics.h"
#include "ir/verifier_rules.h"
#include "support/ptr_map.h"

namespace tessera {

namespace {

using verifier_detail::OpErrorSink;

// The allowed operand count of an op whose ops.def entry says -1.
struct CountRange {
  size_t min, max;
};
constexpr size_t kUnbounded = static_cast<size_t>(-1);

// Ops whose ops.def operand count is -1 have their own bounds here; a new
// variadic op gets {0, unbounded} until it is listed, and its type rule in
// verifier_rules.cpp (a switch with no default) must check the rest.
CountRange operandRange(OpCode code) {
  int fixed = opInfo(code).numOperands;
  if (fixed >= 0) return {static_cast<size_t>(fixed), static_cast<size_t>(fixed)};
  if (code == OpCode::Histogram) return {1, 2};
  if (code == OpCode::Dot) return {3, 6};
  if (code == OpCode::Load) return {1, 3};
  if (code == OpCode::Store || code == OpCode::AtomicRmw) return {2, 3};
  if (code == OpCode::Reduce || code == OpCode::Scan || code == OpCode::Condition ||
      code == OpCode::MapElementwise)
    return {1, kUnbounded};
  if (code == OpCode::For) return {3, kUnbounded};
  if (code == OpCode::If) return {1, 1};
  return {0, kUnbounded};
}

std::string describeRange(CountRange r) {
  if (r.min == r.max) return std::to_string(r.min);
  if (r.max == kUnbounded) return "at least " + std::to_string(r.min);
  return std::to_string(r.min) + " to " + std::to_string(r.max);
}

// Which terminator ends region `index` of `code`.
OpCode expectedTerminator(OpCode code, size_t index) {
  return code == OpCode::While && index == 0 ? OpCode::Condition : OpCode::Yield;
}

class FunctionVerifier : public OpErrorSink {
 public:
  FunctionVerifier(const Function &f, const Module *module, size_t maxErrors,
                   std::vector<Diagnostic> &out)
      : fn_(f), module_(module), maxErrors_(maxErrors), out_(out) {}

  void run() {
    if (!fn_.paramAttrs.empty() && fn_.paramAttrs.size() != fn_.body.args.size())
      report(fn_.loc, "function @" + fn_.name + " has " + std::to_string(fn_.paramAttrs.size()) +
                          " parameter attribute entries for " +
                          std::to_string(fn_.body.args.size()) + " parameters");
    for (size_t i = 0; i < fn_.paramAttrs.size(); ++i)
      if (fn_.paramAttrs[i].divisibility < 1)
        report(fn_.loc, "function @" + fn_.name + ": parameter #" + std::to_string(i) +
                            " has divisibility " + std::to_string(fn_.paramAttrs[i].divisibility) +
                            "; it must be >= 1");
    // A persistent kernel's grid (persistent-programs): three i32 parameters
    // for axes 0, 1, 2, last, where the launcher passes them.
    for (size_t i = 0; i < fn_.paramAttrs.size() && i < fn_.body.args.size(); ++i) {
      int axis = fn_.paramAttrs[i].gridAxis;
      if (axis < 0) continue;
      size_t want = fn_.body.args.size() - 3 + static_cast<size_t>(axis);
      if (fn_.body.args.size() < 3 || i != want ||
          !(fn_.body.args[i]->type == Type::scalar(DType::I32)))
        report(fn_.loc, "function @" + fn_.name + ": parameter #" + std::to_string(i) +
                            " has grid_axis " + std::to_string(axis) +
                            "; the grid's parameters are the last three, i32, axes 0, 1, 2");
    }
    for (const Type &t : fn_.resultTypes)
      if (std::string problem = verifier_detail::checkValueType(t); !problem.empty())
        report(fn_.loc, "function @" + fn_.name + " result type: " + problem);
    // Most values are results of top-level ops: growing the set from empty
    // would rehash it a dozen times on a long kernel.
    seen_.reserve(fn_.body.args.size() + fn_.body.ops.size());
    openBlocks_.push_back(&fn_.body);
    for (const auto &arg : fn_.body.args) defineBlockArg(*arg, fn_.body, fn_.loc);
    if (fn_.body.parentOp) report(fn_.loc, "function body must not have a parent op");
    verifyBlock(fn_.body);
    checkRegionEnd(fn_.body, nullptr, 0);
  }

  void error(const Operation &op, std::string message) override {
    report(op.loc, std::move(message));
  }

 private:
  void report(SourceLoc loc, std::string message) {
    if (out_.size() >= maxErrors_) return;
    Diagnostic d;
    d.loc = loc;
    d.message = std::move(message);
    out_.push_back(std::move(d));
  }

  void defineBlockArg(const Value &arg, const Block &owner, SourceLoc loc) {
    if (arg.def || arg.owner != &owner)
      report(loc, "block argument #" + std::to_string(arg.index) + " does not point to its block");
    if (std::string problem = verifier_detail::checkValueType(arg.type); !problem.empty())
      report(loc, "block argument #" + std::to_string(arg.index) + ": " + problem);
    define(&arg);
  }

  void verifyBlock(const Block &block) {
    for (auto it = block.ops.begin(); it != block.ops.end(); ++it) {
      const Operation &op = **it;
      bool isLast = std::next(it) == block.ops.end();
      verifyOp(op, block, isLast);
    }
  }

  void verifyOp(const Operation &op, const Block &block, bool isLast) {
    const char *name = op.info().mnemonic;
    bool structureOk = true;
    if (op.parent != &block) {
      error(op, std::string(name) + ": the op's parent pointer does not name its block");
    }
    if (hasFlag(op.code, opflags::Terminator) && !isLast) {
      error(op, std::string("'") + name + "' must be the last op of its region");
    }
    // Counts.
    CountRange operands = operandRange(op.code);
    if (op.operands.size() < operands.min || op.operands.size() > operands.max) {
      error(op, std::string(name) + ": expected " + describeRange(operands) + " operand(s), got " +
                    std::to_string(op.operands.size()));
      structureOk = false;
    }
    int results = op.info().numResults;
    if (results >= 0 && op.results.size() != static_cast<size_t>(results)) {
      error(op, std::string(name) + ": expected " + std::to_string(results) + " result(s), got " +
                    std::to_string(op.results.size()));
      structureOk = false;
    }
    if (op.regions.size() != static_cast<size_t>(op.info().numRegions)) {
      error(op, std::string(name) + ": expected " + std::to_string(op.info().numRegions) +
                    " region(s), got " + std::to_string(op.regions.size()));
      structureOk = false;
    }
    // Operands: present and dominating this use.
    // (The message is built only on failure: this loop sees every operand
    // of the kernel after every pass.)
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Value *v = op.operands[i];
      if (v && dominates(v)) continue;
      std::string which = std::string(name) + ": operand #" + std::to_string(i);
      if (!v) {
        error(op, which + " is null");
      } else {
        error(op, which + (seen_.contains(v) ? " is defined inside a region that does not "
                                               "enclose this use"
                                             : " is used before it is defined (or is not "
                                               "defined in this function)"));
      }
      structureOk = false;
    }
    // Regions see the values defined so far, plus their own arguments.
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const Block &region = *op.regions[r];
      if (region.parentOp != &op)
        error(op, std::string(name) + ": region #" + std::to_string(r) +
                      " does not point back to its op");
      openBlocks_.push_back(&region);
      for (const auto &arg : region.args) defineBlockArg(*arg, region, op.loc);
      verifyBlock(region);
      openBlocks_.pop_back();
      if (!checkRegionEnd(region, &op, r)) structureOk = false;
    }
    // Results become visible after the op (not inside its own regions).
    for (size_t i = 0; i < op.results.size(); ++i) {
      const Value *v = op.results[i].get();
      if (v->def != &op || v->index != i)
        error(op, std::string(name) + ": result #" + std::to_string(i) +
                      " does not point back to its op");
      if (std::string problem = verifier_detail::checkValueType(v->type); !problem.empty()) {
        error(op, std::string(name) + ": result #" + std::to_string(i) + ": " + problem);
        structureOk = false;
      }
      define(v);
    }
    if (structureOk) checkTerminatorOperands(op);
    if (structureOk) verifier_detail::checkOpTypes(op, module_, *this);
  }

  // A value dominates the current op when it was defined before it (seen_)
  // in a block that encloses it (one of openBlocks_): pre-order visits a
  // block's ops in order, and a region's values stop dominating when it
  // closes. One set and a short stack, rather than a set of the visible
  // values with an erase per value at each region's end: this runs after
  // every pass, on every operand.
  bool dominates(const Value *v) const {
    if (!seen_.contains(v)) return false;
    const Block *home = v->def ? v->def->parent : v->owner;
    for (auto b = openBlocks_.rbegin(); b != openBlocks_.rend(); ++b)
      if (*b == home) return true;
    return false;
  }
  void define(const Value *v) { seen_.insert(v); }

  // A region (or the function body when `op` is null) must end in its
  // terminator; returns false when it does not.
  bool checkRegionEnd(const Block &block, const Operation *op, size_t index) {
    OpCode want = op ? expectedTerminator(op->code, index) : OpCode::Return;
    std::string where =
        op ? "region #" + std::to_string(index) + " of '" + op->info().mnemonic + "'"
           : "the body of function @" + fn_.name;
    const Operation *last = block.ops.empty() ? nullptr : block.ops.back().get();
    if (last && last->code == want) return true;
    std::string message = where + " must end in '" + opInfo(want).mnemonic + "'";
    if (!last) {
      message += ", but it is empty";
    } else if (hasFlag(last->code, opflags::Terminator)) {
      message = std::string("'") + last->info().mnemonic + "' cannot end " + where +
                "; expected '" + opInfo(want).mnemonic + "'";
    } else {
      message += ", but it ends in '" + std::string(last->info().mnemonic) + "'";
    }
    report(last ? last->loc : op ? op->loc : fn_.loc, std::move(message));
    return false;
  }

  // `return` is checked against the function's result types here because the
  // op rules do not see the function.
  void checkTerminatorOperands(const Operation &op) {
    if (op.code != OpCode::Return || op.parent != &fn_.body) return;
    if (op.operands.size() != fn_.resultTypes.size()) {
      error(op, "return: function @" + fn_.name + " returns " +
                    std::to_string(fn_.resultTypes.size()) + " value(s), but 'return' has " +
                    std::to_string(op.operands.size()));
      return;
    }
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (!(op.operands[i]->type == fn_.resultTypes[i]))
        error(op, "return: operand #" + std::to_string(i) + " has type " +
                      printType(op.operands[i]->type) + ", but function @" + fn_.name +
                      " returns " + printType(fn_.resultTypes[i]));
  }

  const Function &fn_;
  const Module *module_;
  size_t maxErrors_;
  std::vector<Diagnostic> &out_;
  PtrSet<const Value *> seen_;             // every value defined so far
  std::vector<const Block *> openBlocks_;  // the function body and the regions around this op
};

std::string firstAsString(const std::vector<Diagnostic> &errors) {
  if (errors.empty()) return {};
  const Diagnostic &d = errors.front();
  if (d.loc.line == 0) return d.message;
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
}

}  // namespace

std::vector<Diagnostic> collectVerifierErrors(const Function &f, const Module *module,
                                              size_t maxErrors) {
  std::vector<Diagnostic> errors;
  FunctionVerifier(f, module, maxErrors, errors).run();
  return errors;
}

std::vector<Diagnostic> collectVerifierErrors(const Module &m, size_t maxErrors) {
  std::vector<Diagnostic> errors;
  std::unordered_set<std::string> names;
  for (const auto &f : m.functions) {
    if (!names.insert(f->name).second && errors.size() < maxErrors) {
      Diagnostic d;
      d.loc = f->loc;
      d.message = "function @" + f->name + " is defined twice";
      errors.push_back(std::move(d));
    }
    FunctionVerifier(*f, &m, maxErrors, errors).run();
  }
  return errors;
}

std::string verify(const Module &m) {
  return firstAsString(collectVerifierErrors(m, 1));
}
std::string verify(const Function &f) {
  return firstAsString(collectVerifierErrors(f, nullptr, 1));
}

}  // namespace tessera
