// The compile pipeline behind tessera::compile, the C ABI and the tools:
// parse -> lower (front end) -> verify -> optimisation passes -> a
// CompiledKernel that keeps the IR after each stage and runs on the
// interpreter.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "interp/interp.h"
#include "ir/ir.h"
#include "support/source.h"
#include "tessera/tessera.h"

namespace tessera {

struct CompileRequest {
  std::string source;
  std::string fileName = "<kernel>";
  uint32_t firstLine = 1;
  uint32_t colOffset = 0;
  std::string kernel;
  std::vector<frontend::ArgSpec> args;
  frontend::LowerOptions lower;
  // Passes after lowering; the default pipeline when empty.
  std::vector<std::string> passes;
  bool optimize = true;
};

// The default optimisation pipeline (registered passes only).
const std::vector<std::string> &defaultPipeline();

class KernelImpl : public CompiledKernel {
 public:
  const std::string &name() const override { return name_; }
  const std::vector<std::pair<std::string, std::string>> &stages() const override {
    return stages_;
  }
  std::string ir(std::string_view stage) const override;
  std::vector<std::pair<std::string, std::string>> params() const override;
  void run(const std::vector<Arg> &args, Grid grid, const RunOptions &opts) const override;

  // Lower-level run used by the C ABI: values already in interpreter form.
  void runInterp(std::span<const interp::ArgValue> args,
                 std::span<const interp::HostBuffer> buffers, interp::Grid grid,
                 int numThreads) const;
  const Function &function() const { return *module_->functions.front(); }
  const SourceManager &sources() const { return *sm_; }
  bool debug() const { return debug_; }

 private:
  friend std::shared_ptr<KernelImpl> compileKernel(const CompileRequest &req);
  std::string name_;
  std::unique_ptr<SourceManager> sm_;
  std::unique_ptr<Module> module_;
  std::vector<std::pair<std::string, std::string>> stages_;
  bool debug_ = false;
};

// Throws tessera::CompilationError with the rendered diagnostic on user
// errors (and on internal errors, which name the pass); the returned kernel
// keeps its own copy of the sources for run-time messages.
std::shared_ptr<KernelImpl> compileKernel(const CompileRequest &req);

}  // namespace tessera
