// Builtins: runtime debugging (device_print, device_assert). tl.static_print
// and tl.static_assert work on compile-time values and live in builtins_core.
#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

// Triton's prefix normalisation: with arguments the prefix ends in ": ", and a
// non-empty one starts with " ".
std::string normalisePrefix(std::string prefix, bool hasArgs) {
  if (hasArgs && (prefix.empty() || prefix.back() != ' ')) prefix += " ";
  if (hasArgs && !(prefix.size() >= 2 && prefix.compare(prefix.size() - 2, 2, ": ") == 0))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix[0] != ' ') prefix = " " + prefix;
  return prefix;
}

SVal devicePrint(Lowerer &l, A &a) {
  if (a["prefix"].kind != SVal::Kind::Str)
    l.error(a.locOf("prefix"),
            "the first argument of tl.device_print must be a string prefix, got " +
                describe(a["prefix"]),
            "write tl.device_print(\"x\", x)");
  std::string prefix = a["prefix"].s;
  for (unsigned char ch : prefix)
    if (ch < 0x20 || ch > 0x7e)
      l.error(a.locOf("prefix"), "the prefix of tl.device_print must be printable ASCII",
              "remove control and non-ASCII characters from the prefix");
  int64_t hex = l.constBool(a["hex"], a.locOf("hex"), "hex");
  std::vector<Value *> ops;
  for (size_t i = 0; i < a.varargs.size(); ++i) {
    const SVal &v = a.varargs[i];
    if (!v.isTensor() && !v.isNumber())
      l.error(a.varargLocs[i],
              "tl.device_print can only print tensors and numbers, got " + describe(v),
              "put text in the prefix; use tl.static_print for compile-time values");
    ops.push_back(l.tensorArg(v, a.varargLocs[i], "a printed value"));
  }
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::Print, ops, {},
                     {{"hex", hex}, {"prefix", normalisePrefix(prefix, !ops.empty())}});
  return SVal::none();
}

SVal deviceAssert(Lowerer &l, A &a) {
  std::string msg = l.constStr(a["msg"], a.locOf("msg"), "the message of tl.device_assert");
  const SVal &c = a["cond"];
  if (!c.isTensor() && !c.isNumber())
    l.error(a.locOf("cond"),
            "the condition of tl.device_assert must be a tensor or a number, got " + describe(c));
  // Checked even without debug so misuse is reported the same way everywhere.
  Value *cond = l.tensorArg(c, a.locOf("cond"), "the condition");
  if (cond->type.isPtrLike())
    l.error(a.locOf("cond"), "the condition of tl.device_assert cannot be a pointer",
            "compare it, e.g. ptr != 0");
  if (!a["mask"].isNone() && !a["mask"].isTensor() && !a["mask"].isNumber())
    l.error(a.locOf("mask"),
            "the mask of tl.device_assert must be a tensor, got " + describe(a["mask"]));
  if (!l.options().debug) return SVal::none();
  cond = l.cast(cond, Type::scalar(DType::I1), a.locOf("cond"));
  if (!a["mask"].isNone()) {
    // Lanes outside the mask pass: (not mask) or cond.
    Value *m = l.cast(l.tensorArg(a["mask"], a.locOf("mask"), "the mask"), Type::scalar(DType::I1),
                      a.locOf("mask"));
    l.broadcastPair(cond, m, a.loc);
    Value *notM = l.emit(OpCode::Not, {m}, m->type, a.loc);
    cond = l.emit(OpCode::Or, {cond, notM}, cond->type, a.loc);
  }
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::Assert, {cond}, {}, {{"message", msg}});
  return SVal::none();
}

}  // namespace

std::vector<BuiltinDef> debugBuiltins() {
  return {
      {"tl.device_print", {"prefix", "*args", "hex=False"}, devicePrint},
      {"tl.device_assert", {"cond", "msg=''", "mask=None"}, deviceAssert},
  };
}

}  // namespace tessera::frontend
