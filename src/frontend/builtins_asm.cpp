// Builtins: inline assembly (tl.inline_asm_elementwise) and the CUDA
// specials of tl.extra.cuda (smid, globaltimer, num_threads, num_warps),
// with the semantics of Triton's core.py and extra/cuda.
#include "frontend/builtin_util.h"
#include "ir/inline_asm.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

// The dtype argument: one dtype, or a tuple of them (then the call returns a
// tuple). Sets `multiple` to whether it was a tuple.
std::vector<DType> asmDTypes(Lowerer &l, const SVal &v, SourceLoc loc, bool &multiple) {
  multiple = v.kind == SVal::Kind::Tuple;
  std::vector<DType> out;
  if (!multiple) {
    out.push_back(l.constDType(v, loc, "the dtype of tl.inline_asm_elementwise"));
    return out;
  }
  for (const SVal &e : v.elems)
    out.push_back(l.constDType(e, loc, "each dtype of tl.inline_asm_elementwise"));
  if (out.empty())
    l.error(loc, "tl.inline_asm_elementwise must return at least one tensor; dtype is empty",
            "return a dummy value (dtype=tl.int32 with an unused \"=r\" output)");
  return out;
}

SVal inlineAsmElementwise(Lowerer &l, A &a) {
  std::string text = l.constStr(a["asm"], a.locOf("asm"), "the asm of tl.inline_asm_elementwise");
  std::string cons = l.constStr(a["constraints"], a.locOf("constraints"),
                                "the constraints of tl.inline_asm_elementwise");
  bool pure = l.constBool(a["is_pure"], a.locOf("is_pure"), "is_pure");
  int64_t pack = l.constInt(a["pack"], a.locOf("pack"), "pack");
  bool multiple = false;
  std::vector<DType> dtypes = asmDTypes(l, a["dtype"], a.locOf("dtype"), multiple);
  // The arguments: a list or tuple of tensors and numbers, broadcast to one
  // shape with their dtypes kept (Triton checks shapes only).
  const SVal &list = a["args"];
  std::vector<SVal> items = list.kind == SVal::Kind::Tuple ? list.elems : std::vector<SVal>{list};
  if (list.isNone()) items.clear();
  std::vector<Value *> args;
  std::vector<int64_t> shape;
  bool tile = false;
  for (size_t i = 0; i < items.size(); ++i) {
    Value *v = l.tensorArg(items[i], a.locOf("args"),
                           "argument " + std::to_string(i) + " of tl.inline_asm_elementwise");
    if (v->type.isTile()) {
      shape = tile ? l.broadcastShapes(shape, v->type.shape, a.locOf("args")) : v->type.shape;
      tile = true;
    }
    args.push_back(v);
  }
  if (tile)
    for (Value *&v : args) v = l.broadcastTo(v, shape, a.locOf("args"));
  std::vector<Type> argElems, resultElems, resultTypes;
  for (Value *v : args) argElems.push_back(v->type.element());
  for (DType d : dtypes) {
    resultElems.push_back(Type::scalar(d));
    resultTypes.push_back(tile ? tileOf(shape, d) : Type::scalar(d));
  }
  std::string error, hint;
  if (!planInlineAsm(text, cons, argElems, resultElems, pack, error, hint)) {
    // Say where: the constraints for a count or class mismatch, the asm text
    // for an operand it cannot have, pack for packing.
    SourceLoc at = error.rfind("pack", 0) == 0      ? a.locOf("pack")
                   : error.rfind("the asm", 0) == 0 ? a.locOf("asm")
                                                    : a.locOf("constraints");
    l.error(at, "tl.inline_asm_elementwise: " + error, hint);
  }
  l.builder().setLoc(a.loc);
  Operation *op = l.builder().create(
      OpCode::InlineAsm, args, resultTypes,
      {{"asm", text}, {"constraints", cons}, {"pack", pack}, {"pure", int64_t{pure}}});
  if (!multiple) return SVal::tensor(op->result(0));
  std::vector<SVal> outs;
  for (auto &r : op->results) outs.push_back(SVal::tensor(r.get()));
  return SVal::tuple(std::move(outs));
}

SVal smid(Lowerer &l, A &a) {
  return SVal::tensor(l.emit(OpCode::ReadSreg, {}, Type::scalar(DType::I32), a.loc,
                             {{"reg", std::string("smid")}}));
}

SVal globaltimer(Lowerer &l, A &a) {
  return SVal::tensor(l.emit(OpCode::ReadSreg, {}, Type::scalar(DType::I64), a.loc,
                             {{"reg", std::string("globaltimer")}}));
}

// Compile-time values, as in Triton: the launch's num_warps is part of the
// compiled kernel (and of its cache key).
SVal numThreads(Lowerer &l, A &) {
  return SVal::integer(int64_t{32} * l.options().numWarps);
}

SVal numWarps(Lowerer &l, A &) {
  return SVal::integer(l.options().numWarps);
}

}  // namespace

std::vector<BuiltinDef> asmBuiltins() {
  return {
      {"tl.inline_asm_elementwise",
       {"asm", "constraints", "args", "dtype", "is_pure", "pack"},
       inlineAsmElementwise},
      {"cuda.smid", {}, smid},
      {"cuda.globaltimer", {}, globaltimer},
      {"cuda.num_threads", {}, numThreads},
      {"cuda.num_warps", {}, numWarps},
  };
}

}  // namespace tessera::frontend
