// Expressions: names, attributes, subscripts, calls (builtins and inlined
// @jit functions), and the Python builtins allowed on compile-time values.
#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "frontend/lowering.h"

namespace tessera::frontend {

namespace {
std::unordered_map<std::string, BuiltinDef> makeBuiltinTable() {
  std::unordered_map<std::string, BuiltinDef> table;
  for (auto *tableFn : {coreBuiltins, reduceBuiltins, shapeBuiltins, scanBuiltins, memoryBuiltins,
                        dotScaledBuiltins, descriptorBuiltins, randomBuiltins, debugBuiltins,
                        libdeviceBuiltins, asmBuiltins})
    for (auto &d : tableFn()) table[d.name] = std::move(d);
  return table;
}

const std::unordered_map<std::string, BuiltinDef> &builtinTable() {
  static const std::unordered_map<std::string, BuiltinDef> table = makeBuiltinTable();
  return table;
}

// Canonical module names: "tl" (triton.language, tessera.language and their
// submodules core, math, random, standard),
// "triton" (triton, tessera), "libdevice".
std::optional<std::string> canonicalModule(const std::string &dotted) {
  static const std::pair<const char *, const char *> kMap[] = {
      {"triton", "triton"},
      {"tessera", "triton"},
      {"triton.language", "tl"},
      {"tessera.language", "tl"},
      {"triton.language.math", "tl"},
      {"tessera.language.math", "tl"},
      {"triton.language.core", "tl"},
      {"tessera.language.core", "tl"},
      {"triton.language.random", "tl"},
      {"tessera.language.random", "tl"},
      {"triton.language.standard", "tl"},
      {"tessera.language.standard", "tl"},
      {"triton.language.extra", "tl.extra"},
      {"tessera.language.extra", "tl.extra"},
      {"triton.language.extra.cuda", "tl.extra.cuda"},
      {"tessera.language.extra.cuda", "tl.extra.cuda"},
      {"triton.language.extra.libdevice", "libdevice"},
      {"triton.language.extra.cuda.libdevice", "libdevice"},
      {"tessera.language.extra.libdevice", "libdevice"},
      {"tessera.language.extra.cuda.libdevice", "libdevice"},
  };
  for (const auto &[k, v] : kMap)
    if (dotted == k) return std::string(v);
  return std::nullopt;
}
}  // namespace

const BuiltinDef *findBuiltin(std::string_view name) {
  auto &t = builtinTable();
  auto it = t.find(std::string(name));
  return it == t.end() ? nullptr : &it->second;
}

const std::vector<std::string> &builtinNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto &[name, def] : builtinTable()) out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
  }();
  return names;
}

SVal fromConst(const ConstValue &c) {
  switch (c.kind) {
    case ConstValue::Kind::None:
      return SVal::none();
    case ConstValue::Kind::Bool:
      return SVal::boolean(c.i);
    case ConstValue::Kind::Int:
      return SVal::integer(c.i);
    case ConstValue::Kind::Float:
      return SVal::floating(c.f);
    case ConstValue::Kind::Str:
      return SVal::string(c.s);
    case ConstValue::Kind::DType: {
      SVal d = SVal::dtypeVal(c.dtype);
      d.i = c.i;  // a pointer type, as tl.pointer_type gives
      return d;
    }
    case ConstValue::Kind::Builtin:
      return SVal::builtin(c.s);
    case ConstValue::Kind::Function: {
      // Resolved against the source units by Lowerer::constant.
      SVal f;
      f.kind = SVal::Kind::Function;
      f.i = c.i;
      f.s = c.s;
      return f;
    }
    case ConstValue::Kind::TupleType: {
      SVal t;
      t.kind = SVal::Kind::TupleType;
      t.s = c.s;
      t.i = c.i;  // > 0: an aggregate class (Lowerer::classAttributeCount)
      for (const auto &x : c.elems) t.elems.push_back(fromConst(x));
      return t;
    }
    case ConstValue::Kind::Tuple: {
      std::vector<SVal> e;
      for (const auto &x : c.elems) e.push_back(fromConst(x));
      SVal t = SVal::tuple(std::move(e));
      t.s = c.s;
      return t;
    }
  }
  return SVal::none();
}

int CallArgs::index(std::string_view p) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i] == p) return static_cast<int>(i);
  internalError("builtins", "parameter '" + std::string(p) + "' not declared for " + name);
}

// ---- names and scopes ----------------------------------------------------------------

