// Builtins: per-element functions (tl.inline_asm_elementwise,
// tl.map_elementwise) and the CUDA specials of tl.extra.cuda (smid,
// globaltimer, num_threads, num_warps), with the semantics of Triton's
// core.py and extra/cuda.
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

// tl.map_elementwise(scalar_fn, *args, pack=1): the @jit function inlined
// once into a region over scalars, which every back end runs per element
// (so it may branch, unlike code on whole tiles).
SVal mapElementwise(Lowerer &l, A &a) {
  const SVal &fn = a["scalar_fn"];
  if (fn.kind != SVal::Kind::Function)
    l.error(a.locOf("scalar_fn"),
            "the first argument of tl.map_elementwise must be a @jit function, got " + describe(fn),
            "pass a function decorated with @triton.jit that takes and returns scalars");
  int64_t pack = l.constInt(a["pack"], a.locOf("pack"), "pack");
  if (pack < 1 || pack > 64)
    l.error(a.locOf("pack"), "pack must be between 1 and 64, got " + std::to_string(pack),
            "pass the number of elements one call of the function handles");
  if (a.varargs.empty())
    l.error(a.loc, "tl.map_elementwise needs at least one tensor to map over",
            "pass the tensors after the function: tl.map_elementwise(fn, x, y)");
  std::vector<Value *> args;
  std::vector<int64_t> shape;
  bool tile = false;
  for (size_t i = 0; i < a.varargs.size(); ++i) {
    Value *v = l.tensorArg(a.varargs[i], a.varargLocs[i], "an argument of tl.map_elementwise");
    if (v->type.isTile()) {
      shape = tile ? l.broadcastShapes(shape, v->type.shape, a.varargLocs[i]) : v->type.shape;
      tile = true;
    }
    args.push_back(v);
  }
  if (tile)
    for (size_t i = 0; i < args.size(); ++i)
      args[i] = l.broadcastTo(args[i], shape, a.varargLocs[i]);
  // The results' types are the function's: build the region first, then
  // give the op its results.
  Builder &b = l.builder();
  b.setLoc(a.loc);
  Operation *op = b.create(OpCode::MapElementwise, args, {}, {{"pack", pack}});
  Block *save = b.block();
  Block &region = *op->regions[0];
  std::vector<SVal> scalars;
  for (Value *v : args)
    for (int64_t j = 0; j < pack; ++j)
      scalars.push_back(SVal::tensor(region.addArg(v->type.element())));
  b.setInsertionPointToEnd(&region);
  SVal r = l.inlineFunction(fn, scalars, {}, a.loc);
  bool multiple = r.kind == SVal::Kind::Tuple;
  std::vector<SVal> items = multiple ? r.elems : std::vector<SVal>{r};
  if (r.isNone() || items.empty() || items.size() % pack)
    l.error(a.loc,
            "the function of tl.map_elementwise returns " + std::to_string(items.size()) +
                " value(s); with pack=" + std::to_string(pack) + " it must return a multiple of " +
                std::to_string(pack) + " (pack values of each result)",
            "return one scalar per result and packed element, results in order");
  std::vector<Value *> ys;
  for (const SVal &item : items) {
    Value *v = l.tensorArg(item, a.loc, "a result of the tl.map_elementwise function");
    if (v->type.isTile())
      l.error(a.loc,
              "the function of tl.map_elementwise returns a tensor " + v->type.str() +
                  "; it must return scalars",
              "the function is called on single elements: compute with its scalar arguments");
    ys.push_back(v);
  }
  size_t numResults = ys.size() / static_cast<size_t>(pack);
  for (size_t k = 0; k < ys.size(); ++k)
    if (ys[k]->type != ys[(k / pack) * pack]->type)
      l.error(a.loc,
              "the packed results of the tl.map_elementwise function differ in type (" +
                  ys[(k / pack) * pack]->type.str() + " and " + ys[k]->type.str() + ")",
              "return the same dtype for every packed element of a result");
  b.setLoc(a.loc);
  b.create(OpCode::Yield, ys, {});
  b.setInsertionPointToEnd(save);
  std::vector<SVal> outs;
  for (size_t i = 0; i < numResults; ++i) {
    auto v = std::make_unique<Value>();
    DType d = ys[i * pack]->type.dtype;
    v->type = tile ? tileOf(shape, d) : Type::scalar(d);
    if (ys[i * pack]->type.isPtr())
      v->type = tile ? ys[i * pack]->type.withShape(shape) : ys[i * pack]->type;
    v->def = op;
    v->index = static_cast<unsigned>(i);
    outs.push_back(SVal::tensor(v.get()));
    op->results.push_back(std::move(v));
  }
  // As Triton: a tuple whenever the function returns one (with pack > 1 too).
  return multiple ? SVal::tuple(std::move(outs)) : outs[0];
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
      {"tl.map_elementwise", {"scalar_fn", "*args", "pack=1"}, mapElementwise},
      {"cuda.smid", {}, smid},
      {"cuda.globaltimer", {}, globaltimer},
      {"cuda.num_threads", {}, numThreads},
      {"cuda.num_warps", {}, numWarps},
  };
}

}  // namespace tessera::frontend
