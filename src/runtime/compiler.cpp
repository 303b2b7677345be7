#include "runtime/compiler.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "codegen/ptx/gpu_passes.h"
#include "frontend/parser.h"
#include "ir/descriptor_load.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#include "support/diagnostics.h"
#include "support/source.h"

namespace tessera {

const std::vector<std::string> &defaultPipeline() {
  // Loops unrolled as tl.range asks, clean-ups (twice: licm exposes more),
  // then the combines, then dead code.
  static const std::vector<std::string> pipeline = [] {
    std::vector<std::string> p = {"inline", "unroll-loops", "canonicalize", "cse",
                                  "licm",   "canonicalize", "cse"};
    p.insert(p.end(), {"combine-broadcast-dot", "combine-dot-add", "dce"});
    return p;
  }();
  return pipeline;
}

namespace {

// The GPU passes join the registry before the first compile looks a name up.
void registerGpuPasses() {
  static std::once_flag once;
  std::call_once(once, [] { registerPasses(ptx::gpuPasses()); });
}

std::vector<std::string> splitNames(std::string_view text) {
  std::vector<std::string> out;
  std::stringstream in{std::string(text)};
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// The pass options of one compile: verifier after every pass, the requested
// IR snapshots (request and environment) on stderr, and timings.
PassPipelineOptions pipelineOptions(const CompileRequest &req, std::vector<PassTiming> *timings) {
  PassPipelineOptions opts;
  std::vector<std::string> printAfter = req.printAfter;
  bool all = req.printAfterAll;
  if (const char *env = std::getenv("TESSERA_PRINT_AFTER")) {
    for (const std::string &n : splitNames(env)) {
      if (n == "all")
        all = true;
      else
        printAfter.push_back(n);
    }
  }
  if (std::string bad = checkPassNames(printAfter); !bad.empty())
    throw CompilationError("print-after: " + bad);
  opts.printAfter.insert(printAfter.begin(), printAfter.end());
  opts.printAfterAll = all;
  std::string kernel = req.kernel;
  opts.print = [kernel](const std::string &pass, const Module &m) {
    std::cerr << "// IR of kernel '" << kernel << "' after pass '" << pass << "'\n"
              << printModule(m) << std::flush;
  };
  opts.timings = timings;
  return opts;
}

bool timingRequested(const CompileRequest &req) {
  const char *env = std::getenv("TESSERA_TIME_PASSES");
  return req.timePasses || (env && *env && std::string_view(env) != "0");
}

void printTimings(const std::string &kernel, const std::vector<PassTiming> &timings) {
  double total = 0;
  for (const PassTiming &t : timings) total += t.ms;
  std::string out = "// pass timings of kernel '" + kernel + "' (ms)\n";
  char line[128];
  for (const PassTiming &t : timings) {
    std::snprintf(line, sizeof line, "%10.3f  %s\n", t.ms, t.pass.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%10.3f  total\n", total);
  std::cerr << out << line << std::flush;
}

using Clock = std::chrono::steady_clock;

bool hasOp(Module &m, const std::function<bool(const Operation &)> &is) {
  bool found = false;
  for (auto &fn : m.functions) fn->walk([&](Operation *op) { found = found || is(*op); });
  return found;
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The whole pipeline after lowering: the Tile IR passes on the kernel (what
// the interpreter runs), then, for a GPU target, the GPU passes on a copy and
// PTX emission. Every pass goes through runPasses, with the same options.
bool keepsStage(const CompileRequest &req, std::string_view stage) {
  if (req.keepStages.empty()) return true;
  for (const std::string &s : req.keepStages)
    if (s == stage) return true;
  return false;
}

void runPipeline(Module &tile, const SourceManager &sm, const CompileRequest &req,
                 std::vector<std::pair<std::string, std::string>> &stages,
                 std::vector<PassTiming> *timings) {
  const std::vector<std::string> &tilePasses = req.passes.empty() ? defaultPipeline() : req.passes;
  if (std::string bad = checkPassNames(tilePasses); !bad.empty()) throw CompilationError(bad);
  for (const std::string &n : tilePasses)
    for (const std::string &gpu : ptx::gpuPipeline())
      if (n == gpu)
        throw CompilationError("'" + n +
                               "' is a GPU pass: it runs after the Tile IR passes when a GPU "
                               "target is given; leave it out of the pass list");
  PassPipelineOptions opts = pipelineOptions(req, timings);
  PrintOptions po;
  if (req.optimize) runPasses(tile, tilePasses, opts);
  if (keepsStage(req, "ttir")) stages.emplace_back("ttir", printModule(tile, po));
  if (req.target.empty()) return;
  ptx::PtxOptions gpu;
  if (!ptx::parseTarget(req.target, gpu.target))
    throw CompilationError("unknown GPU target '" + req.target +
                           "'; the targets are: " + ptx::knownTargets());
  if (req.numWarps < 1 || req.numWarps > 32 || (req.numWarps & (req.numWarps - 1)))
    throw CompilationError("num_warps must be a power of two from 1 to 32, got " +
                           std::to_string(req.numWarps));
  if (req.numStages < 1 || req.numStages > 16)
    throw CompilationError("num_stages must be from 1 to 16, got " + std::to_string(req.numStages));
  gpu.numWarps = req.numWarps;
  gpu.numStages = req.numStages;
  gpu.debug = req.lower.debug;
  gpu.globalScratch = req.globalScratch;
  gpu.fpFusion = req.fpFusion;
  gpu.reflectFtz = req.reflectFtz;
  if (req.maxRegisters != 0 && (req.maxRegisters < 16 || req.maxRegisters > 255))
    throw CompilationError("maxnreg must be from 16 to 255 registers per thread, got " +
                           std::to_string(req.maxRegisters));
  gpu.maxRegisters = req.maxRegisters;
  gpu.sources = &sm;
  std::unique_ptr<Module> copy = req.stagesOnly ? nullptr : cloneModule(tile);
  Module &gpuModule = copy ? *copy : tile;
  // A kernel with a loop marked warp_specialize also compiles unmarked,
  // where warp-specialize splits it: that twin is what the loader runs
  // where the producer warp would spill or cost a block per SM. Unmarked,
  // not the split kernel's input: with one warpgroup that releases its
  // slots by the warpgroup's barrier rather than by mbarriers (tutorial
  // 06's D 64 forward, 128x64 on 4 warps: 438 TFLOP/s against 396). So
  // does one of two warpgroups or more on sm_90a, which warp-specialize may
  // split unasked.
  auto isMarked = [](const Operation &op) {
    return op.code == OpCode::For && op.intAttr("warp_specialize") == 1;
  };
  const bool mayBeSplitUnasked =
      ptx::mayWarpSpecializeUnasked(gpu.target.sm, gpu.target.archSpecific, req.numWarps);
  std::unique_ptr<Module> twin =
      keepsStage(req, kUnspecializedPtxStage) && (mayBeSplitUnasked || hasOp(tile, isMarked))
          ? cloneModule(tile)
          : nullptr;
  ptx::prepareModule(gpuModule, gpu);
  runPasses(gpuModule, ptx::gpuPipeline(), opts);
  // The header names the target as Triton's TTGIR does ("cuda:90").
  if (keepsStage(req, "ttgir"))
    stages.emplace_back("ttgir", "// tessera.target = cuda:" + std::to_string(gpu.target.sm) +
                                     " (" + gpu.target.name() + ")\n" + printModule(gpuModule, po));
  Clock::time_point start = Clock::now();
  ptx::PtxKernel p = ptx::emitPtx(gpuModule, gpu);
  if (timings) timings->push_back({"emit-ptx", msSince(start)});
  if (keepsStage(req, "ptx")) stages.emplace_back("ptx", std::move(p.ptx));
  if (twin &&
      hasOp(gpuModule, [](const Operation &op) { return op.code == OpCode::WarpSpecialize; })) {
    for (auto &fn : twin->functions)
      fn->walk([&](Operation *op) {
        // Unmarked with 0 rather than no mark: persistent-programs leaves a
        // loop whose warp specialisation was asked for as written, so the
        // twin keeps the kernel's launch (one tile a program, its
        // parameters) and the loader may run either; and warp-specialize
        // splits no loop unasked in a function whose loops say 0.
        if (op->code == OpCode::For) op->setAttr("warp_specialize", int64_t{0});
      });
    // Its passes are neither printed nor timed: the kernel asked for is
    // the specialised one.
    PassPipelineOptions quiet;
    quiet.verifyEach = opts.verifyEach;
    ptx::prepareModule(*twin, gpu);
    runPasses(*twin, ptx::gpuPipeline(), quiet);
    stages.emplace_back(kUnspecializedPtxStage, ptx::emitPtx(*twin, gpu).ptx);
  }
}

}  // namespace

std::string KernelImpl::ir(std::string_view stage) const {
  for (const auto &[name, text] : stages_)
    if (name == stage) return text;
  return {};
}

std::vector<std::pair<std::string, std::string>> KernelImpl::params() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto &a : function().body.args) {
    std::string t = a->type.isPtr() ? std::string("*") + signatureName(a->type.dtype)
                                    : std::string(signatureName(a->type.dtype));
    out.emplace_back(a->nameHint, t);
  }
  return out;
}

void KernelImpl::runInterp(std::span<const interp::ArgValue> args,
                           std::span<const interp::HostBuffer> buffers, interp::Grid grid,
                           int numThreads) const {
  interp::RunOptions ro;
  ro.numThreads = numThreads;
  ro.sources = sm_.get();
  ro.debug = debug_;
  try {
    std::call_once(prepareOnce_, [&] {
      // Descriptor loads run as the masked loads they mean; expanded here,
      // with the clean-up passes, their address arithmetic is folded and
      // hoisted out of loops as the rest of the kernel's is.
      const Function *fn = &function();
      if (hasDescriptorLoads(*fn)) {
        interpModule_ = cloneModule(*module_);
        ptx::expandDescriptorLoads(*interpModule_, nullptr);
        fn = interpModule_->functions.front().get();
      }
      prepared_ = interp::prepare(*fn, ro);
    });
    interp::run(*prepared_, args, buffers, grid, ro);
  } catch (const RuntimeError &e) {
    throw KernelError(e.what());
  } catch (const CompileError &e) {
    throw KernelError(render(*sm_, e.diag));
  }
}

std::string intOutOfRange(DType t, int64_t v) {
  return " is " + std::to_string(v) + ", which " + signatureName(t) +
         (t == DType::I1 ? " cannot hold: pass 0 or 1 (a bool)"
                         : " cannot hold: pass a value in its range or give the parameter a wider "
                           "type (annotate it tl.int64)");
}

std::vector<interp::ArgValue> KernelImpl::bindArgs(const std::vector<Arg> &args,
                                                   std::vector<interp::HostBuffer> *buffers) const {
  const Function &fn = function();
  if (args.size() != fn.body.args.size())
    throw KernelError("kernel '" + name_ + "' takes " + std::to_string(fn.body.args.size()) +
                      " runtime arguments but " + std::to_string(args.size()) + " were given");
  std::vector<interp::ArgValue> values;
  for (size_t i = 0; i < args.size(); ++i) {
    const Value &p = *fn.body.args[i];
    const Arg &a = args[i];
    std::string what = "argument " + std::to_string(i) + " ('" + p.nameHint + "')";
    if (p.type.isPtr()) {
      if (a.kind != Arg::Kind::Buffer)
        throw KernelError(what + " of kernel '" + name_ + "' must be a " +
                          (buffers ? "buffer (Arg::buffer)" : "device pointer (Arg::pointer)"));
      values.push_back(interp::ArgValue::pointer(a.data));
      if (buffers) buffers->push_back({a.data, a.bytes, p.nameHint});
    } else if (isFloat(p.type.dtype)) {
      if (a.kind == Arg::Kind::Buffer)
        throw KernelError(what + " of kernel '" + name_ + "' must be a number");
      values.push_back(
          interp::ArgValue::floating(a.kind == Arg::Kind::Float ? a.f : static_cast<double>(a.i)));
    } else {
      if (a.kind != Arg::Kind::Int)
        throw KernelError(what + " of kernel '" + name_ + "' must be an integer");
      if (!fitsIntType(p.type.dtype, a.i))
        throw KernelError(what + " of kernel '" + name_ + "'" + intOutOfRange(p.type.dtype, a.i));
      values.push_back(interp::ArgValue::integer(wrapToIntType(p.type.dtype, a.i)));
    }
  }
  return values;
}

void KernelImpl::run(const std::vector<Arg> &args, Grid grid, const RunOptions &opts) const {
  std::vector<interp::HostBuffer> buffers;
  std::vector<interp::ArgValue> values = bindArgs(args, &buffers);
  runInterp(values, buffers, {grid.x, grid.y, grid.z}, opts.numThreads);
}

std::shared_ptr<KernelImpl> compileKernel(const CompileRequest &req) {
  std::vector<SourceUnit> single;
  if (req.units.empty())
    single.push_back({req.source, req.fileName, req.firstLine, req.colOffset, {}});
  const std::vector<SourceUnit> &units = req.units.empty() ? single : req.units;
  for (size_t u = 0; u < units.size(); ++u)
    for (const auto &[name, g] : units[u].globals)
      if (g.kind == frontend::Global::Kind::JitFunction && g.unit >= units.size())
        throw std::invalid_argument("global '" + name + "' of source unit " + std::to_string(u) +
                                    " names unit " + std::to_string(g.unit) + ", but there are " +
                                    std::to_string(units.size()) + " units");
  auto k = std::make_shared<KernelImpl>();
  k->name_ = req.kernel;
  k->debug_ = req.lower.debug;
  k->sm_ = std::make_unique<SourceManager>();
  k->numUnits_ = units.size();
  SourceManager &sm = *k->sm_;
  // Files 1..n are the units, in order: serialisation relies on it.
  std::vector<uint32_t> files;
  for (const SourceUnit &u : units) {
    if (u.source.size() > kMaxSourceBytes)
      throw std::invalid_argument("the source of '" + u.fileName + "' has " +
                                  std::to_string(u.source.size()) +
                                  " bytes; a kernel source may "
                                  "have at most " +
                                  std::to_string(kMaxSourceBytes >> 20) + " MiB");
    if (u.colOffset > kMaxColOffset)
      throw std::invalid_argument("the column offset of '" + u.fileName + "' is " +
                                  std::to_string(u.colOffset) + "; it may be at most " +
                                  std::to_string(kMaxColOffset));
    files.push_back(sm.addFile(u.fileName, u.source, u.firstLine, u.colOffset));
  }
  registerGpuPasses();
  std::vector<PassTiming> timingStore;
  std::vector<PassTiming> *timings = timingRequested(req) ? &timingStore : nullptr;
  Clock::time_point start = Clock::now();
  try {
    std::vector<ast::Module> mods;
    mods.reserve(units.size());
    for (uint32_t f : files) mods.push_back(frontend::parseModule(sm, f));
    std::vector<frontend::LowerUnit> lowerUnits;
    for (size_t u = 0; u < units.size(); ++u) lowerUnits.push_back({&mods[u], &units[u].globals});
    frontend::LowerOptions lower = req.lower;
    lower.numWarps = req.numWarps;
    std::vector<Diagnostic> warnings;
    lower.warnings = &warnings;
    k->module_ = frontend::lowerKernel(sm, lowerUnits, req.kernel, req.args, lower);
    for (const Diagnostic &w : warnings) {
      const SourceFile *f = sm.file(w.loc.file);
      k->warnings_.push_back({f ? f->name : std::string(), static_cast<int>(w.loc.line),
                              static_cast<int>(w.loc.col), w.message, render(sm, w, "warning")});
    }
    PrintOptions po;
    if (keepsStage(req, "ttir-initial"))
      k->stages_.emplace_back("ttir-initial", printModule(*k->module_, po));
    std::string err = verify(*k->module_);
    if (!err.empty()) internalError("frontend lowering", "produced invalid IR: " + err);
    if (timings) timings->push_back({"parse and lower", msSince(start)});
    runPipeline(*k->module_, sm, req, k->stages_, timings);
  } catch (const CompileError &e) {
    throw CompilationError(render(sm, e.diag));
  }
  if (timings) printTimings(req.kernel, *timings);
  return k;
}

std::shared_ptr<CompiledKernel> compile(std::string_view source, std::string_view kernel,
                                        std::string_view signature, const CompileOptions &options) {
  CompileRequest req;
  req.source = std::string(source);
  req.fileName = options.fileName;
  req.firstLine = options.firstLine;
  req.colOffset = options.colOffset;
  req.kernel = std::string(kernel);
  req.lower.debug = options.debug;
  req.target = options.target == "native" ? nativeGpuTarget() : options.target;
  req.numWarps = options.numWarps;
  req.numStages = options.numStages;
  try {
    req.args = frontend::parseSignature(std::string(signature));
  } catch (const CompileError &e) {
    SourceManager none;
    throw CompilationError(render(none, e.diag));
  }
  return compileKernel(req);
}

}  // namespace tessera