const ModuleScope *Lowerer::scopeForUnit(size_t unit) {
  if (scopes_[unit]) return scopes_[unit].get();
  const ast::Module &mod = *units_[unit].module;
  auto scope = std::make_unique<ModuleScope>();
  scope->mod = &mod;
  scope->unit = unit;
  scope->globals = units_[unit].globals;
  for (const auto &s : mod.body) {
    switch (s->kind) {
      case ast::StmtKind::FunctionDef: {
        SVal f;
        f.kind = SVal::Kind::Function;
        f.fn = s.get();
        f.scope = scope.get();
        scope->names[s->name] = f;
        break;
      }
      case ast::StmtKind::Import:
        for (const auto &n : s->names) {
          if (n.asname.empty()) {
            // `import triton.language` binds `triton`.
            std::string head = n.name.substr(0, n.name.find('.'));
            if (auto m = canonicalModule(head)) scope->names[head] = SVal::module(*m);
          } else if (auto m = canonicalModule(n.name)) {
            scope->names[n.asname] = SVal::module(*m);
          }
        }
        break;
      case ast::StmtKind::ImportFrom:
        for (const auto &n : s->names) {
          std::string bind = n.asname.empty() ? n.name : n.asname;
          if (auto m = canonicalModule(s->name + "." + n.name)) {
            scope->names[bind] = SVal::module(*m);
          } else if (auto m2 = canonicalModule(s->name)) {
            if (findBuiltin(*m2 + "." + n.name))
              scope->names[bind] = SVal::builtin(*m2 + "." + n.name);
          }
        }
        break;
      default:
        break;
    }
  }
  scopes_[unit] = std::move(scope);
  return scopes_[unit].get();
}

namespace {
// Top-level `NAME = expr` of the kernel's file, found by name.
const ast::Stmt *findGlobalAssign(const ast::Module &mod, const std::string &name) {
  const ast::Stmt *found = nullptr;
  for (const auto &s : mod.body) {
    if ((s->kind == ast::StmtKind::Assign || s->kind == ast::StmtKind::AnnAssign) && s->a) {
      for (const auto &t : s->targets)
        if (t->kind == ast::ExprKind::Name && t->str == name) found = s.get();
    }
  }
  return found;
}
}  // namespace

// The @jit function `function` of source unit `unit`, which `name` (a
// global, an argument) refers to.
SVal Lowerer::jitFunction(size_t unit, const std::string &function, const std::string &name,
                          SourceLoc loc) {
  // The callee's own scope comes with it, so its globals resolve in its unit.
  if (unit >= units_.size() || !units_[unit].module)
    internalError("frontend", "'" + name + "' names source unit " + std::to_string(unit) + " of " +
                                  std::to_string(units_.size()));
  const ModuleScope *callee = scopeForUnit(unit);
  const ast::Stmt *def = nullptr;
  for (const auto &s : callee->mod->body)  // the last definition wins, as in Python
    if (s->kind == ast::StmtKind::FunctionDef && s->name == function) def = s.get();
  if (!def) {
    for (const auto &b : callee->mod->brokenDefs)
      if (b.name == function) throw CompileError(b.diag);
    const SourceFile *f = sm_.file(callee->mod->file);
    error(loc,
          "'" + name + "' refers to @jit function '" + function + "', which is not defined in " +
              (f ? f->name : std::string("its source")),
          "this is a bug in the code that passed the globals to the compiler");
  }
  SVal fn;
  fn.kind = SVal::Kind::Function;
  fn.fn = def;
  fn.scope = callee;
  fn.knownJit = true;
  return fn;
}

SVal Lowerer::constant(const ConstValue &c, const std::string &name, SourceLoc loc) {
  SVal v = fromConst(c);
  std::function<void(SVal &)> resolve = [&](SVal &x) {
    if (x.kind == SVal::Kind::Function && !x.fn)
      x = jitFunction(static_cast<size_t>(x.i), x.s, name, loc);
    for (SVal &e : x.elems) resolve(e);
  };
  resolve(v);
  registerAggregates(v, loc);
  return v;
}

SVal Lowerer::globalOverride(const ModuleScope &scope, const Global &g, const std::string &name,
                             SourceLoc loc) {
  switch (g.kind) {
    case Global::Kind::Constant:
      return constant(g.value, name, loc);
    case Global::Kind::ModuleAlias: {
      if (auto m = canonicalModule(g.module)) return SVal::module(*m);
      // A host module (the user's helpers): only its attributes are usable,
      // each passed as a global of this unit named "<name>.<attribute>".
      SVal m = SVal::module(std::string(kHostModulePrefix) + name);
      m.scope = &scope;
      return m;
    }
    case Global::Kind::JitFunction:
      return jitFunction(g.unit, g.function, name, loc);
    case Global::Kind::Opaque:
      if (g.description.find("function") != std::string::npos)
        error(loc, "'" + name + "' is " + g.description + " and cannot be called from a kernel",
              "decorate it with @triton.jit");
      error(loc, "'" + name + "' is " + g.description + " and cannot be used inside a kernel",
            "pass it as an argument, or make it a tl.constexpr global");
  }
  internalError("frontend", "unknown global kind for '" + name + "'");
}

