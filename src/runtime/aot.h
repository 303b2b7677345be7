// Ahead-of-time launchers (`tesserac aot`): C source that launches kernels
// compiled now, in a program that has no Tessera, through the CUDA driver
// API. For one kernel and one or more specialisations of it, a header and a
// source file:
//
//   CUresult add_kernel(CUstream stream, unsigned gx, unsigned gy, unsigned gz,
//                       CUdeviceptr x_ptr, CUdeviceptr y_ptr, CUdeviceptr out_ptr,
//                       int32_t n_elements);
//   CUresult add_kernel_unload(void);
//
// The PTX of every specialisation is embedded, and its cubin when ptxas made
// one (loaded first: no JIT at the first launch; the PTX when the device
// cannot run the cubin). The launcher takes the grid
// and a stream at call time, loads the modules lazily in the current
// context (any device; once per context, under a mutex), and reports every
// failure as the driver's CUresult (CUDA_ERROR_INVALID_VALUE when no
// specialisation fits the arguments) -- it never exits or prints. With
// several specialisations it is a dispatcher: the first, in the order given,
// whose facts hold for the arguments runs (pointers aligned to 16 bytes,
// integers divisible by 16 or equal to 1, as the signatures say), as
// Triton's link.py does; list the most general last.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "runtime/compiler.h"

namespace tessera {

struct AotVariant {
  std::vector<frontend::ArgSpec> spec;  // the signature it was compiled for
  std::string signature;                // its text, for the comments
  std::shared_ptr<KernelImpl> kernel;   // compiled with a GPU target
  std::string cubin;                    // ptxas's output for the target; may be empty
  // When the cubin was assembled asking for one more resident block per SM
  // (`.minnctapersm`, tesserac aot's occupancy hint; the embedded PTX stays
  // as compiled, for GPUs with other limits): the blocks asked for and the
  // registers a thread with and without; 0 otherwise.
  int minBlocksPerSm = 0, regs = 0, plainRegs = 0;
};

struct AotFiles {
  std::string headerName, header;  // "NAME.h" and its text
  std::string sourceName, source;  // "NAME.c" and its text
};

// `name` names the launcher (a C identifier); `sourceFile` is shown in the
// generated comments. Throws tessera::Error when the variants do not share
// one runtime parameter list or one was compiled without a GPU target.
AotFiles generateAot(const std::string &name, const std::string &sourceFile,
                     const std::vector<AotVariant> &variants);

}  // namespace tessera
