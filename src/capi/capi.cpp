// The C ABI over the compile pipeline (runtime/compiler.h). Every entry point
// catches every exception and turns it into a status plus a thread-local
// message; nothing C++ crosses the boundary.
#include "tessera/capi.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/frontend.h"
#include "runtime/compiler.h"
#include "runtime/cuda_driver.h"
#include "runtime/serialize.h"
#include "support/diagnostics.h"
#include "support/scratch.h"

struct tessera_kernel {
  // What a launch checks each argument against, worked out once.
  enum class Param : uint8_t { kPointer, kInt, kFloat };
  std::shared_ptr<tessera::KernelImpl> impl;
  std::vector<std::pair<std::string, std::string>> params;  // (name, type), cached
  std::vector<Param> kinds;                                 // one per params entry
  std::vector<tessera::DType> dtypes;                       // kInt and kFloat entries' types
};

namespace {

using tessera::DType;
using tessera::frontend::ArgSpec;
using tessera::frontend::ConstValue;
using tessera::frontend::Global;

struct LastError {
  tessera_status status = TESSERA_OK;
  std::string message;
};

LastError &lastError() {
  thread_local LastError e;
  return e;
}

// A bad call of the API, reported as TESSERA_ERROR_INVALID_ARGUMENT.
struct InvalidArgument {
  std::string message;
};

void setError(tessera_status status, std::string message) {
  LastError &e = lastError();
  e.status = status;
  e.message = std::move(message);
  if (!e.message.empty() && e.message.back() != '\n') e.message += '\n';
}

// Runs `body`, mapping every exception to a status. Returns the status.
template <typename F>
tessera_status guarded(F &&body) {
  try {
    body();
    return TESSERA_OK;
  } catch (const InvalidArgument &e) {
    setError(TESSERA_ERROR_INVALID_ARGUMENT, "tessera: " + e.message);
    return TESSERA_ERROR_INVALID_ARGUMENT;
  } catch (const tessera::CompilationError &e) {
    setError(TESSERA_ERROR_COMPILATION, e.what());
    return TESSERA_ERROR_COMPILATION;
  } catch (const tessera::KernelError &e) {
    setError(TESSERA_ERROR_KERNEL, e.what());
    return TESSERA_ERROR_KERNEL;
  } catch (const tessera::Error &e) {
    // The CUDA driver's failures (module load, launch): errors of running.
    setError(TESSERA_ERROR_KERNEL, e.what());
    return TESSERA_ERROR_KERNEL;
  } catch (const tessera::CompileError &e) {
    // A diagnostic that escaped the pipeline's own rendering (no location).
    tessera::SourceManager none;
    setError(TESSERA_ERROR_COMPILATION, tessera::render(none, e.diag));
    return TESSERA_ERROR_COMPILATION;
  } catch (const tessera::RuntimeError &e) {
    setError(TESSERA_ERROR_KERNEL, e.what());
    return TESSERA_ERROR_KERNEL;
  } catch (const std::bad_alloc &) {
    setError(TESSERA_ERROR_INTERNAL, "tessera: out of memory");
    return TESSERA_ERROR_INTERNAL;
  } catch (const std::exception &e) {
    setError(TESSERA_ERROR_INTERNAL, std::string("tessera: internal error: ") + e.what());
    return TESSERA_ERROR_INTERNAL;
  } catch (...) {
    setError(TESSERA_ERROR_INTERNAL, "tessera: internal error: unknown exception");
    return TESSERA_ERROR_INTERNAL;
  }
}

// A string_view, so that a literal message costs nothing when `cond` holds
// (launches check several on every call).
void require(bool cond, std::string_view message) {
  if (!cond) throw InvalidArgument{std::string(message)};
}

const tessera_kernel &kernelRef(const tessera_kernel *k) {
  require(k != nullptr, "the kernel handle is NULL");
  return *k;
}

// "fp32", "float32", "tl.float32" -> DType.
std::optional<DType> parseDType(std::string_view name) {
  if (name.starts_with("tl.")) name.remove_prefix(3);
  if (auto d = tessera::dtypeFromSignatureName(name)) return d;
  if (auto d = tessera::dtypeFromTritonName(name)) return d;
  if (auto d = tessera::dtypeFromIrName(name)) return d;
  return std::nullopt;
}

DType dtypeArg(const char *name, const std::string &what) {
  require(name != nullptr, what + ": the dtype is NULL");
  auto d = parseDType(name);
  require(d.has_value(), what + ": unknown dtype '" + std::string(name) +
                             "' (use a signature name such as fp32, bf16, i32, u8)");
  return *d;
}

// A namedtuple's "Name(field,...)" (validated: identifiers), or "" for NULL.
std::string tupleTypeName(const char *s, const std::string &what) {
  if (!s) return "";
  require(
      tessera::frontend::parseTupleType(s).has_value(),
      what + ": a namedtuple is described as \"Name(field,...)\", got \"" + std::string(s) + "\"");
  return s;
}

ConstValue constValue(const tessera_value &v, const std::string &what, int depth = 0) {
  require(depth < 64, what + ": tuple nesting is too deep");
  switch (v.kind) {
    case TESSERA_VALUE_NONE:
      return ConstValue::none();
    case TESSERA_VALUE_BOOL:
      return ConstValue::boolean(v.i != 0);
    case TESSERA_VALUE_INT:
      return ConstValue::integer(v.i);
    case TESSERA_VALUE_FLOAT:
      return ConstValue::floating(v.f);
    case TESSERA_VALUE_STRING:
      require(v.s != nullptr, what + ": the string value is NULL");
      return ConstValue::string(v.s);
    case TESSERA_VALUE_DTYPE: {
      // "*fp16": tl.pointer_type(tl.float16), a pointer dtype as `ptr.dtype` gives.
      const bool pointer = v.s != nullptr && v.s[0] == '*';
      ConstValue d = ConstValue::dtypeValue(dtypeArg(pointer ? v.s + 1 : v.s, what));
      d.i = pointer;
      return d;
    }
    case TESSERA_VALUE_BUILTIN: {
      require(v.s != nullptr, what + ": the builtin name is NULL");
      const auto &names = tessera::frontend::builtinNames();
      require(std::binary_search(names.begin(), names.end(), std::string(v.s)),
              what + ": '" + std::string(v.s) + "' is not a kernel-language function");
      ConstValue b;
      b.kind = ConstValue::Kind::Builtin;
      b.s = v.s;
      return b;
    }
    case TESSERA_VALUE_FUNCTION: {
      require(v.s != nullptr, what + ": the function name is NULL");
      require(v.i >= 0, what + ": the source unit index is negative");
      ConstValue f;
      f.kind = ConstValue::Kind::Function;
      f.i = v.i;
      f.s = v.s;
      return f;
    }
    case TESSERA_VALUE_TUPLE_TYPE: {
      require(v.s != nullptr, what + ": the namedtuple class is NULL");
      ConstValue t;
      t.kind = ConstValue::Kind::TupleType;
      t.s = tupleTypeName(v.s, what);
      require(v.elems != nullptr || v.num_elems == 0, what + ": the defaults are NULL");
      require(v.i >= 0 && static_cast<uint64_t>(v.i) <= v.num_elems + 1,
              what + ": an aggregate's attribute count (i - 1) exceeds its elements");
      const size_t attrs = v.i > 0 ? static_cast<size_t>(v.i - 1) : 0;
      require(v.num_elems - attrs <= tessera::frontend::parseTupleType(t.s)->fields.size(),
              what + ": more defaults than fields");
      t.i = v.i;
      for (size_t i = 0; i < v.num_elems; ++i) {
        const bool attr = i >= v.num_elems - attrs;
        ConstValue e = constValue(
            v.elems[i], what + (attr ? " attribute " : " default ") + std::to_string(i), depth + 1);
        if (attr)
          require(e.kind == ConstValue::Kind::Tuple && e.elems.size() == 3 &&
                      e.elems[0].kind == ConstValue::Kind::Str &&
                      e.elems[1].kind == ConstValue::Kind::Bool,
                  what +
                      ": an aggregate's attribute is a TUPLE (STRING name, BOOL binds self, "
                      "value)");
        t.elems.push_back(std::move(e));
      }
      return t;
    }
    case TESSERA_VALUE_TUPLE: {
      require(v.elems != nullptr || v.num_elems == 0, what + ": the tuple elements are NULL");
      ConstValue t;
      t.kind = ConstValue::Kind::Tuple;
      t.s = tupleTypeName(v.s, what);
      for (size_t i = 0; i < v.num_elems; ++i)
        t.elems.push_back(constValue(v.elems[i], what + "[" + std::to_string(i) + "]", depth + 1));
      return t;
    }
  }
  throw InvalidArgument{what + ": unknown value kind " + std::to_string(v.kind)};
}

ArgSpec argSpec(const tessera_arg_spec &s, const std::string &what, int depth) {
  ArgSpec a;
  switch (s.kind) {
    case TESSERA_ARG_POINTER:
    case TESSERA_ARG_SCALAR: {
      a.kind = s.kind == TESSERA_ARG_POINTER ? ArgSpec::Kind::Pointer : ArgSpec::Kind::Scalar;
      a.dtype = dtypeArg(s.dtype, what);
      require(s.divisibility == 0 || s.divisibility == 1 || s.divisibility == 16,
              what + ": divisibility must be 1 or 16, got " + std::to_string(s.divisibility));
      a.divisibility = s.divisibility == 16 ? 16 : 1;
      bool isInt = tessera::isInt(a.dtype);
      require(a.kind == ArgSpec::Kind::Pointer || isInt || a.divisibility == 1,
              what + ": divisibility applies to pointers and integers");
      require(s.equal_to_1 == 0 || (a.kind == ArgSpec::Kind::Scalar && isInt),
              what + ": equal_to_1 applies to integer scalars");
      a.equalToOne = s.equal_to_1 != 0;
      return a;
    }
    case TESSERA_ARG_CONSTEXPR:
      a.kind = ArgSpec::Kind::Constexpr;
      a.value = constValue(s.value, what);
      return a;
    case TESSERA_ARG_TENSOR_DESC: {
      a.kind = ArgSpec::Kind::TensorDesc;
      a.dtype = dtypeArg(s.dtype, what);
      require(s.divisibility == 0 || s.divisibility == 1 || s.divisibility == 16,
              what + ": divisibility must be 1 or 16, got " + std::to_string(s.divisibility));
      a.divisibility = s.divisibility == 16 ? 16 : 1;
      ConstValue v = constValue(s.value, what);
      // (block, padding[, shape divisibility]) or block alone.
      ConstValue block = v;
      if (v.kind == ConstValue::Kind::Tuple && (v.elems.size() == 2 || v.elems.size() == 3) &&
          v.elems[1].kind == ConstValue::Kind::Str) {
        block = v.elems[0];
        if (v.elems.size() == 3) {
          require(v.elems[2].kind == ConstValue::Kind::Tuple,
                  what + ": the shape divisibility must be a tuple of ints");
          for (const ConstValue &d : v.elems[2].elems) {
            require(d.kind == ConstValue::Kind::Int && (d.i == 1 || d.i == 16),
                    what + ": shape divisibility must be 1 or 16");
            a.shapeDivisibility.push_back(d.i);
          }
        }
        require(v.elems[1].s == "zero" || v.elems[1].s == "nan",
                what + ": padding must be \"zero\" or \"nan\", got \"" + v.elems[1].s + "\"");
        a.nanPadding = v.elems[1].s == "nan";
      }
      require(
          block.kind == ConstValue::Kind::Tuple && !block.elems.empty() && block.elems.size() <= 5,
          what + ": the block shape must be a tuple of 1 to 5 ints");
      for (const ConstValue &d : block.elems) {
        require(d.kind == ConstValue::Kind::Int && d.i > 0 && (d.i & (d.i - 1)) == 0,
                what + ": block dimensions must be powers of two");
        a.block.push_back(d.i);
      }
      require(a.shapeDivisibility.empty() || a.shapeDivisibility.size() == a.block.size(),
              what + ": one shape divisibility per dimension of the block");
      return a;
    }
    case TESSERA_ARG_TUPLE: {
      require(depth < 64, what + ": tuples are nested more than 64 deep");
      require(s.elems != nullptr || s.num_elems == 0, what + ": the tuple elements are NULL");
      a.kind = ArgSpec::Kind::Tuple;
      a.tupleType = tupleTypeName(s.dtype, what);
      for (size_t i = 0; i < s.num_elems; ++i)
        a.elems.push_back(argSpec(s.elems[i], what + "[" + std::to_string(i) + "]", depth + 1));
      return a;
    }
  }
  throw InvalidArgument{what + ": unknown kind " + std::to_string(s.kind)};
}

std::vector<std::string> splitPasses(const char *passes) {
  std::vector<std::string> out;
  if (!passes) return out;
  std::string s = passes, cur;
  for (char c : s + ",") {
    if (c == ',') {
      size_t b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
      if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

// The globals of one source unit; `numUnits` bounds JitFunction unit indexes.
tessera::frontend::GlobalMap globalMap(const tessera_global *globals, size_t num, size_t numUnits,
                                       const std::string &where) {
  require(globals != nullptr || num == 0, where + "the globals array is NULL");
  tessera::frontend::GlobalMap out;
  for (size_t i = 0; i < num; ++i) {
    const tessera_global &g = globals[i];
    std::string what = where + "global " + std::to_string(i);
    require(g.name != nullptr && *g.name, what + ": the name is NULL or empty");
    what += " ('" + std::string(g.name) + "')";
    Global gl;
    switch (g.kind) {
      case TESSERA_GLOBAL_CONSTANT:
        gl.kind = Global::Kind::Constant;
        gl.value = constValue(g.value, what);
        break;
      case TESSERA_GLOBAL_MODULE_ALIAS:
        require(g.module != nullptr && *g.module, what + ": the module name is NULL or empty");
        gl.kind = Global::Kind::ModuleAlias;
        gl.module = g.module;
        break;
      case TESSERA_GLOBAL_JIT_FUNCTION:
        require(g.unit >= 0 && static_cast<size_t>(g.unit) < numUnits,
                what + ": unit index " + std::to_string(g.unit) + " is out of range (" +
                    std::to_string(numUnits) + (numUnits == 1 ? " unit)" : " units)"));
        require(g.function != nullptr && *g.function,
                what + ": the function name is NULL or empty");
        gl.kind = Global::Kind::JitFunction;
        gl.unit = static_cast<uint32_t>(g.unit);
        gl.function = g.function;
        break;
      case TESSERA_GLOBAL_OPAQUE:
        require(g.description != nullptr && *g.description,
                what + ": the description is NULL or empty");
        gl.kind = Global::Kind::Opaque;
        gl.description = g.description;
        break;
      default:
        throw InvalidArgument{what + ": unknown kind " + std::to_string(g.kind)};
    }
    out[g.name] = std::move(gl);
  }
  return out;
}

// The options every compile entry point shares: debug, optimize, passes.
tessera::CompileRequest baseRequest(const char *kernelName, const tessera_compile_options *opts) {
  require(kernelName != nullptr && *kernelName, "the kernel name is NULL or empty");
  tessera_compile_options defaults;
  tessera_compile_options_init(&defaults);
  const tessera_compile_options &o = opts ? *opts : defaults;
  tessera::CompileRequest req;
  req.kernel = kernelName;
  req.lower.debug = o.debug != 0;
  req.optimize = o.optimize != 0;
  req.passes = splitPasses(o.passes);
  if (o.target)
    req.target = std::string_view(o.target) == "native" ? tessera::nativeGpuTarget() : o.target;
  req.numWarps = o.num_warps == 0 ? 4 : o.num_warps;
  req.numStages = o.num_stages == 0 ? 3 : o.num_stages;
  req.fpFusion = o.no_fp_fusion == 0;
  req.reflectFtz = o.no_reflect_ftz == 0;
  req.maxRegisters = o.max_registers;
  return req;
}

// A one-unit request from tessera_compile / tessera_compile_signature.
tessera::CompileRequest makeRequest(const char *source, const char *kernelName,
                                    const tessera_compile_options *opts) {
  require(source != nullptr, "the source is NULL");
  tessera::CompileRequest req = baseRequest(kernelName, opts);
  tessera_compile_options defaults;
  tessera_compile_options_init(&defaults);
  const tessera_compile_options &o = opts ? *opts : defaults;
  tessera::SourceUnit unit;
  unit.source = source;
  if (o.file_name) unit.fileName = o.file_name;
  unit.firstLine = o.first_line == 0 ? 1 : o.first_line;
  unit.colOffset = o.col_offset;
  unit.globals = globalMap(o.globals, o.num_globals, 1, "");
  req.units.push_back(std::move(unit));
  return req;
}

std::vector<ArgSpec> argSpecs(const tessera_arg_spec *args, size_t num) {
  require(args != nullptr || num == 0, "the argument spec array is NULL");
  std::vector<ArgSpec> out;
  for (size_t i = 0; i < num; ++i)
    out.push_back(argSpec(args[i], "argument spec " + std::to_string(i), 0));
  return out;
}

// Integer argument `v` of parameter `i` as its register holds it; one its
// type cannot hold (300 for a u8, 2^31 for an i32) is refused, not wrapped.
template <class What>
int64_t intArgument(const tessera_kernel &k, size_t i, int64_t v, const What &what) {
  const DType t = k.dtypes[i];
  if (!tessera::fitsIntType(t, v))
    throw tessera::KernelError(what() + tessera::intOutOfRange(t, v));
  return tessera::wrapToIntType(t, v);
}

tessera_kernel *finish(std::shared_ptr<tessera::KernelImpl> impl) {
  auto k = std::make_unique<tessera_kernel>();
  k->params = impl->params();
  for (const auto &[name, type] : k->params) {
    auto kind = tessera_kernel::Param::kInt;
    DType d = DType::I64;  // pointers and untyped parameters
    if (!type.empty() && type[0] == '*') {
      kind = tessera_kernel::Param::kPointer;
    } else if (const auto dt = tessera::dtypeFromSignatureName(type)) {
      d = *dt;
      if (tessera::isFloat(d)) kind = tessera_kernel::Param::kFloat;
    }
    k->kinds.push_back(kind);
    k->dtypes.push_back(d);
  }
  k->impl = std::move(impl);
  return k.release();
}

}  // namespace

extern "C" {

const char *tessera_last_error(void) {
  return lastError().message.c_str();
}

tessera_status tessera_last_status(void) {
  return lastError().status;
}

void tessera_clear_error(void) {
  lastError().status = TESSERA_OK;
  lastError().message.clear();
}

int tessera_capi_version(void) {
  return TESSERA_CAPI_VERSION;
}

void tessera_compile_options_init(tessera_compile_options *opts) {
  if (!opts) return;
  opts->file_name = "<kernel>";
  opts->first_line = 1;
  opts->col_offset = 0;
  opts->debug = 0;
  opts->optimize = 1;
  opts->passes = nullptr;
  opts->target = nullptr;
  opts->num_warps = 4;
  opts->num_stages = 3;
  opts->no_fp_fusion = 0;
  opts->no_reflect_ftz = 0;
  opts->max_registers = 0;
  opts->globals = nullptr;
  opts->num_globals = 0;
}

tessera_kernel *tessera_compile(const char *source, const char *kernel_name,
                                const tessera_arg_spec *args, size_t num_args,
                                const tessera_compile_options *opts) {
  tessera_kernel *out = nullptr;
  guarded([&] {
    tessera::CompileRequest req = makeRequest(source, kernel_name, opts);
    req.args = argSpecs(args, num_args);
    out = finish(tessera::compileKernel(req));
  });
  return out;
}

tessera_kernel *tessera_compile_signature(const char *source, const char *kernel_name,
                                          const char *signature,
                                          const tessera_compile_options *opts) {
  tessera_kernel *out = nullptr;
  guarded([&] {
    tessera::CompileRequest req = makeRequest(source, kernel_name, opts);
    require(signature != nullptr, "the signature is NULL");
    req.args = tessera::frontend::parseSignature(signature);  // CompileError: no location
    out = finish(tessera::compileKernel(req));
  });
  return out;
}

void tessera_kernel_free(tessera_kernel *kernel) {
  delete kernel;
}

const char *tessera_kernel_name(const tessera_kernel *kernel) {
  const char *out = nullptr;
  guarded([&] { out = kernelRef(kernel).impl->name().c_str(); });
  return out;
}

size_t tessera_kernel_num_stages(const tessera_kernel *kernel) {
  size_t out = 0;
  guarded([&] { out = kernelRef(kernel).impl->stages().size(); });
  return out;
}

const char *tessera_kernel_stage_name(const tessera_kernel *kernel, size_t index) {
  const char *out = nullptr;
  guarded([&] {
    const auto &stages = kernelRef(kernel).impl->stages();
    require(index < stages.size(), "stage index " + std::to_string(index) + " out of range (" +
                                       std::to_string(stages.size()) + " stages)");
    out = stages[index].first.c_str();
  });
  return out;
}

const char *tessera_kernel_ir(const tessera_kernel *kernel, const char *stage) {
  const char *out = nullptr;
  guarded([&] {
    const auto &stages = kernelRef(kernel).impl->stages();
    require(stage != nullptr, "the stage name is NULL");
    std::string known;
    for (const auto &[name, text] : stages) {
      if (name == stage) {
        out = text.c_str();
        return;
      }
      known += (known.empty() ? "" : ", ") + name;
    }
    throw InvalidArgument{"kernel '" + kernel->impl->name() + "' has no IR stage '" + stage +
                          "' (stages: " + known + ")"};
  });
  return out;
}

size_t tessera_kernel_num_params(const tessera_kernel *kernel) {
  size_t out = 0;
  guarded([&] { out = kernelRef(kernel).params.size(); });
  return out;
}

const char *tessera_kernel_param_name(const tessera_kernel *kernel, size_t index) {
  const char *out = nullptr;
  guarded([&] {
    const auto &params = kernelRef(kernel).params;
    require(index < params.size(), "parameter index " + std::to_string(index) + " out of range (" +
                                       std::to_string(params.size()) + " runtime parameters)");
    out = params[index].first.c_str();
  });
  return out;
}

size_t tessera_kernel_num_warnings(const tessera_kernel *kernel) {
  size_t out = 0;
  guarded([&] { out = kernelRef(kernel).impl->warnings().size(); });
  return out;
}

const char *tessera_kernel_warning(const tessera_kernel *kernel, size_t index, const char **file,
                                   int32_t *line) {
  const char *out = nullptr;
  guarded([&] {
    const auto &warnings = kernelRef(kernel).impl->warnings();
    require(index < warnings.size(), "warning index " + std::to_string(index) + " out of range (" +
                                         std::to_string(warnings.size()) + " warnings)");
    const tessera::CompileWarning &w = warnings[index];
    if (file) *file = w.file.c_str();
    if (line) *line = w.line;
    out = w.text.c_str();
  });
  return out;
}

const char *tessera_kernel_param_type(const tessera_kernel *kernel, size_t index) {
  const char *out = nullptr;
  guarded([&] {
    const auto &params = kernelRef(kernel).params;
    require(index < params.size(), "parameter index " + std::to_string(index) + " out of range (" +
                                       std::to_string(params.size()) + " runtime parameters)");
    out = params[index].second.c_str();
  });
  return out;
}

tessera_status tessera_kernel_run(const tessera_kernel *kernel, const tessera_run_arg *args,
                                  size_t num_args, int64_t gx, int64_t gy, int64_t gz,
                                  int32_t num_threads) {
  return guarded([&] {
    const tessera_kernel &k = kernelRef(kernel);
    const std::string &kname = k.impl->name();
    require(args != nullptr || num_args == 0, "the run argument array is NULL");
    if (gx < 0 || gy < 0 || gz < 0)  // the message built only when needed: every launch runs this
      throw InvalidArgument{"grid dimensions must not be negative, got (" + std::to_string(gx) +
                            ", " + std::to_string(gy) + ", " + std::to_string(gz) + ")"};
    require(num_threads >= 0, "num_threads must not be negative");
    const auto &params = k.params;
    if (num_args != params.size())
      throw tessera::KernelError("kernel '" + kname + "' takes " + std::to_string(params.size()) +
                                 " runtime arguments but " + std::to_string(num_args) +
                                 " were given");
    tessera::Scratch<tessera::interp::ArgValue, 32> values(num_args);  // no allocation per launch
    tessera::Scratch<tessera::interp::HostBuffer, 32> buffers(num_args);
    size_t numBuffers = 0;
    for (size_t i = 0; i < num_args; ++i) {
      const tessera_run_arg &a = args[i];
      // Not a structured binding: Clang before 16 cannot capture one in a lambda.
      const std::string &pname = params[i].first, &ptype = params[i].second;
      // Built only for a message: this loop is on every launch.
      auto what = [&] {
        return "argument " + std::to_string(i) + " ('" + pname + "', " + ptype + ") of kernel '" +
               kname + "'";
      };
      const bool isPtr = k.kinds[i] == tessera_kernel::Param::kPointer;
      const bool isFloat = k.kinds[i] == tessera_kernel::Param::kFloat;
      switch (a.kind) {
        case TESSERA_RUN_BUFFER:
        case TESSERA_RUN_BUFFER_READONLY:
          if (!isPtr) throw tessera::KernelError(what() + " must be a number, got a buffer");
          if (a.data == nullptr && a.bytes != 0)
            throw InvalidArgument{what() + ": the buffer is NULL"};
          values[i] = tessera::interp::ArgValue::pointer(a.data);
          buffers[numBuffers++] = {a.data, a.bytes, a.name ? std::string_view(a.name) : pname,
                                   a.kind == TESSERA_RUN_BUFFER_READONLY};
          break;
        case TESSERA_RUN_INT:
          if (isPtr) throw tessera::KernelError(what() + " must be a buffer, got an integer");
          values[i] = isFloat ? tessera::interp::ArgValue::floating(static_cast<double>(a.i))
                              : tessera::interp::ArgValue::integer(intArgument(k, i, a.i, what));
          break;
        case TESSERA_RUN_FLOAT:
          if (isPtr) throw tessera::KernelError(what() + " must be a buffer, got a float");
          if (!isFloat) throw tessera::KernelError(what() + " must be an integer, got a float");
          values[i] = tessera::interp::ArgValue::floating(a.f);
          break;
        default:
          throw InvalidArgument{what() + ": unknown run argument kind " + std::to_string(a.kind)};
      }
    }
    if (gx == 0 || gy == 0 || gz == 0) return;  // an empty grid runs nothing
    k.impl->runInterp({values.data(), num_args}, {buffers.data(), numBuffers}, {gx, gy, gz},
                      num_threads);
  });
}

void tessera_interrupt_runs(void) {
  tessera::interp::interruptRuns();
}

tessera_kernel *tessera_compile_units(const tessera_source_unit *units, size_t num_units,
                                      const char *kernel_name, const tessera_arg_spec *args,
                                      size_t num_args, const tessera_compile_options *opts) {
  tessera_kernel *out = nullptr;
  guarded([&] {
    require(units != nullptr, "the units array is NULL");
    require(num_units > 0, "there are no source units (units[0] must define the kernel)");
    require(num_units <= UINT32_MAX, "too many source units");
    tessera::CompileRequest req = baseRequest(kernel_name, opts);
    for (size_t i = 0; i < num_units; ++i) {
      const tessera_source_unit &u = units[i];
      std::string where = "unit " + std::to_string(i) + ": ";
      require(u.source != nullptr, where + "the source is NULL");
      tessera::SourceUnit unit;
      unit.source = u.source;
      if (u.file_name) unit.fileName = u.file_name;
      unit.firstLine = u.first_line == 0 ? 1 : u.first_line;
      unit.colOffset = u.col_offset;
      unit.globals = globalMap(u.globals, u.num_globals, num_units, where);
      req.units.push_back(std::move(unit));
    }
    req.args = argSpecs(args, num_args);
    out = finish(tessera::compileKernel(req));
  });
  return out;
}

tessera_status tessera_kernel_serialize(const tessera_kernel *kernel, char **data, size_t *size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return guarded([&] {
    require(data != nullptr && size != nullptr, "the output pointers are NULL");
    std::string bytes = tessera::serializeKernel(*kernelRef(kernel).impl);
    char *p = static_cast<char *>(std::malloc(bytes.empty() ? 1 : bytes.size()));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, bytes.data(), bytes.size());
    *data = p;
    *size = bytes.size();
  });
}

tessera_kernel *tessera_kernel_deserialize(const void *data, size_t size) {
  tessera_kernel *out = nullptr;
  guarded([&] {
    // Every rejection reads the same way, so that callers (a disk cache) can
    // tell "recompile" from a bug by the status alone.
    try {
      if (data == nullptr) throw tessera::InvalidCachedKernel("the data pointer is NULL");
      out = finish(
          tessera::deserializeKernel(std::string_view(static_cast<const char *>(data), size)));
    } catch (const tessera::InvalidCachedKernel &e) {
      throw InvalidArgument{e.what()};
    }
  });
  return out;
}

void tessera_free(void *p) {
  std::free(p);
}

const char *tessera_version(void) {
  const char *out = nullptr;
  guarded([&] { out = tessera::compilerVersion().c_str(); });
  return out;
}

size_t tessera_builtin_count(void) {
  size_t out = 0;
  guarded([&] { out = tessera::frontend::builtinNames().size(); });
  return out;
}

const char *tessera_builtin_name(size_t index) {
  const char *out = nullptr;
  guarded([&] {
    const auto &names = tessera::frontend::builtinNames();
    require(index < names.size(), "builtin index " + std::to_string(index) + " out of range (" +
                                      std::to_string(names.size()) + " builtins)");
    out = names[index].c_str();
  });
  return out;
}

tessera_status tessera_kernel_launch_cuda(const tessera_kernel *kernel, const tessera_run_arg *args,
                                          size_t num_args, int64_t gx, int64_t gy, int64_t gz,
                                          void *stream, int32_t device) {
  return guarded([&] {
    const tessera_kernel &k = kernelRef(kernel);
    require(args != nullptr || num_args == 0, "the run argument array is NULL");
    require(gx >= 0 && gy >= 0 && gz >= 0, "grid dimensions must not be negative");
    const auto &params = k.params;
    if (num_args != params.size())
      throw tessera::KernelError("kernel '" + k.impl->name() + "' takes " +
                                 std::to_string(params.size()) + " runtime arguments but " +
                                 std::to_string(num_args) + " were given");
    tessera::Scratch<tessera::interp::ArgValue, 32> values(num_args);
    for (size_t i = 0; i < num_args; ++i) {
      const tessera_run_arg &a = args[i];
      const bool isPtr = k.kinds[i] == tessera_kernel::Param::kPointer;
      const bool isFloat = k.kinds[i] == tessera_kernel::Param::kFloat;
      auto what = [&] {
        return "argument " + std::to_string(i) + " ('" + params[i].first + "') of kernel '" +
               k.impl->name() + "'";
      };
      switch (a.kind) {
        case TESSERA_RUN_BUFFER:
          if (!isPtr) throw tessera::KernelError(what() + " must be a number, got a buffer");
          values[i] = tessera::interp::ArgValue::pointer(a.data);
          break;
        case TESSERA_RUN_BUFFER_READONLY:  // the GPU cannot refuse a store into it
          throw InvalidArgument{what() +
                                ": read-only memory cannot be passed to a GPU kernel; pass a "
                                "writable copy"};
        case TESSERA_RUN_INT:
          if (isPtr) throw tessera::KernelError(what() + " must be a device pointer");
          values[i] = isFloat ? tessera::interp::ArgValue::floating(static_cast<double>(a.i))
                              : tessera::interp::ArgValue::integer(intArgument(k, i, a.i, what));
          break;
        case TESSERA_RUN_FLOAT:
          if (isPtr) throw tessera::KernelError(what() + " must be a device pointer");
          if (!isFloat) throw tessera::KernelError(what() + " must be an integer, got a float");
          values[i] = tessera::interp::ArgValue::floating(a.f);
          break;
        default:
          throw InvalidArgument{what() + ": unknown run argument kind " + std::to_string(a.kind)};
      }
    }
    if (gx == 0 || gy == 0 || gz == 0) return;
    if (device < 0) device = tessera::cuda::currentDevice();
    k.impl->launchCuda({values.data(), num_args}, {gx, gy, gz}, stream, device);
  });
}

tessera_status tessera_kernel_cuda_info(const tessera_kernel *kernel, int32_t device,
                                        tessera_cuda_info *out) {
  return guarded([&] {
    const tessera_kernel &k = kernelRef(kernel);
    require(out != nullptr, "the output struct is NULL");
    const tessera::KernelImpl::CudaUse use = k.impl->cudaUse(device);
    out->num_regs = use.numRegs;
    out->local_bytes = use.localBytes;
    out->shared_bytes = use.sharedBytes;
    out->num_warps = k.impl->numWarps();
    out->block_threads = use.blockThreads;
  });
}

int32_t tessera_cuda_available(const char **why) {
  static thread_local std::string reason;
  reason.clear();
  bool ok = tessera::cuda::driverAvailable(&reason);
  if (why) *why = reason.c_str();
  return ok ? 1 : 0;
}

int32_t tessera_cuda_capability(int32_t device) {
  int32_t out = -1;
  guarded([&] {
    const auto &info = tessera::cuda::deviceInfo(device);
    out = info.major * 10 + info.minor;
  });
  return out;
}

int32_t tessera_cuda_device_count(void) {
  int32_t out = -1;
  guarded([&] { out = tessera::cuda::deviceCount(); });
  return out;
}

tessera_status tessera_cuda_device_properties(int32_t device, tessera_cuda_device_props *out) {
  return guarded([&] {
    require(out != nullptr, "the output struct is NULL");
    const auto &info = tessera::cuda::deviceInfo(device);
    *out = {};
    info.name.copy(out->name, sizeof out->name - 1);
    out->major = info.major;
    out->minor = info.minor;
    out->multiprocessor_count = info.smCount;
    out->max_threads_per_block = info.maxThreadsPerBlock;
    out->warp_size = info.warpSize;
    out->max_regs_per_block = info.maxRegsPerBlock;
    out->max_shared_per_block = info.sharedPerBlock;
    out->max_shared_optin = info.sharedPerBlockOptin;
    out->l2_bytes = info.l2Bytes;
    out->total_memory = info.totalMem;
    out->sm_clock_khz = info.clockKHz;
    out->mem_clock_khz = info.memClockKHz;
    out->mem_bus_width_bits = info.memBusWidth;
  });
}

}  // extern "C"