std::optional<SVal> Lowerer::globalValue(const ModuleScope &scope, const std::string &name,
                                         SourceLoc loc) {
  if (scope.globals) {
    auto ov = scope.globals->find(name);
    if (ov != scope.globals->end()) return globalOverride(scope, ov->second, name, loc);
  }
  auto it = scope.names.find(name);
  if (it != scope.names.end()) return it->second;
  if (const ast::Stmt *s = findGlobalAssign(*scope.mod, name)) {
    // Evaluate a top-level constant with an empty environment: only
    // compile-time expressions succeed.
    std::map<std::string, SVal> empty;
    auto *savedEnv = env_;
    const ModuleScope *savedScope = scope_;
    env_ = &empty;
    scope_ = &scope;
    SVal v;
    try {
      v = expr(*s->a);
    } catch (const CompileError &) {
      env_ = savedEnv;
      scope_ = savedScope;
      error(loc, "global '" + name + "' is not a compile-time constant",
            "kernels may read module-level constants (ints, floats, dtypes, tl.constexpr values)");
    }
    env_ = savedEnv;
    scope_ = savedScope;
    if (!v.isConst()) error(loc, "global '" + name + "' is not a compile-time constant");
    const_cast<ModuleScope &>(scope).names[name] = v;
    return v;
  }
  return std::nullopt;
}

SVal Lowerer::lookupName(const std::string &name, SourceLoc loc) {
  auto it = env_->find(name);
  if (it != env_->end()) return it->second;
  if (scope_) {
    if (std::optional<SVal> g = globalValue(*scope_, name, loc)) return *g;
  }
  static const char *kPyBuiltins[] = {"min",     "max",     "len",   "int",        "float",
                                      "bool",    "range",   "print", "isinstance", "abs",
                                      "getattr", "hasattr", "tuple", "list",       "enumerate",
                                      "zip",     "str",     "type",  "round",      "sum"};
  for (const char *b : kPyBuiltins)
    if (name == b) return SVal::builtin(std::string("builtins.") + b);
  if (auto m = canonicalModule(name)) return SVal::module(*m);
  error(loc, "undefined name '" + name + "'",
        "define it before use, pass it as an argument, or import it at the top of the file");
}

// ---- attributes ------------------------------------------------------------------------

