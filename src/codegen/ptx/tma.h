// Which tensor-descriptor loads the tensor memory accelerator may serve: the
// facts expand-descriptor-loads and pipeline-dot-operands share.
#pragma once

#include "ir/ir.h"

namespace tessera::ptx {

// The index of the kernel parameter that is the base of `load`'s host
// tensor descriptor (a TensorDescriptor argument: base, shapes, strides but
// the last, consecutive parameters, the last stride the constant 1), or -1
// when the descriptor was made in the kernel or its base is not known to be
// 16-byte aligned.
int hostDescriptorParam(const Operation &load, const Function &fn);

// Whether `load`'s descriptor was made in the kernel with a base known to be
// 16-byte aligned (tl.make_tensor_descriptor's contract, which its hint
// states, or a parameter so specialised) and a last stride of 1, so that
// the kernel can build its tensor map (tensormap_create). A host
// descriptor (hostDescriptorParam) is not one.
bool madeInKernel(const Operation &load, const Function &fn);

// Whether a bulk tensor copy can fill a shared tile of `shape` (2-D, last
// dim contiguous) of `elemBytes` elements with `swizzle`-byte swizzle
// (SharedLayout): boxes of `swizzle` bytes by at most 256 rows, stacked at
// 1024-byte multiples when there are several.
bool tmaBoxFits(const std::vector<int64_t> &shape, int elemBytes, int swizzle);

// Whether the tensor memory accelerator may serve descriptor_load `load` on
// this target, as far as the load alone tells: sm_90a, a rank-2 descriptor
// (a host one, or one made in the kernel) of 16- or 8-bit elements, in the
// body of a `for` loop whose dots read it (directly or through `.T`), a
// block the copy engine boxes with the swizzle of its rows (128, 64 or 32
// bytes). pipeline-dot-operands decides the rest (the loop is pipelined,
// the dots run on wgmma, fp8 operands are K-major).
bool tmaMayServe(const Operation &load, const Function &fn, const Module &m);

// Whether every use of `v` is an operand of a dot in `body`, directly or
// through `.T` (a permute (1, 0)), and nothing nested in `body` reads it.
bool feedsDotsOnly(const Value *v, const Block &body);

// The tensor map of descriptor_load `load`, whose tile a ring of
// `swizzle`-byte rows holds, when its descriptor was made in the kernel
// (else null): a tensormap_create before `loop`, moved out of the loops
// around it (for, while; not out of an `if`, whose maps might never be
// used) as far as its operands allow (a persistent kernel builds it once
// per program, not once per tile), and shared with an identical one already
// there (the loops of causal attention).
Value *tensorMapBefore(Operation *loop, const Operation &load, int swizzle, const Function &fn);

}  // namespace tessera::ptx
