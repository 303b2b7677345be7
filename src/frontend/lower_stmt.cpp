// Statements, kernels and @jit function inlining.
#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "frontend/lowering.h"

namespace tessera::frontend {

static bool decoratorNamed(const ast::Expr &d, const char *name) {
  const ast::Expr *e = &d;
  if (e->kind == ast::ExprKind::Call) e = e->a.get();
  if (e->kind == ast::ExprKind::Name || e->kind == ast::ExprKind::Attribute) return e->str == name;
  return false;
}

bool isJitDecorator(const ast::Expr &d) {
  return decoratorNamed(d, "jit") || isConstexprFunctionDecorator(d);
}

bool isConstexprFunctionDecorator(const ast::Expr &d) {
  return decoratorNamed(d, "constexpr_function");
}

// @triton.must_use_result(words) reaches the compiler as the keyword of the
// function's @jit(...) decorator: jit(must_use_result="words").
static std::optional<std::string> mustUseResult(const SVal &callee) {
  if (callee.kind != SVal::Kind::Function || !callee.fn) return std::nullopt;
  for (const auto &d : callee.fn->decorators)
    if (d->kind == ast::ExprKind::Call && isJitDecorator(*d))
      for (const auto &k : d->keywords)
        if (k.name == "must_use_result" && k.value && k.value->kind == ast::ExprKind::Str)
          return k.value->str;
  return std::nullopt;
}

// `a`, `a.b`, `a.b.c`: a name and attributes, nothing evaluated on the way.
static bool isNamePath(const ast::Expr &e) {
  if (e.kind == ast::ExprKind::Name) return true;
  return e.kind == ast::ExprKind::Attribute && e.a && isNamePath(*e.a);
}

namespace {

bool isConstexprAnnotation(const ast::Expr *a) {
  if (!a) return false;
  if (a->kind == ast::ExprKind::Attribute) return a->str == "constexpr";
  if (a->kind == ast::ExprKind::Name) return a->str == "constexpr";
  if (a->kind == ast::ExprKind::Str) return a->str.find("constexpr") != std::string::npos;
  return false;
}

// `tl.const` (Triton's qualifier of pointers a kernel only reads).
bool isConstAnnotation(const ast::Expr *a) {
  if (!a) return false;
  if (a->kind == ast::ExprKind::Attribute || a->kind == ast::ExprKind::Name)
    return a->str == "const";
  return false;
}

}  // namespace

// The parameters of a host TensorDescriptor argument (see ArgSpec).
SVal Lowerer::descriptorParameter(Function &fn, const ast::Param &p, const std::string &name,
                                  const ArgSpec &a) {
  size_t n = a.block.size();
  if (n < 1 || n > 5)
    error(p.loc, "tensor descriptor '" + name + "' has " + std::to_string(n) +
                     " dimensions; descriptors have 1 to 5");
  for (int64_t d : a.block)
    if (d < 1 || (d & (d - 1)) != 0)
      error(p.loc, "tensor descriptor '" + name + "' has block dimension " + std::to_string(d) +
                       ", which is not a power of two");
  if (a.dtype == DType::I1)
    error(p.loc, "tensor descriptors of tl.int1 are not supported",
          "store booleans as int8 and compare with zero after loading");
  Value *base = fn.body.addArg(Type::ptr(a.dtype), name);
  fn.paramAttrs.push_back({a.divisibility, false});
  std::vector<Value *> shape, strides;
  for (size_t i = 0; i < n; ++i) {
    shape.push_back(fn.body.addArg(Type::scalar(DType::I32), name + "_shape" + std::to_string(i)));
    // A dim divisible by 16 keeps the bounds mask uniform over aligned runs
    // of 16, so the accesses vectorise.
    fn.paramAttrs.push_back({i < a.shapeDivisibility.size() ? a.shapeDivisibility[i] : 1, false});
  }
  // Strides but the last are 16-byte multiples (TensorDescriptor checks it).
  int64_t strideDiv = std::max<int64_t>(1, 16 / std::max(1, bitWidth(a.dtype) / 8));
  for (size_t i = 0; i + 1 < n; ++i) {
    strides.push_back(
        fn.body.addArg(Type::scalar(DType::I64), name + "_stride" + std::to_string(i)));
    fn.paramAttrs.push_back({strideDiv, false});
  }
  b_.setLoc(p.loc);
  strides.push_back(constantInt(1, Type::scalar(DType::I64)));
  return descriptorValue(base, shape, strides, a.block, a.nanPadding);
}

// The value of kernel parameter `p` specialised as `a`, or of an element of
// a tuple passed for it (`name` spells the element, "t_1_0", `depth` counts
// the tuples around it); its runtime parts become arguments of `fn`, in
// order, depth first.
SVal Lowerer::parameterValue(Function &fn, const ast::Param &p, const std::string &name,
                             const ArgSpec &a, bool constexprParam, int depth) {
  switch (a.kind) {
    case ArgSpec::Kind::Constexpr:
      return constant(a.value, name, p.loc);
    case ArgSpec::Kind::Tuple: {
      if (constexprParam)
        error(p.loc,
              "parameter '" + p.name +
                  "' is a tl.constexpr but was given a tuple with runtime elements",
              "pass compile-time values only (numbers, tl.constexpr(...)), or drop the "
              "tl.constexpr annotation");
      if (depth >= 64) error(p.loc, "the tuple passed for '" + p.name + "' is nested too deeply");
      std::vector<SVal> elems;
      for (size_t j = 0; j < a.elems.size(); ++j)
        elems.push_back(
            parameterValue(fn, p, name + "_" + std::to_string(j), a.elems[j], false, depth + 1));
      SVal t = SVal::tuple(std::move(elems));
      t.s = a.tupleType;
      return t;
    }
    case ArgSpec::Kind::Pointer: {
      if (constexprParam)
        error(p.loc, "parameter '" + p.name + "' is a tl.constexpr but was given a pointer");
      Value *v = fn.body.addArg(Type::ptr(a.dtype), name);
      fn.paramAttrs.push_back({a.divisibility, false});
      if (isConstAnnotation(p.annotation.get())) markConstPointer(v);
      return SVal::tensor(v);
    }
    case ArgSpec::Kind::TensorDesc:
      if (constexprParam)
        error(p.loc,
              "parameter '" + p.name + "' is a tl.constexpr but was given a tensor descriptor");
      return descriptorParameter(fn, p, name, a);
    case ArgSpec::Kind::Scalar: {
      if (constexprParam)
        error(p.loc,
              "parameter '" + p.name + "' is a tl.constexpr but was given a runtime " +
                  tritonName(a.dtype),
              "pass a compile-time value for it (a bare number in a signature)");
      Value *v = fn.body.addArg(Type::scalar(a.dtype), name);
      fn.paramAttrs.push_back({a.divisibility, a.equalToOne});
      // Like Triton, an integer known to equal 1 is specialised to the constant.
      if (a.equalToOne && isInt(a.dtype)) {
        b_.setLoc(p.loc);
        return SVal::tensor(constantInt(1, Type::scalar(a.dtype)));
      }
      return SVal::tensor(v);
    }
  }
  error(p.loc, "unknown specialisation of parameter '" + p.name + "'");
}

std::unique_ptr<Module> Lowerer::lowerKernel(const std::string &name,
                                             const std::vector<ArgSpec> &args) {
  const ModuleScope *scope = scopeForUnit(0);
  const ast::Module &mod = *scope->mod;
  for (const auto &b : mod.brokenDefs)
    if (b.name == name) throw CompileError(b.diag);
  const ast::Stmt *def = nullptr;
  for (const auto &s : mod.body)
    if (s->kind == ast::StmtKind::FunctionDef && s->name == name) def = s.get();
  if (!def) {
    std::string known;
    for (const auto &s : mod.body)
      if (s->kind == ast::StmtKind::FunctionDef) known += (known.empty() ? "" : ", ") + s->name;
    error({}, "no function named '" + name + "' in the source",
          known.empty() ? "the file defines no functions" : "functions defined: " + known);
  }
  auto module = std::make_unique<Module>();
  auto fn = std::make_unique<Function>();
  fn->name = name;
  fn->loc = def->loc;
  std::map<std::string, SVal> env;
  std::set<std::string> constexprNames;
  std::set<std::string> *savedConstexprNames = std::exchange(constexprNames_, &constexprNames);
  env_ = &env;
  scope_ = scope;
  b_.setInsertionPointToEnd(&fn->body);
  if (args.size() > def->params.size())
    error(def->loc, "the specialisation has " + std::to_string(args.size()) +
                        " arguments but kernel '" + name + "' has " +
                        std::to_string(def->params.size()) + " parameters");
  for (size_t i = 0; i < def->params.size(); ++i) {
    const ast::Param &p = def->params[i];
    if (p.kind != ast::Param::Kind::Normal && p.kind != ast::Param::Kind::KwOnly)
      error(p.loc, "kernels cannot take *args or **kwargs");
    bool constexprParam = isConstexprAnnotation(p.annotation.get());
    if (i >= args.size()) {
      if (!p.defaultValue)
        error(p.loc, "no argument given for kernel parameter '" + p.name + "'",
              "give every parameter a value in the signature or a default in the kernel");
      SVal v = expr(*p.defaultValue);
      if (!v.isConst()) error(p.loc, "the default of '" + p.name + "' is not a constant");
      env[p.name] = v;
      continue;
    }
    env[p.name] = parameterValue(*fn, p, p.name, args[i], constexprParam, 0);
  }
  FlowResult flow = lowerBody(def->body);
  if (flow.returned && !flow.returnValues.empty() && !flow.returnValues[0].isNone())
    error(def->loc, "a kernel cannot return a value", "write results to memory with tl.store");
  b_.setInsertionPointToEnd(&fn->body);
  b_.setLoc(def->endLoc.known() ? def->endLoc : def->loc);
  b_.create(OpCode::Return, {}, {});
  module->functions.push_back(std::move(fn));
  constexprNames_ = savedConstexprNames;
  return module;
}

SVal Lowerer::inlineFunction(const SVal &callee, std::vector<SVal> args,
                             std::vector<std::pair<std::string, SVal>> kwargs, SourceLoc loc,
                             SVal *finalFirst) {
  const bool isInit = std::exchange(nextCallIsInit_, false);
  const ast::Stmt *def = callee.fn;
  // A JitFunction global is @jit by the host's word, whatever its decorators
  // are spelled (an alias, a wrapper); a function of the unit itself must be.
  bool jit = callee.knownJit, constexprFn = false;
  for (const auto &d : def->decorators) {
    jit |= isJitDecorator(*d);
    constexprFn |= isConstexprFunctionDecorator(*d);
  }
  if (!jit)
    error(loc, "calling '" + def->name + "', which is not a @jit function",
          "decorate '" + def->name + "' with @triton.jit so it can be called from a kernel");
  for (const auto &b : callee.scope->mod->brokenDefs)
    if (b.name == def->name) throw CompileError(b.diag);
  if (inlineDepth_ > 64)
    error(loc, "calls nested too deeply while inlining '" + def->name + "' (recursion?)",
          "recursive @jit functions are not supported");
  std::map<std::string, SVal> env;
  size_t np = def->params.size();
  std::vector<bool> bound(np, false);
  // Python's binding: positional arguments fill the parameters before a
  // `*args` one, which takes the rest as a tuple; keyword-only parameters
  // (after it, or after a bare `*`) take keywords alone.
  size_t positional = 0;
  while (positional < np && def->params[positional].kind == ast::Param::Kind::Normal) ++positional;
  const bool hasVarArgs =
      positional < np && def->params[positional].kind == ast::Param::Kind::VarArgs;
  for (const ast::Param &p : def->params)
    if (p.kind == ast::Param::Kind::VarKw)
      error(p.loc, def->name + " takes **" + p.name + ", which @jit functions cannot",
            "name the keyword parameters it takes");
  if (args.size() > positional && !hasVarArgs)
    error(loc, def->name + "() takes " + std::to_string(positional) + " positional argument" +
                   (positional == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                   " were given");
  for (size_t i = 0; i < args.size() && i < positional; ++i) {
    env[def->params[i].name] = args[i];
    bound[i] = true;
  }
  if (hasVarArgs) {
    std::vector<SVal> rest;
    for (size_t i = positional; i < args.size(); ++i) rest.push_back(args[i]);
    env[def->params[positional].name] = SVal::tuple(std::move(rest));
    bound[positional] = true;
  }
  for (auto &kw : kwargs) {
    const std::string &k = kw.first;
    auto it = std::find_if(def->params.begin(), def->params.end(), [&](const ast::Param &p) {
      return p.name == k && p.kind != ast::Param::Kind::VarArgs;
    });
    if (it == def->params.end())
      error(loc, def->name + "() got an unexpected keyword argument '" + k + "'");
    size_t idx = it - def->params.begin();
    if (bound[idx]) error(loc, def->name + "() got multiple values for argument '" + k + "'");
    env[k] = kw.second;
    bound[idx] = true;
  }
  auto *savedEnv = env_;
  const ModuleScope *savedScope = scope_;
  scope_ = callee.scope;
  for (size_t i = 0; i < np; ++i) {
    const ast::Param &p = def->params[i];
    if (!bound[i]) {
      if (!p.defaultValue) {
        scope_ = savedScope;
        error(loc, def->name + "() missing required " +
                       (p.kind == ast::Param::Kind::KwOnly ? "keyword-only " : "") + "argument '" +
                       p.name + "'");
      }
      env_ = &env;
      env[p.name] = expr(*p.defaultValue);
    }
    // A tl.constexpr annotation on a callee's parameter is a hint: as in
    // Triton, what the caller passes decides (the attention tutorial hands
    // a tile to `offs_m: tl.constexpr`).
  }
  env_ = &env;
  std::set<std::string> constexprNames;
  std::set<std::string> *savedConstexprNames = std::exchange(constexprNames_, &constexprNames);
  if (isInit) initEnvs_.push_back(&env);
  ++inlineDepth_;
  // A constexpr_function's body runs as Python would, at compile time (see
  // constexprFunctionDepth_); a @jit function it calls is lowered as usual.
  int savedConstexprDepth = std::exchange(constexprFunctionDepth_, constexprFn ? 1 : 0);
  int savedLoopDepth = loopDepth_;
  loopDepth_ = 0;
  // The callee's returns end the callee, not the caller.
  std::vector<Segment> savedContinuation = std::exchange(continuation_, {});
  FlowResult flow;
  try {
    flow = lowerBody(def->body);
  } catch (...) {
    if (isInit) initEnvs_.pop_back();
    constexprNames_ = savedConstexprNames;
    continuation_ = std::move(savedContinuation);
    constexprFunctionDepth_ = savedConstexprDepth;
    --inlineDepth_;
    loopDepth_ = savedLoopDepth;
    env_ = savedEnv;
    scope_ = savedScope;
    throw;
  }
  continuation_ = std::move(savedContinuation);
  constexprNames_ = savedConstexprNames;
  constexprFunctionDepth_ = savedConstexprDepth;
  loopDepth_ = savedLoopDepth;
  --inlineDepth_;
  if (isInit) initEnvs_.pop_back();
  if (finalFirst && np > 0) *finalFirst = env[def->params[0].name];
  env_ = savedEnv;
  scope_ = savedScope;
  if (flow.returned && !flow.returnValues.empty()) return flow.returnValues[0];
  return SVal::none();
}

Lowerer::FlowResult Lowerer::lowerBody(const ast::Body &body, size_t from) {
  FlowResult flow;
  for (size_t i = from; i < body.size(); ++i) {
    bool consumedRest = false;
    lowerStmt(*body[i], body, i, flow, consumedRest);
    if (flow.returned || flow.exited || consumedRest) break;
  }
  return flow;
}

// See SVal::assigned. Unpacking (a, b = 1, 2) binds each element to its
// target; a constexpr function's numbers stay Python's numbers.
SVal Lowerer::bindingValue(const ast::Expr &target, SVal value) {
  if ((target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List) &&
      value.kind == SVal::Kind::Tuple && value.elems.size() == target.list.size()) {
    for (size_t k = 0; k < target.list.size(); ++k)
      value.elems[k] = bindingValue(*target.list[k], std::move(value.elems[k]));
    return value;
  }
  if (!inConstexprFunction() && value.isNumber()) value.assigned = true;
  if (target.kind == ast::ExprKind::Name && constexprNames_ && constexprNames_->count(target.str)) {
    if (!value.isConst())
      error(target.loc,
            "'" + target.str + "' is declared tl.constexpr but is assigned " + describe(value),
            "assign it a value known when compiling, or drop the tl.constexpr declaration");
    value.assigned = false;
  }
  return value;
}

SVal Lowerer::namedExpr(const ast::Expr &e) {
  ast::Expr target;
  target.kind = ast::ExprKind::Name;
  target.str = e.str;
  target.loc = e.loc;
  SVal v = bindingValue(target, expr(*e.a));
  assign(target, v);
  return v;
}

void Lowerer::assign(const ast::Expr &target, const SVal &value) {
  switch (target.kind) {
    case ast::ExprKind::Name:
      if (value.isTensor() && value.v->nameHint.empty() && value.v->def)
        value.v->nameHint = target.str;
      (*env_)[target.str] = value;
      return;
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
      if (value.kind != SVal::Kind::Tuple)
        error(target.loc, "cannot unpack " + describe(value) + " into " +
                              std::to_string(target.list.size()) + " names");
      if (value.elems.size() != target.list.size())
        error(target.loc, "cannot unpack " + std::to_string(value.elems.size()) + " values into " +
                              std::to_string(target.list.size()) + " names");
      for (size_t k = 0; k < target.list.size(); ++k) assign(*target.list[k], value.elems[k]);
      return;
    }
    case ast::ExprKind::Subscript:
      error(target.loc, "assignment to a subscript is not supported; tensors are immutable",
            "build a new tensor, e.g. with tl.where(mask, new, old)");
    case ast::ExprKind::Attribute:
      assignField(target, value);
      return;
    default:
      error(target.loc, "cannot assign to this expression");
  }
}

void Lowerer::lowerStmt(const ast::Stmt &s, const ast::Body &body, size_t index, FlowResult &flow,
                        bool &consumedRest) {
  using K = ast::StmtKind;
  if (++loweredStatements_ > kMaxLoweredStatements)
    error(s.loc,
          "this kernel lowers more than " + std::to_string(kMaxLoweredStatements) +
              " statements (each tl.static_range iteration and each inlined @jit call counts "
              "its statements again)",
          "use range() instead of tl.static_range for long loops, and avoid calls that "
          "multiply (a function calling itself or another twice per level)");
  switch (s.kind) {
    case K::Return:
      flow.returned = true;
      flow.returnValues = {s.a ? expr(*s.a) : SVal::none()};
      return;
    case K::Assign: {
      SVal v = expr(*s.a);
      for (const auto &t : s.targets) assign(*t, bindingValue(*t, v));
      return;
    }
    case K::AugAssign: {
      const ast::Expr &t = *s.targets[0];
      // Names, and an aggregate's fields in its __init__ (assign says where).
      if (t.kind != ast::ExprKind::Name && t.kind != ast::ExprKind::Attribute)
        error(t.loc, "augmented assignment is only supported on names");
      SVal cur = t.kind == ast::ExprKind::Name ? lookupName(t.str, t.loc) : expr(t);
      SVal rhs = expr(*s.a);
      assign(t, bindingValue(t, binary(s.binop, cur, rhs, s.loc)));
      return;
    }
    case K::AnnAssign: {
      bool constexprAnnotated = isConstexprAnnotation(s.b.get());
      // `x: tl.constexpr` (with a value or not) keeps x constexpr through
      // the function's later assignments, as Triton does.
      if (constexprAnnotated && constexprNames_ && s.targets[0]->kind == ast::ExprKind::Name)
        constexprNames_->insert(s.targets[0]->str);
      if (s.a) {
        SVal v = expr(*s.a);
        if (constexprAnnotated && !v.isConst())
          error(s.a->loc, "a value annotated tl.constexpr must be a compile-time constant");
        if (constexprAnnotated)
          v.assigned = false;
        else
          v = bindingValue(*s.targets[0], v);
        assign(*s.targets[0], v);
      }
      return;
    }
    case K::ExprStmt:
      if (s.a->kind == ast::ExprKind::Str) return;  // docstring
      if (const ast::Expr *target = hintStatementTarget(s)) {
        SVal callee = expr(*s.a->a);
        SVal current = lookupName(target->str, target->loc);
        bool builtinHint = callee.kind == SVal::Kind::Builtin &&
                           (callee.s == "tl.multiple_of" || callee.s == "tl.max_contiguous" ||
                            callee.s == "tl.max_constancy");
        if (builtinHint && current.kind == SVal::Kind::Tensor) {
          assign(*target, expr(*s.a));
          return;
        }
      }
      // tl.advance makes a new block pointer and changes nothing: a call
      // whose result is dropped is a mistake (Triton's must_use_result).
      if (s.a->kind == ast::ExprKind::Call && isNamePath(*s.a->a)) {
        SVal callee = expr(*s.a->a);  // names only: evaluating it twice has no effect
        if (callee.kind == SVal::Kind::Builtin && callee.s == "tl.advance")
          error(s.a->loc, "the result of tl.advance is not being used",
                "tl.advance has no side effects: assign its result, e.g. p = tl.advance(p, "
                "offsets)");
        // Named as the call spells it (a.compute, helpers.cube), as Triton does.
        std::function<std::string(const ast::Expr &)> spelled = [&](const ast::Expr &e) {
          return e.kind == ast::ExprKind::Attribute ? spelled(*e.a) + "." + e.str : e.str;
        };
        if (auto words = mustUseResult(callee))
          error(s.a->loc,
                "the result of " + spelled(*s.a->a) + " is not being used" +
                    (words->empty() ? std::string() : ". " + *words),
                callee.fn->name + " is marked @triton.must_use_result: assign its result");
      }
      expr(*s.a);
      return;
    case K::Pass:
      return;
    case K::If:
      lowerIf(*this, s, body, index, flow, consumedRest);
      return;
    case K::For:
      lowerFor(*this, s);
      return;
    case K::While:
      lowerWhile(*this, s);
      return;
    case K::Assert: {
      SVal cond = expr(*s.a);
      std::string msg = s.b ? constStr(expr(*s.b), s.b->loc, "the assert message") : "";
      if (cond.isConst()) {
        if (unary(ast::UnaryOp::Not, cond, s.loc).i)
          error(s.loc, "assertion failed" + (msg.empty() ? std::string() : ": " + msg));
        return;
      }
      if (!opts_.debug) return;
      Value *c =
          cast(tensorArg(cond, s.a->loc, "the assert condition"), Type::scalar(DType::I1), s.loc);
      b_.setLoc(s.loc);
      b_.create(OpCode::Assert, {c}, {}, {{"message", msg}});
      return;
    }
    case K::Break:
    case K::Continue:
      if (loopDepth_ == 0)
        error(s.loc,
              std::string("'") + (s.kind == K::Break ? "break" : "continue") + "' outside a loop");
      // The loop lowering carries "$broken"; the rest of the iteration is
      // skipped by the if-restructuring in lowerIf.
      if (s.kind == K::Break) (*env_)["$broken"] = SVal::boolean(true);
      flow.exited = true;
      return;
    case K::FunctionDef:
      error(s.loc, "nested function definitions are not supported in kernels",
            "define '" + s.name + "' at the top level with @triton.jit");
    case K::ClassDef:
      error(s.loc, "class definitions are not supported in kernels");
    case K::Import:
    case K::ImportFrom:
      error(s.loc, "import statements are not supported inside kernels",
            "import at the top of the file");
    case K::Global:
    case K::Nonlocal:
      error(s.loc, "global/nonlocal statements are not supported in kernels");
    case K::With:
      error(s.loc, "'with' statements are not supported in kernels");
    case K::Unsupported:
      error(s.loc, "unsupported Python syntax in a kernel: " + s.name,
            "kernels support a subset of Python; see the language reference");
  }
}

const ast::Expr *hintStatementTarget(const ast::Stmt &s) {
  if (s.kind != ast::StmtKind::ExprStmt || !s.a) return nullptr;
  auto isHintCall = [](const ast::Expr &e) {
    if (e.kind != ast::ExprKind::Call || e.list.empty()) return false;
    const ast::Expr &fn = *e.a;
    std::string_view name;
    if (fn.kind == ast::ExprKind::Attribute || fn.kind == ast::ExprKind::Name) name = fn.str;
    return name == "multiple_of" || name == "max_contiguous" || name == "max_constancy";
  };
  // Hints nest: tl.max_contiguous(tl.multiple_of(offs, 16), 16) hints offs.
  const ast::Expr *e = s.a.get();
  if (!isHintCall(*e)) return nullptr;
  while (isHintCall(*e)) e = e->list[0].get();
  return e->kind == ast::ExprKind::Name ? e : nullptr;
}

}  // namespace tessera::frontend