SVal Lowerer::attribute(const SVal &obj, const std::string &name, SourceLoc loc) {
  switch (obj.kind) {
    case SVal::Kind::Module: {
      const std::string &m = obj.s;
      if (m.starts_with(kHostModulePrefix)) {
        std::string alias = m.substr(std::string_view(kHostModulePrefix).size());
        std::string key = alias + "." + name;
        const GlobalMap *globals = obj.scope ? obj.scope->globals : nullptr;
        if (globals && globals->count(key))
          return globalOverride(*obj.scope, globals->at(key), key, loc);
        std::string path = globals && globals->count(alias) ? globals->at(alias).module : alias;
        error(loc, "module '" + path + "' has no attribute '" + name + "' that a kernel can use",
              "kernels can use the @jit functions and constants of other modules");
      }
      if (m == "tl" || m == "libdevice") {
        if (auto d = dtypeFromTritonName(name)) return SVal::dtypeVal(*d);
        if (name == "bool") return SVal::dtypeVal(DType::I1);
        if (name == "float8e4m3fn") return SVal::dtypeVal(DType::F8E4NV);
        if (name == "float8e5m2") return SVal::dtypeVal(DType::F8E5);
        // tl.core.X, tl.math.X, tl.random.X and tl.standard.X are tl.X (Triton's submodules).
        if (name == "math" || name == "core" || name == "random" || name == "standard")
          return SVal::module("tl");
        if (name == "pi32_t") {  // Triton's alias of tl.pointer_type(tl.int32)
          SVal p = SVal::dtypeVal(DType::I32);
          p.i = 1;
          return p;
        }
        if (name == "PropagateNan") return SVal::module("tl.PropagateNan");
        if (name == "extra") return SVal::module("tl.extra");
        if (m == "libdevice" && findBuiltin("libdevice." + name))
          return SVal::builtin("libdevice." + name);
        if (findBuiltin("tl." + name)) return SVal::builtin("tl." + name);
      } else if (m == "tl.PropagateNan") {
        // tl.PropagateNan.ALL / NONE, the values of propagate_nan=.
        if (name == "ALL") return SVal::integer(0xFFFF);
        if (name == "NONE") return SVal::integer(0);
      } else if (m == "tl.extra" || m == "tl.extra.cuda") {
        if (name == "libdevice") return SVal::module("libdevice");
        if (m == "tl.extra" && name == "cuda") return SVal::module("tl.extra.cuda");
        if (m == "tl.extra.cuda" && findBuiltin("cuda." + name))
          return SVal::builtin("cuda." + name);
      } else if (m == "triton") {
        if (name == "language") return SVal::module("tl");
        if (findBuiltin("triton." + name)) return SVal::builtin("triton." + name);
      }
      error(loc,
            "module '" + (m == "tl" ? std::string("triton.language") : m) + "' has no attribute '" +
                name + "' that Tessera supports",
            "see the tessera.language reference for the supported functions");
    }
    case SVal::Kind::Tensor: {
      const Type &t = obj.v->type;
      if (name == "dtype") {
        SVal d = SVal::dtypeVal(t.dtype);
        d.i = t.isPtrLike();
        return d;
      }
      if (name == "shape") {
        std::vector<SVal> dims;
        for (int64_t s : t.shape) dims.push_back(SVal::integer(s));
        return SVal::tuple(std::move(dims));
      }
      // x.type: the pointer type of pointers (so O.type.element_ty is the
      // pointee), else the element dtype standing for the block type.
      if (name == "type") {
        SVal d = SVal::dtypeVal(t.dtype);
        d.i = t.isPtrLike();
        return d;
      }
      if (name == "numel") return SVal::integer(t.numel());
      if (name == "ndim") return SVal::integer(t.rank());
      if (name == "T") {
        const BuiltinDef *trans = findBuiltin("tl.trans");
        if (!trans) break;
        CallArgs ca;
        std::vector<SVal> args{obj};
        return call(SVal::builtin("tl.trans"), args, {loc}, {}, {}, loc);
      }
      SVal m = SVal::builtin("tensor." + name);
      if (!findBuiltin(m.s)) {
        if (!findBuiltin("tl." + name))
          error(loc, "tensor has no attribute '" + name + "'",
                "tensor methods mirror tl functions, e.g. x.to(tl.float16), x.sum(axis=0)");
        m.s = "tl." + name;
      }
      m.elems.push_back(obj);
      return m;
    }
    case SVal::Kind::TensorDesc: {
      size_t n = obj.ints.size();
      if (name == "block_shape") {
        std::vector<SVal> dims;
        for (int64_t d : obj.ints) dims.push_back(SVal::integer(d));
        return SVal::tuple(std::move(dims));
      }
      if (name == "shape" || name == "strides") {
        size_t first = name == "shape" ? 1 : 1 + n;
        return SVal::tuple({obj.elems.begin() + first, obj.elems.begin() + first + n});
      }
      if (name == "dtype") return SVal::dtypeVal(obj.elems[0].v->type.dtype);
      if (name == "ndim") return SVal::integer(static_cast<int64_t>(n));
      SVal m = SVal::builtin("tensor_descriptor." + name);
      if (!findBuiltin(m.s))
        error(loc, "tensor descriptor has no attribute '" + name + "'",
              "descriptors have load, store, atomic_add/min/max/and/or/xor, gather, scatter, "
              "block_shape, shape, strides and dtype");
      m.elems.push_back(obj);
      return m;
    }
    case SVal::Kind::BlockPtr:
      // Its type, a pointer to the block: `.element_ty` is the block type,
      // which a dtype of its element stands for (as a tile's x.type).
      if (name == "dtype" || name == "type") {
        SVal d = SVal::dtypeVal(obj.elems[0].v->type.dtype);
        d.i = 1;
        return d;
      }
      if (name == "advance") {  // p.advance(offsets), tl.advance as a method (Triton's)
        SVal m = SVal::builtin("tl.advance");
        m.elems.push_back(obj);
        return m;
      }
      break;
    case SVal::Kind::DType: {
      if (name == "primitive_bitwidth") return SVal::integer(obj.i ? 64 : bitWidth(obj.dtype));
      // A pointer type's pointee; a block type's (x.type of a tile) element.
      if (name == "element_ty") return SVal::dtypeVal(obj.dtype);
      if (name == "scalar") return obj;
      SVal m = SVal::builtin("dtype." + name);
      if (!findBuiltin(m.s)) break;
      m.elems.push_back(obj);
      return m;
    }
    case SVal::Kind::Bool:
    case SVal::Kind::Int:
    case SVal::Kind::Float:
      if (name == "value") return obj;  // tl.constexpr(x).value
      // A number in a kernel has the dtype of its literal (Triton: 1 is
      // int32, 2**40 int64, 1.5 float32) and the methods of a tensor of it.
      if (name == "dtype") return SVal::dtypeVal(dtypeOf(obj));
      // Its type: a constexpr's is constexpr_type(value); a name bound by
      // a plain assignment holds a scalar tensor in Triton (SVal::assigned).
      if (name == "type" && !obj.assigned) return SVal::constexprType(obj);
      return attribute(SVal::tensor(toValue(obj, loc)), name, loc);
    case SVal::Kind::Tuple:
      // A namedtuple's fields (SVal::s names its class and fields).
      if (!obj.s.empty())
        if (auto type = parseTupleType(obj.s))
          for (size_t j = 0; j < type->fields.size() && j < obj.elems.size(); ++j)
            if (type->fields[j] == name) {
              if (obj.elems[j].kind == SVal::Kind::Ellipsis && aggregateClass(obj.s))
                error(loc, "field '" + name + "' is read before __init__ sets it");
              return obj.elems[j];
            }
      // An aggregate's methods, bound to it.
      if (const SVal *cls = aggregateClass(obj.s)) {
        if (auto m = classAttribute(*cls, name, &obj)) return *m;
        error(loc, obj.s.substr(0, obj.s.find('(')) + " has no field or method '" + name + "'",
              "its fields are " + obj.s.substr(obj.s.find('(')));
      }
      [[fallthrough]];
    case SVal::Kind::Str:
    case SVal::Kind::None:
      if (name == "value") return obj;  // tl.constexpr(x).value
      if (name == "type" && obj.isConst()) return SVal::constexprType(obj);
      break;
    case SVal::Kind::ConstexprType:
      if (name == "value") return obj.elems[0];
      break;
    case SVal::Kind::TupleType:  // an aggregate class's functions, unbound
      if (auto m = classAttribute(obj, name, nullptr)) return *m;
      break;
    default:
      break;
  }
  error(loc, describe(obj) + " has no attribute '" + name + "'");
}

