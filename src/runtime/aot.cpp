// Ahead-of-time launchers: C source around embedded PTX (aot.h).
#include "runtime/aot.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "codegen/ptx/gpu_passes.h"
#include "ir/types.h"

namespace tessera {

namespace {

struct Param {
  std::string name, ctype;
  const frontend::ArgSpec *spec = nullptr;  // of the first variant
};

// The C type a kernel parameter travels as: the PTX parameter type the GPU
// launch packs (gpu_launch.cpp): pointers and 64-bit integers 8 bytes, other
// integers 4, fp64 a double, other floats a float.
std::string cType(const Type &t) {
  if (t.isPtr()) return "CUdeviceptr";
  if (isInt(t.dtype)) {
    bool wide = bitWidth(t.dtype) == 64;
    if (isUnsigned(t.dtype)) return wide ? "uint64_t" : "uint32_t";
    return wide ? "int64_t" : "int32_t";
  }
  return t.dtype == DType::F64 ? "double" : "float";
}

// A C string literal of `text`, split into lines (compilers limit the length
// of one literal piece, not of the concatenation).
std::string cString(const std::string &text) {
  std::string out = "    \"";
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n\"\n    \"";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// The runtime condition under which variant `spec` may run, as C; "1" when
// it assumes nothing.
std::string condition(const std::vector<frontend::ArgSpec> &spec,
                      const std::vector<Param> &params) {
  std::vector<std::string> terms;
  size_t p = 0;
  for (const frontend::ArgSpec &a : spec) {
    if (a.kind == frontend::ArgSpec::Kind::Constexpr) continue;
    const std::string &name = params[p++].name;
    if (a.kind == frontend::ArgSpec::Kind::Pointer && a.divisibility % 16 == 0)
      terms.push_back("(" + name + " % 16) == 0");
    else if (a.kind == frontend::ArgSpec::Kind::Scalar && a.equalToOne)
      terms.push_back(name + " == 1");
    else if (a.kind == frontend::ArgSpec::Kind::Scalar && a.divisibility % 16 == 0)
      terms.push_back("(" + name + " % 16) == 0");
  }
  if (terms.empty()) return "1";
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i) out += (i ? " && " : "") + terms[i];
  return out;
}

}  // namespace

AotFiles generateAot(const std::string &name, const std::string &sourceFile,
                     const std::vector<AotVariant> &variants) {
  if (variants.empty()) throw Error("no signature to compile");
  const KernelImpl &first = *variants.front().kernel;
  std::vector<Param> params;
  for (const auto &arg : first.function().body.args)
    params.push_back({arg->nameHint, cType(arg->type), nullptr});
  for (const AotVariant &v : variants) {
    if (!v.kernel->hasPtx())
      throw Error("kernel '" + first.name() + "' was compiled without a GPU target");
    if (v.kernel->globalScratchBytes() > 0)
      throw Error("signature '" + v.signature + "': kernel '" + first.name() +
                  "' was compiled to build tensor maps on the GPU, which ahead-of-time "
                  "launchers do not pass scratch memory for; compile it with "
                  "CompileRequest::globalScratch off (tesserac aot does)");
    const auto &args = v.kernel->function().body.args;
    size_t runtime = 0;
    for (const frontend::ArgSpec &a : v.spec) {
      if (a.kind == frontend::ArgSpec::Kind::TensorDesc)
        throw Error(
            "tensor descriptor parameters are not supported yet; pass "
            "the base pointer, shape and strides as separate parameters");
      if (a.kind == frontend::ArgSpec::Kind::Tuple)
        throw Error(
            "tuple parameters are not supported by ahead-of-time launchers; pass the "
            "tuple's elements as separate parameters");
      runtime += a.kind != frontend::ArgSpec::Kind::Constexpr;
    }
    bool same = args.size() == params.size() && runtime == params.size();
    for (size_t i = 0; same && i < args.size(); ++i)
      same = args[i]->nameHint == params[i].name && cType(args[i]->type) == params[i].ctype;
    if (!same)
      throw Error("signature '" + v.signature +
                  "' does not give the runtime parameters of the first one (" +
                  variants.front().signature +
                  "): the specialisations of one launcher differ only in their ':16' and ':1' "
                  "facts, and every runtime parameter is in the signature");
  }

  for (const Param &p : params)
    if (p.name == "stream" || p.name == "gx" || p.name == "gy" || p.name == "gz" ||
        p.name.rfind("tsr_", 0) == 0)
      throw Error("kernel parameter '" + p.name +
                  "' has the name of one of the launcher's own (stream, gx, gy, gz, tsr_*); "
                  "rename it");
  std::string guard = "TESSERA_AOT_" + name + "_H_";
  for (char &c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string paramList;
  for (const Param &p : params) paramList += ",\n    " + p.ctype + " " + p.name;
  std::string signatures;
  for (const AotVariant &v : variants) signatures += " *   " + v.signature + "\n";

  AotFiles f;
  f.headerName = name + ".h";
  f.sourceName = name + ".c";
  std::ostringstream h;
  h << "/* Generated by `tesserac aot` from " << sourceFile << " (kernel '" << first.name() << "', "
    << variants.size() << " specialisation" << (variants.size() > 1 ? "s" : "") << "):\n"
    << signatures << " * Do not edit. Link the program with the CUDA driver library (-lcuda). */\n"
    << "#ifndef " << guard << "\n#define " << guard << "\n\n"
    << "#include <cuda.h>\n#include <stdint.h>\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    << "/* Launches the kernel on `stream` (NULL: the default stream) over the grid\n"
    << " * (gx, gy, gz) in the current CUDA context, loading it there at the first\n"
    << " * launch. Returns CUDA_SUCCESS or the driver's error; CUDA_ERROR_INVALID_VALUE\n"
    << " * when no specialisation fits the arguments (alignment and divisibility), and\n"
    << " * CUDA_ERROR_INVALID_CONTEXT when no context is current. Thread-safe. */\n"
    << "CUresult " << name << "(CUstream stream, unsigned int gx, unsigned int gy, unsigned int gz"
    << paramList << ");\n\n"
    << "/* Unloads the modules loaded in the current context (before destroying it). */\n"
    << "CUresult " << name << "_unload(void);\n\n"
    << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  f.header = h.str();

  std::ostringstream c;
  size_t n = variants.size();
  c << "/* Generated by `tesserac aot` from " << sourceFile << " (kernel '" << first.name()
    << "'). Do not edit. */\n"
    << "#include \"" << f.headerName << "\"\n\n#include <pthread.h>\n#include <stddef.h>\n\n";
  for (size_t i = 0; i < n; ++i)
    c << "/* " << variants[i].signature << " */\nstatic const char tsr_ptx_" << i << "[] =\n"
      << cString(variants[i].kernel->ir("ptx")) << ";\n\n";
  for (size_t i = 0; i < n; ++i) {
    const std::string &bin = variants[i].cubin;
    if (bin.empty()) continue;
    const AotVariant &v = variants[i];
    c << "/* ptxas's cubin of the same PTX (" << bin.size() << " bytes)";
    if (v.minBlocksPerSm > 0)
      c << ", asked for " << v.minBlocksPerSm << " blocks per SM (.minnctapersm "
        << v.minBlocksPerSm << "): " << v.regs << " registers a thread, " << v.plainRegs
        << " without";
    c << " */\n"
      << "static const unsigned char tsr_cubin_" << i << "[] = {";
    for (size_t b = 0; b < bin.size(); ++b) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x,", static_cast<unsigned char>(bin[b]));
      c << (b % 16 ? "" : "\n    ") << hex;
    }
    c << "\n};\n\n";
  }
  c << "static const void *const tsr_cubin[" << n << "] = {";
  for (size_t i = 0; i < n; ++i)
    c << (i ? ", " : "") << (variants[i].cubin.empty() ? "NULL" : "tsr_cubin_" + std::to_string(i));
  c << "};\n";
  c << "static const char *const tsr_ptx[" << n << "] = {";
  for (size_t i = 0; i < n; ++i) c << (i ? ", " : "") << "tsr_ptx_" << i;
  c << "};\nstatic const unsigned int tsr_threads[" << n << "] = {";
  for (size_t i = 0; i < n; ++i) c << (i ? ", " : "") << variants[i].kernel->launchThreads();
  c << "};\nstatic const unsigned int tsr_shared_bytes[" << n << "] = {";
  for (size_t i = 0; i < n; ++i) c << (i ? ", " : "") << variants[i].kernel->sharedBytes();
  c << "};\nstatic const unsigned int tsr_min_blocks[" << n << "] = {";
  for (size_t i = 0; i < n; ++i) c << (i ? ", " : "") << variants[i].minBlocksPerSm;
  c << "};\n\n"
    << "/* Loaded modules, per context (a context is never reused for another while\n"
    << " * it lives; unload before destroying one). */\n"
    << "#define TSR_MAX_CONTEXTS 64\n"
    << "static struct {\n  CUcontext tsr_context;\n  CUmodule tsr_module[" << n
    << "];\n  CUfunction tsr_function[" << n << "];\n} tsr_loaded[TSR_MAX_CONTEXTS];\n"
    << "static pthread_mutex_t tsr_mutex = PTHREAD_MUTEX_INITIALIZER;\n\n"
    << "static CUresult tsr_load(int tsr_variant, CUfunction *out) {\n"
    << "  CUcontext tsr_context = NULL;\n"
    << "  CUresult tsr_r = cuCtxGetCurrent(&tsr_context);\n"
    << "  if (tsr_r != CUDA_SUCCESS) return tsr_r;\n"
    << "  if (tsr_context == NULL) return CUDA_ERROR_INVALID_CONTEXT;\n"
    << "  pthread_mutex_lock(&tsr_mutex);\n"
    << "  int tsr_slot = -1;\n"
    << "  for (int tsr_i = 0; tsr_i < TSR_MAX_CONTEXTS && tsr_slot < 0; ++tsr_i)\n"
    << "    if (tsr_loaded[tsr_i].tsr_context == tsr_context) tsr_slot = tsr_i;\n"
    << "  for (int tsr_i = 0; tsr_i < TSR_MAX_CONTEXTS && tsr_slot < 0; ++tsr_i)\n"
    << "    if (tsr_loaded[tsr_i].tsr_context == NULL) {\n"
    << "      tsr_loaded[tsr_i].tsr_context = tsr_context;\n"
    << "      tsr_slot = tsr_i;\n"
    << "    }\n"
    << "  if (tsr_slot < 0) tsr_r = CUDA_ERROR_OUT_OF_MEMORY;\n"
    << "  if (tsr_r == CUDA_SUCCESS && tsr_loaded[tsr_slot].tsr_function[tsr_variant] == NULL) {\n"
    << "    /* Line info keeps the PTX's source lines for profilers. */\n"
    << "    CUjit_option options[1] = {CU_JIT_GENERATE_LINE_INFO};\n"
    << "    void *values[1] = {(void *)(uintptr_t)1};\n"
    << "    CUmodule tsr_module = NULL;\n"
    << "    CUfunction tsr_function = NULL;\n"
    << "    /* The cubin when the device runs it, else the PTX through the JIT. */\n"
    << "    tsr_r = CUDA_ERROR_NO_BINARY_FOR_GPU;\n"
    << "    if (tsr_cubin[tsr_variant] != NULL)\n"
    << "      tsr_r = cuModuleLoadData(&tsr_module, tsr_cubin[tsr_variant]);\n"
    << "    if (tsr_r != CUDA_SUCCESS) {\n"
    << "      tsr_module = NULL;\n"
    << "      tsr_r = cuModuleLoadDataEx(&tsr_module, tsr_ptx[tsr_variant], 1, options, values);\n"
    << "    }\n"
    << "    if (tsr_r == CUDA_SUCCESS) tsr_r = cuModuleGetFunction(&tsr_function, tsr_module, \""
    << ptx::ptxEntryName(first.name()) << "\");\n"
    << "    if (tsr_r == CUDA_SUCCESS && tsr_shared_bytes[tsr_variant] > 48 * 1024)\n"
    << "      tsr_r = cuFuncSetAttribute(tsr_function, "
       "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
    << "                             (int)tsr_shared_bytes[tsr_variant]);\n"
    << "    /* As the JIT runtime: room for as many such blocks per SM as fit (the\n"
    << "     * blocks a cubin asked ptxas for included). */\n"
    << "    if (tsr_r == CUDA_SUCCESS &&\n"
    << "        (tsr_shared_bytes[tsr_variant] > 48 * 1024 || tsr_min_blocks[tsr_variant] > 0))\n"
    << "      tsr_r = cuFuncSetAttribute(tsr_function, "
       "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,\n"
    << "                             CU_SHAREDMEM_CARVEOUT_MAX_SHARED);\n"
    << "    if (tsr_r == CUDA_SUCCESS) {\n"
    << "      tsr_loaded[tsr_slot].tsr_module[tsr_variant] = tsr_module;\n"
    << "      tsr_loaded[tsr_slot].tsr_function[tsr_variant] = tsr_function;\n"
    << "    } else if (tsr_module != NULL) {\n"
    << "      cuModuleUnload(tsr_module);\n"
    << "    }\n"
    << "  }\n"
    << "  if (tsr_r == CUDA_SUCCESS) *out = tsr_loaded[tsr_slot].tsr_function[tsr_variant];\n"
    << "  pthread_mutex_unlock(&tsr_mutex);\n"
    << "  return tsr_r;\n}\n\n";
  c << "CUresult " << name << "(CUstream stream, unsigned int gx, unsigned int gy, unsigned int gz"
    << paramList << ") {\n"
    << "  int tsr_variant = -1;\n";
  for (size_t i = 0; i < n; ++i)
    c << "  " << (i ? "else if" : "if") << " (" << condition(variants[i].spec, params)
      << ")\n    tsr_variant = " << i << ";\n";
  c << "  if (tsr_variant < 0) return CUDA_ERROR_INVALID_VALUE;\n"
    << "  if (gx == 0 || gy == 0 || gz == 0) return CUDA_SUCCESS; /* nothing to run */\n"
    << "  CUfunction tsr_function = NULL;\n"
    << "  CUresult tsr_r = tsr_load(tsr_variant, &tsr_function);\n"
    << "  if (tsr_r != CUDA_SUCCESS) return tsr_r;\n"
    << "  void *tsr_args[" << std::max<size_t>(params.size(), 1) << "] = {";
  for (size_t i = 0; i < params.size(); ++i) c << (i ? ", " : "") << "&" << params[i].name;
  if (params.empty()) c << "NULL";
  c << "};\n"
    << "  return cuLaunchKernel(tsr_function, gx, gy, gz, tsr_threads[tsr_variant], 1, 1,\n"
    << "                        tsr_shared_bytes[tsr_variant], stream, tsr_args, NULL);\n}\n\n";
  c << "CUresult " << name << "_unload(void) {\n"
    << "  CUcontext tsr_context = NULL;\n"
    << "  CUresult tsr_r = cuCtxGetCurrent(&tsr_context);\n"
    << "  if (tsr_r != CUDA_SUCCESS || tsr_context == NULL) return tsr_r;\n"
    << "  pthread_mutex_lock(&tsr_mutex);\n"
    << "  for (int tsr_i = 0; tsr_i < TSR_MAX_CONTEXTS; ++tsr_i)\n"
    << "    if (tsr_loaded[tsr_i].tsr_context == tsr_context) {\n"
    << "      for (int tsr_v = 0; tsr_v < " << n << "; ++tsr_v)\n"
    << "        if (tsr_loaded[tsr_i].tsr_module[tsr_v] != NULL) {\n"
    << "          CUresult tsr_u = cuModuleUnload(tsr_loaded[tsr_i].tsr_module[tsr_v]);\n"
    << "          if (tsr_r == CUDA_SUCCESS) tsr_r = tsr_u;\n"
    << "          tsr_loaded[tsr_i].tsr_module[tsr_v] = NULL;\n"
    << "          tsr_loaded[tsr_i].tsr_function[tsr_v] = NULL;\n"
    << "        }\n"
    << "      tsr_loaded[tsr_i].tsr_context = NULL;\n"
    << "    }\n"
    << "  pthread_mutex_unlock(&tsr_mutex);\n"
    << "  return tsr_r;\n}\n";
  f.source = c.str();
  return f;
}

}  // namespace tessera