// ---- subscripts --------------------------------------------------------------------------

SVal Lowerer::subscript(const SVal &obj, const ast::Expr &index, SourceLoc loc) {
  if (const SVal *cls = obj.kind == SVal::Kind::Tuple ? aggregateClass(obj.s) : nullptr)
    if (auto getItem = classAttribute(*cls, "__getitem__", &obj))
      return call(*getItem, {expr(index)}, {index.loc}, {}, {}, loc);
  if (obj.kind == SVal::Kind::Tuple) {
    SVal idx = expr(index);
    if (idx.kind == SVal::Kind::Slice) {
      int64_t n = static_cast<int64_t>(obj.elems.size());
      int64_t lo = idx.elems[0].isNone() ? 0 : constInt(idx.elems[0], loc, "slice start");
      int64_t hi = idx.elems[1].isNone() ? n : constInt(idx.elems[1], loc, "slice stop");
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      lo = std::clamp<int64_t>(lo, 0, n);
      hi = std::clamp<int64_t>(hi, 0, n);
      std::vector<SVal> e;
      for (int64_t k = lo; k < hi; ++k) e.push_back(obj.elems[k]);
      return SVal::tuple(std::move(e));
    }
    int64_t k = constInt(idx, index.loc, "a tuple index");
    int64_t n = static_cast<int64_t>(obj.elems.size());
    if (k < 0) k += n;
    if (k < 0 || k >= n)
      error(index.loc,
            "tuple index " + std::to_string(k) + " out of range (size " + std::to_string(n) + ")");
    return obj.elems[k];
  }
  if (!obj.isTensor()) error(loc, describe(obj) + " cannot be subscripted");
  // Tensor indexing: only `:` and `None` (x[:, None], x[None, :]).
  std::vector<const ast::Expr *> items;
  if (index.kind == ast::ExprKind::Tuple)
    for (const auto &e : index.list) items.push_back(e.get());
  else
    items.push_back(&index);
  Value *v = obj.v;
  // As Triton's tensor.__getitem__: the i-th item acts at dimension i; a
  // `None` inserts a dimension there, and `:` (also written `None:`) keeps
  // one, even past the rank (it checks nothing).
  auto absent = [](const ast::ExprPtr &part) { return !part || part->kind == ast::ExprKind::None; };
  int dim = 0;
  for (const ast::Expr *it : items) {
    if (it->kind == ast::ExprKind::None) {
      std::vector<int64_t> s = v->type.shape;
      if (dim > static_cast<int>(s.size())) error(it->loc, "too many indices for tensor");
      s.insert(s.begin() + dim, 1);
      // expand_dims needs a tile; a scalar becomes a [1] tile by splat.
      v = v->type.isTile() ? emit(OpCode::ExpandDims, {v}, v->type.withShape(s), it->loc,
                                  {{"axis", int64_t{dim}}})
                           : emit(OpCode::Splat, {v}, Type::tile(s, v->type), it->loc);
      ++dim;
    } else if (it->kind == ast::ExprKind::Slice && absent(it->a) && absent(it->b) &&
               absent(it->c)) {
      ++dim;
    } else {
      error(it->loc, "unsupported tensor index: only ':' and 'None' are allowed",
            "use x[:, None] / x[None, :] to add dimensions; use tl.gather or masks to select "
            "elements");
    }
  }
  return SVal::tensor(v);
}

// ---- expressions ------------------------------------------------------------------------

SVal Lowerer::expr(const ast::Expr &e) {
  SVal v = operand(e);
  requireRepresentable(v, e.loc);
  return v;
}

SVal Lowerer::operand(const ast::Expr &e) {
  using K = ast::ExprKind;
  switch (e.kind) {
    case K::Name:
      return lookupName(e.str, e.loc);
    case K::Int:
      return SVal::wideInteger(static_cast<__int128>(e.ival));
    case K::Float:
      return SVal::floating(e.fval);
    case K::Str:
      return SVal::string(e.str);
    case K::Bool:
      return SVal::boolean(e.ival != 0);
    case K::None:
      return SVal::none();
    case K::Ellipsis: {
      SVal r;
      r.kind = SVal::Kind::Ellipsis;
      return r;
    }
    case K::Attribute:
      return attribute(expr(*e.a), e.str, e.loc);
    case K::Subscript:
      return subscript(expr(*e.a), *e.b, e.loc);
    case K::Slice: {
      SVal s;
      s.kind = SVal::Kind::Slice;
      s.elems.push_back(e.a ? expr(*e.a) : SVal::none());
      s.elems.push_back(e.b ? expr(*e.b) : SVal::none());
      s.elems.push_back(e.c ? expr(*e.c) : SVal::none());
      return s;
    }
    case K::Tuple:
    case K::List: {
      std::vector<SVal> elems;
      for (const auto &x : e.list) elems.push_back(expr(*x));
      return SVal::tuple(std::move(elems));
    }
    case K::Call: {
      SVal callee = expr(*e.a);
      std::vector<SVal> args;
      std::vector<SourceLoc> argLocs;
      for (const auto &x : e.list) {
        if (x->kind == K::Starred) {
          SVal t = expr(*x->a);
          if (t.kind != SVal::Kind::Tuple) error(x->loc, "only tuples can be unpacked with *");
          for (auto &el : t.elems) {
            args.push_back(el);
            argLocs.push_back(x->loc);
          }
          continue;
        }
        args.push_back(expr(*x));
        argLocs.push_back(x->loc);
      }
      std::vector<std::pair<std::string, SVal>> kwargs;
      std::vector<SourceLoc> kwLocs;
      for (const auto &k : e.keywords) {
        if (k.name.empty()) error(k.loc, "**kwargs is not supported in kernels");
        kwargs.emplace_back(k.name, expr(*k.value));
        kwLocs.push_back(k.loc);
      }
      return call(callee, std::move(args), std::move(argLocs), std::move(kwargs), std::move(kwLocs),
                  e.loc);
    }
    case K::BinOp: {
      SVal a = operand(*e.a);
      SVal b = operand(*e.b);
      return binary(e.binop, a, b, e.loc);
    }
    case K::UnaryOp:
      return unary(e.unop, operand(*e.a), e.loc);
    case K::BoolOp: {
      // Compile-time operands short-circuit as in Python; runtime operands
      // become logical and/or of their truth values.
      SVal acc = expr(*e.list[0]);
      for (size_t k = 1; k < e.list.size(); ++k) {
        if (acc.isConst()) {
          bool truth = unary(ast::UnaryOp::Not, acc, e.loc).i == 0;
          if (e.boolop == ast::BoolOp::And ? !truth : truth) return acc;
          acc = expr(*e.list[k]);
          continue;
        }
        SVal rhs = expr(*e.list[k]);
        for (const SVal *v : {&acc, &rhs})
          if (v->isTensor() && !v->v->type.shape.empty()) {  // Triton's deprecation warning
            const char *bit = e.boolop == ast::BoolOp::And ? "&" : "|";
            warn(e.loc,
                 std::string("'and' and 'or' on tensors that are not scalars are deprecated in "
                             "Triton; use '") +
                     bit + "'",
                 std::string("write the element-wise form, e.g. (a > 0) ") + bit + " (b > 0)");
            break;
          }
        Value *x = cast(tensorArg(acc, e.loc, "operand"), Type::scalar(DType::I1), e.loc);
        Value *y = cast(tensorArg(rhs, e.list[k]->loc, "operand"), Type::scalar(DType::I1), e.loc);
        broadcastPair(x, y, e.loc);
        acc = SVal::tensor(
            emit(e.boolop == ast::BoolOp::And ? OpCode::And : OpCode::Or, {x, y}, x->type, e.loc));
      }
      return acc;
    }
    case K::Compare: {
      SVal lhs = operand(*e.a);
      SVal result;
      for (size_t k = 0; k < e.cmpops.size(); ++k) {
        SVal rhs = operand(*e.list[k]);
        SVal r = compare(e.cmpops[k], lhs, rhs, e.loc);
        if (k == 0)
          result = r;
        else
          result = binary(ast::BinOp::BitAnd, result, r, e.loc);
        lhs = rhs;
      }
      return result;
    }
    case K::IfExp: {
      SVal cond = expr(*e.a);
      if (cond.isConst()) {
        bool truth = unary(ast::UnaryOp::Not, cond, e.loc).i == 0;
        return truth ? expr(*e.b) : expr(*e.c);
      }
      return lowerIfExp(*this, e, cond);
    }
    case K::JoinedStr: {
      std::string out;
      for (const auto &p : e.list) {
        if (p->kind == K::Str) {
          out += p->str;
          continue;
        }
        SVal v = expr(*p->a);
        switch (v.kind) {
          case SVal::Kind::Int:
            out += std::to_string(v.i);
            break;
          case SVal::Kind::Bool:
            out += v.i ? "True" : "False";
            break;
          case SVal::Kind::Float: {
            char buf[64];
            snprintf(buf, sizeof buf, "%g", v.f);
            out += buf;
            break;
          }
          case SVal::Kind::Str:
            out += v.s;
            break;
          case SVal::Kind::None:
            out += "None";
            break;
          case SVal::Kind::DType:
            out += tritonName(v.dtype);
            break;
          default:
            out += describe(v);
            break;
        }
      }
      return SVal::string(out);
    }
    case K::FormattedValue:
      return expr(*e.a);
    case K::ListComp:
      return listComprehension(e);
    case K::CompFor:
      error(e.loc, "internal error: a comprehension clause outside its comprehension");
    case K::Starred:
      error(e.loc, "starred expression is only allowed in a call's arguments");
    case K::NamedExpr:
      return namedExpr(e);
    case K::Unsupported:
      error(e.loc, "unsupported Python syntax in a kernel: " + e.str,
            "kernels support a subset of Python; see the language reference");
  }
  error(e.loc, "unsupported expression");
}

// [elt for target in iterable if cond ...]: evaluated at compile time, as
// Triton does, into a tuple. Iterables are tuples and ranges with constant
// bounds, conditions compile-time values. As in Python 3, the targets are
// the comprehension's own: names they shadow come back afterwards.
SVal Lowerer::listComprehension(const ast::Expr &e) {
  constexpr int64_t kMaxElems = 1 << 16;
  std::map<std::string, std::optional<SVal>> shadowed;
  std::function<void(const ast::Expr &)> remember = [&](const ast::Expr &t) {
    if (t.kind == ast::ExprKind::Name) {
      if (!shadowed.count(t.str)) {
        auto it = env_->find(t.str);
        shadowed[t.str] = it == env_->end() ? std::nullopt : std::optional<SVal>(it->second);
      }
    } else {
      for (const auto &x : t.list) remember(*x);
    }
  };
  for (const auto &clause : e.list) remember(*clause->a);
  std::vector<SVal> out;
  std::function<void(size_t)> clause = [&](size_t k) {
    if (k == e.list.size()) {
      if (static_cast<int64_t>(out.size()) >= kMaxElems)
        error(e.loc,
              "a list comprehension makes more than " + std::to_string(kMaxElems) + " elements");
      out.push_back(expr(*e.a));
      return;
    }
    const ast::Expr &c = *e.list[k];
    for (const SVal &item : compileTimeItems(*this, *c.b, "a list comprehension", kMaxElems)) {
      assign(*c.a, item);
      bool keep = true;
      for (const auto &cond : c.list) {
        SVal t = expr(*cond);
        if (!t.isConst())
          error(cond->loc, "a list comprehension's condition must be a compile-time value",
                "the comprehension runs at compile time; use tl.where for runtime choices");
        keep = keep && unary(ast::UnaryOp::Not, t, cond->loc).i == 0;
      }
      if (keep) clause(k + 1);
    }
  };
  clause(0);
  for (auto &[name, value] : shadowed) {
    if (value)
      (*env_)[name] = *value;
    else
      env_->erase(name);
  }
  return SVal::tuple(std::move(out));
}

// ---- calls --------------------------------------------------------------------------------

namespace {
SVal parseDefault(const std::string &text) {
  if (text == "None") return SVal::none();
  if (text == "True") return SVal::boolean(true);
  if (text == "False") return SVal::boolean(false);
  if (text == "()") return SVal::tuple({});
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"'))
    return SVal::string(text.substr(1, text.size() - 2));
  // A dtype default such as tl.float32 (tl.dot_scaled's out_dtype).
  if (text.rfind("tl.", 0) == 0)
    if (auto d = dtypeFromTritonName(std::string_view(text).substr(3))) return SVal::dtypeVal(*d);
  if (text.find_first_of(".e") != std::string::npos) return SVal::floating(std::stod(text));
  return SVal::integer(std::stoll(text));
}
}  // namespace

// Name(a, b=...) for a namedtuple class: a Tuple carrying the class's
// "Name(field,...)", so that its fields read as attributes.
SVal Lowerer::newNamedTuple(const SVal &type, const std::vector<SVal> &args,
                            const std::vector<std::pair<std::string, SVal>> &kwargs,
                            SourceLoc loc) {
  auto t = parseTupleType(type.s);
  if (!t) error(loc, "internal error: a namedtuple class '" + type.s + "'");
  const size_t n = t->fields.size();
  if (args.size() > n)
    error(loc, t->name + "() takes " + std::to_string(n) + " arguments but " +
                   std::to_string(args.size()) + " were given");
  std::vector<std::optional<SVal>> values(n);
  for (size_t i = 0; i < args.size(); ++i) values[i] = args[i];
  for (const auto &[name, value] : kwargs) {
    auto it = std::find(t->fields.begin(), t->fields.end(), name);
    if (it == t->fields.end())
      error(loc, t->name + "() got an unexpected keyword argument '" + name + "'",
            "its fields are " + type.s.substr(type.s.find('(')));
    size_t i = static_cast<size_t>(it - t->fields.begin());
    if (values[i]) error(loc, t->name + "() got multiple values for argument '" + name + "'");
    values[i] = value;
  }
  SVal r = SVal::tuple({});
  r.s = type.s;
  const size_t firstDefault = n - (type.elems.size() - classAttributeCount(type));
  for (size_t i = 0; i < n; ++i) {
    if (!values[i] && i >= firstDefault) values[i] = type.elems[i - firstDefault];
    if (!values[i] && type.i > 0)  // an aggregate's field default is a class attribute
      if (auto d = classAttribute(type, t->fields[i], nullptr)) values[i] = *d;
    if (!values[i]) error(loc, t->name + "() missing required argument '" + t->fields[i] + "'");
    r.elems.push_back(*values[i]);
  }
  return r;
}

SVal Lowerer::call(const SVal &callee, std::vector<SVal> args, std::vector<SourceLoc> argLocs,
                   std::vector<std::pair<std::string, SVal>> kwargs, std::vector<SourceLoc> kwLocs,
                   SourceLoc loc) {
  if (callee.kind == SVal::Kind::Function) {
    if (!callee.elems.empty()) args.insert(args.begin(), callee.elems[0]);  // a bound method
    return inlineFunction(callee, std::move(args), std::move(kwargs), loc);
  }
  if (callee.kind == SVal::Kind::TupleType) {
    if (callee.i > 0) return newAggregate(callee, std::move(args), std::move(kwargs), loc);
    return newNamedTuple(callee, args, kwargs, loc);
  }
  if (callee.kind != SVal::Kind::Builtin) {
    if (callee.kind == SVal::Kind::DType)
      error(loc, "a dtype is not callable",
            "use x.to(" + std::string("tl.") + tritonName(callee.dtype) + ")");
    error(loc, describe(callee) + " is not callable");
  }
  const BuiltinDef *def = findBuiltin(callee.s);
  std::string shown = callee.s.rfind("builtins.", 0) == 0 ? callee.s.substr(9) : callee.s;
  if (!def) error(loc, "'" + shown + "' is not supported in kernels");
  // Triton's builtins take the code generator's state as `_semantic=`
  // (aggregate methods written in Python pass theirs on): none here.
  for (size_t k = kwargs.size(); k-- > 0;)
    if (kwargs[k].first == "_semantic" || kwargs[k].first == "_generator") {
      kwargs.erase(kwargs.begin() + static_cast<std::ptrdiff_t>(k));
      if (k < kwLocs.size()) kwLocs.erase(kwLocs.begin() + static_cast<std::ptrdiff_t>(k));
    }
  // A bound method: self is the first argument.
  if (!callee.elems.empty()) {
    args.insert(args.begin(), callee.elems[0]);
    argLocs.insert(argLocs.begin(), loc);
  }
  CallArgs ca;
  ca.loc = loc;
  ca.name = shown;
  int varargIndex = -1;
  bool takesKwargs = false;
  std::vector<std::string> defaults;
  for (const char *p : def->params) {
    std::string s = p;
    if (s.starts_with("**")) {
      takesKwargs = true;
      continue;
    }
    std::string dflt;
    bool hasDefault = false;
    if (auto eq = s.find('='); eq != std::string::npos) {
      dflt = s.substr(eq + 1);
      s = s.substr(0, eq);
      hasDefault = true;
    }
    if (!s.empty() && s[0] == '*') {
      varargIndex = static_cast<int>(ca.params.size());
      s = s.substr(1);
    }
    ca.params.push_back(s);
    defaults.push_back(hasDefault ? dflt : std::string("\x01"));
  }
  size_t n = ca.params.size();
  ca.values.assign(n, SVal::none());
  ca.locs.assign(n, loc);
  ca.given.assign(n, false);
  size_t pos = 0;
  for (size_t k = 0; k < args.size(); ++k) {
    if (varargIndex >= 0 && pos == static_cast<size_t>(varargIndex)) {
      ca.varargs.push_back(args[k]);
      ca.varargLocs.push_back(argLocs[k]);
      ca.given[pos] = true;
      continue;
    }
    if (pos >= n)
      error(argLocs[k], shown + "() takes " + std::to_string(n) + " positional argument" +
                            (n == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                            " were given");
    ca.values[pos] = args[k];
    ca.locs[pos] = argLocs[k];
    ca.given[pos] = true;
    ++pos;
  }
  for (size_t k = 0; k < kwargs.size(); ++k) {
    auto it = std::find(ca.params.begin(), ca.params.end(), kwargs[k].first);
    if (takesKwargs && it == ca.params.end()) {
      ca.extraKwargs.push_back(kwargs[k]);
      ca.extraKwargLocs.push_back(kwLocs[k]);
      continue;
    }
    if (it == ca.params.end() || static_cast<int>(it - ca.params.begin()) == varargIndex) {
      std::string list;
      for (size_t q = 0; q < n; ++q)
        if (static_cast<int>(q) != varargIndex) list += (list.empty() ? "" : ", ") + ca.params[q];
      error(kwLocs[k], shown + "() got an unexpected keyword argument '" + kwargs[k].first + "'",
            "its parameters are: " + list);
    }
    size_t idx = it - ca.params.begin();
    if (ca.given[idx])
      error(kwLocs[k], shown + "() got multiple values for argument '" + kwargs[k].first + "'");
    ca.values[idx] = kwargs[k].second;
    ca.locs[idx] = kwLocs[k];
    ca.given[idx] = true;
  }
  for (size_t q = 0; q < n; ++q) {
    if (ca.given[q] || static_cast<int>(q) == varargIndex) continue;
    if (defaults[q] == "\x01")
      error(loc, shown + "() missing required argument '" + ca.params[q] + "'");
    ca.values[q] = parseDefault(defaults[q]);
  }
  return def->fn(*this, ca);
}

}  // namespace tessera::frontend
