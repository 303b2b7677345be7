// The tensor memory accelerator (sm_90a): the ops pipeline-dot-operands
// makes for rings that host tensor descriptors fill (barrier_alloc,
// tma_copy, barrier_wait, barrier_dealloc).
//
// Requires: tma_copy's destination a slot of a swizzled ring whose
// contiguous dim is the last (SharedLayout contig 1) and whose column
// blocks of S bytes (the swizzle) are 1024-byte multiples, or one block.
// Emits:
//   - barrier_alloc: the mbarriers in the ring area after the rings, 8 bytes
//     each; thread 0 initialises them (arrival count `arrivals`, 1 when
//     absent) and fences the initialisation, and a CTA barrier publishes
//     them. Before it, a
//     fence.proxy.async orders the generic writes that earlier code made to
//     the ring area (scratch, another loop's rings) before the copy engine's.
//   - tma_copy: thread 0, where `runs`, announces the bytes on the slot's
//     barrier (mbarrier.arrive.expect_tx) and issues one
//     cp.async.bulk.tensor per S-byte column block of the tile: the box is
//     S bytes wide and as tall as the tile, coordinates innermost first.
//     The copy engine writes each box with the 128/64/32-byte swizzle of
//     absolute shared addresses, which is SharedLayout's swizzle on
//     1024-aligned slots, so the wgmma descriptors read the slots unchanged.
//     Out-of-bounds elements are zero (or NaN), as the descriptor's masked
//     load reads them, and count towards the bytes. A negative coordinate
//     of an unbounded_below dim traps (descriptor_load.h).
//   - barrier_wait: every thread spins on mbarrier.try_wait.parity; with
//     first_thread, thread 0 alone, and its warp reconverges after it.
//   - barrier_arrive: every thread's mbarrier.arrive (release semantics:
//     its shared-memory reads are done before the slot can be refilled).
//   - barrier_dealloc: a CTA barrier, then thread 0 invalidates the
//     barriers, so their memory may hold anything afterwards.
//   - tensormap_create (a descriptor made in the kernel): warp 0 builds the
//     map in shared memory and copies it to this program's 128 bytes of the
//     global scratch the runtime passes (see emitTensormapCreate).
// The tensor map of each host (descriptor, box, swizzle, padding) is a
// 128-byte kernel parameter after the kernel's own; a header line tells the
// runtime how to build it from the descriptor's arguments (gpu_launch.cpp).
// Maps made in the kernel add two parameters after those: the global
// scratch and the padding block.
#include <algorithm>

#include "codegen/ptx/emitter.h"
#include "support/diagnostics.h"

namespace tessera::ptx {
namespace {

SharedLayout sharedLayoutOf(const Value *v) {
  auto l = SharedLayout::parse(v->type.layout.str());
  if (!l || !l->swizzle || l->contig != 1)
    internalError("emit-ptx", "tma_copy into a memdesc that is not swizzled along its last dim: " +
                                  v->type.str());
  return *l;
}

// cuTensorMapEncodeTiled's CUtensorMapDataType for an element type: the
// float types by name (so NaN padding is allowed), others by width.
int tensorMapDataType(DType d) {
  switch (d) {
    case DType::F16:
      return 6;
    case DType::BF16:
      return 9;
    case DType::F32:
      return 7;
    case DType::F64:
      return 8;
    default:
      break;
  }
  switch (byteSize(d)) {
    case 1:
      return 0;  // UINT8
    case 2:
      return 1;  // UINT16
    case 4:
      return isUnsigned(d) ? 2 : 3;  // UINT32, INT32
    default:
      return isUnsigned(d) ? 4 : 5;  // UINT64, INT64
  }
}

// CUtensorMapSwizzle: 32B 1, 64B 2, 128B 3 (wgmma's descriptor numbers them
// the other way round).
int tensorMapSwizzle(int bytes) {
  return bytes == 128 ? 3 : bytes == 64 ? 2 : 1;
}

// tensormap.replace's elemtype: the host's numbering up to FLOAT32, then
// FLOAT32_FTZ 8, FLOAT64 9, BFLOAT16 10 (the host has FLOAT64 8, BFLOAT16 9).
int deviceTensorMapDataType(DType d) {
  int host = tensorMapDataType(d);
  return host == 8 ? 9 : host == 9 ? 10 : host;
}

}  // namespace

int Emitter::tensorMapIndex(const TensorMapUse &use) {
  for (size_t i = 0; i < tensorMaps_.size(); ++i)
    if (tensorMaps_[i] == use) return static_cast<int>(i);
  tensorMaps_.push_back(use);
  return static_cast<int>(tensorMaps_.size()) - 1;
}

std::string Emitter::tensorMapParams(const std::string &entry) const {
  std::string out;
  size_t first = fn_.body.args.size();
  for (size_t k = 0; k < tensorMaps_.size(); ++k)
    out += std::string(first + k ? ",\n" : "") + "\t.param .align 64 .b8 " + entry + "_param_" +
           std::to_string(first + k) + "[128]";
  if (kernelMaps_ > 0) {
    size_t scratch = first + tensorMaps_.size();
    for (size_t i : {scratch, scratch + 1})
      out += std::string(i ? ",\n" : "") + "\t.param .u64 " + entry + "_param_" + std::to_string(i);
  }
  return out;
}

// One line per tensor map, in parameter order:
//   // tessera.tensormap = ARG RANK DTYPE BOX_INNER BOX_OUTER SWIZZLE FILL
// with cuTensorMapEncodeTiled's enum values (FILL 1: NaN); the descriptor's
// parameters start at ARG (base, RANK shapes, RANK - 1 strides).
std::string Emitter::tensorMapHeader() const {
  std::string out;
  for (const TensorMapUse &t : tensorMaps_)
    out += "// tessera.tensormap = " + std::to_string(t.arg) + " 2 " +
           std::to_string(tensorMapDataType(t.dtype)) + " " + std::to_string(t.box[0]) + " " +
           std::to_string(t.box[1]) + " " + std::to_string(tensorMapSwizzle(t.swizzle)) + " " +
           (t.nan ? "1" : "0") + "\n";
  // Maps made in the kernel: BYTES of global scratch per program, passed
  // after the tensor maps, then the padding block (cuda::paddingBlock).
  if (kernelMaps_ > 0)
    out += "// tessera.global_scratch = " + std::to_string(128 * kernelMaps_) + "\n";
  // Row strides of maps made in the kernel that are kernel arguments: ARG
  // ELEMENT_BYTES, checked before each launch.
  for (auto [arg, bytes] : mapStrideArgs_)
    out += "// tessera.map_stride = " + std::to_string(arg) + " " + std::to_string(bytes) + "\n";
  return out;
}

void Emitter::finishKernelTensorMaps(const std::string &entry) {
  if (kernelMaps_ == 0) return;
  size_t scratch = fn_.body.args.size() + tensorMaps_.size();
  // This program's slots: the scratch base plus the linear program id (x
  // fastest) times the bytes each program takes.
  std::string base = reg(RegClass::B64), x = reg(RegClass::B32), y = reg(RegClass::B32),
              z = reg(RegClass::B32), nx = reg(RegClass::B32), ny = reg(RegClass::B32),
              lin = reg(RegClass::B64), wide = reg(RegClass::B64);
  prologueIns("ld.param.u64 " + base + ", [" + entry + "_param_" + std::to_string(scratch) + "]");
  prologueIns("mov.u32 " + x + ", %ctaid.x");
  prologueIns("mov.u32 " + y + ", %ctaid.y");
  prologueIns("mov.u32 " + z + ", %ctaid.z");
  prologueIns("mov.u32 " + nx + ", %nctaid.x");
  prologueIns("mov.u32 " + ny + ", %nctaid.y");
  prologueIns("mad.lo.u32 " + y + ", " + z + ", " + ny + ", " + y);
  prologueIns("mul.wide.u32 " + lin + ", " + y + ", " + nx);
  prologueIns("cvt.u64.u32 " + wide + ", " + x);
  prologueIns("add.u64 " + lin + ", " + lin + ", " + wide);
  prologueIns("mad.lo.u64 " + mapScratch_ + ", " + lin + ", " + std::to_string(128 * kernelMaps_) +
              ", " + base);
  prologueIns("ld.param.u64 " + padding_ + ", [" + entry + "_param_" + std::to_string(scratch + 1) +
              "]");
  // The staging buffer: 128 bytes after all other shared memory.
  int64_t offset = (sharedBytes_ + 127) / 128 * 128;
  prologueIns("add.u32 " + mapStage_ + ", " + smem_ + ", " + std::to_string(offset));
  needShared(offset + 128);
}

// Where the map breaks the copy engine's rules (a row stride that is not a
// positive multiple of 16 bytes below 2^40, or a base not 16-byte aligned:
// a block pointer with a negative stride, or a descriptor made against
// Triton's contract), the kernel traps instead of reading wrong elements.
// Not through __assertfail: a call makes ptxas serialise every wgmma of
// the kernel. Where the stride is a kernel argument, the runtime checks it
// before the launch and says so (tessera.map_stride, gpu_launch.cpp).
void Emitter::mapRulesHold(const Operation &op, const std::string &address,
                           const std::string &bytes) {
  std::string bad = reg(RegClass::Pred), low = reg(RegClass::B64), low2 = reg(RegClass::B64);
  ins("setp.lt.s64 " + bad + ", " + bytes + ", 16");
  ins("setp.ge.or.s64 " + bad + ", " + bytes + ", 1099511627776, " + bad);
  ins("and.b64 " + low + ", " + bytes + ", 15");
  ins("setp.ne.or.u64 " + bad + ", " + low + ", 0, " + bad);
  ins("and.b64 " + low2 + ", " + address + ", 15");
  ins("setp.ne.or.u64 " + bad + ", " + low2 + ", 0, " + bad);
  ins("@" + bad + " trap");
  // A stride that is a kernel argument (through casts and hints): its index
  // and element bytes for the runtime's check.
  const Value *stride = op.operand(3);
  while (stride->def &&
         (stride->def->code == OpCode::Hint ||
          (stride->def->code == OpCode::Cast && isInt(stride->def->operand(0)->type.dtype))))
    stride = stride->def->operand(0);
  if (!stride->def && stride->owner == &fn_.body)
    mapStrideArgs_.insert({static_cast<int>(stride->index), byteSize(op.operand(0)->type.dtype)});
}

// Warp 0 builds the map in the staging buffer (zeroed, then its fields set
// by thread 0), copies it to this program's slot with the release fence of
// the tensormap proxy and acquires it there; thread 0, which issues every
// tensor copy (tma_copy), then uses it. The operands of the map: the base
// address, rows and columns (global_dim, innermost first), the row stride
// in bytes; an empty tensor (a dim below 1) is one element over the padding
// block, so every element of every box reads the padding, as the
// descriptor's masked load reads it. `.version 8.6`: before it ptxas took
// the stride in units of 16 bytes.
void Emitter::emitTensormapCreate(Operation &op) {
  needPtxVersion(86);
  if (kernelMaps_ == 0) {
    mapScratch_ = reg(RegClass::B64);
    mapStage_ = reg(RegClass::B32);
    padding_ = reg(RegClass::B64);
  }
  int64_t slot = kernelMaps_++;
  DType d = op.operand(0)->type.dtype;
  std::vector<int64_t> box = op.intsAttr("box");
  bool nan = op.strAttr("padding") == "nan";
  const std::string &base = get(op.operand(0))[0], &stride = get(op.operand(3))[0];
  std::string empty = reg(RegClass::Pred);
  // A checked dim below 1 makes the tensor empty. A 64-bit dim (a block
  // pointer's) is clamped to 2^31, past any coordinate (an int32); a dim
  // outside a block pointer's boundary_check is 2^31, so that its shape
  // bounds nothing, as in the masked load. Not 2^32 - 1, which the driver's
  // encoder takes: an H200's copy engine faults (illegal instruction) on a
  // dim above 2^31.
  std::vector<int64_t> checks =
      op.attr("checks") ? op.intsAttr("checks") : std::vector<int64_t>{0, 1};
  if (checks.empty()) ins("setp.ne.u32 " + empty + ", 0, 0");
  bool first = true;
  auto dim = [&](const Value *v, int64_t d) {
    if (std::find(checks.begin(), checks.end(), d) == checks.end()) {
      std::string all = reg(RegClass::B32);
      ins("mov.u32 " + all + ", 2147483648");
      return all;
    }
    const std::string &x = get(v)[0];
    bool wide = v->type.dtype == DType::I64;
    ins(std::string(first ? "setp.lt." : "setp.lt.or.") + (wide ? "s64 " : "s32 ") + empty + ", " +
        x + ", 1" + (first ? "" : ", " + empty));
    first = false;
    if (!wide) return x;
    std::string clamped = reg(RegClass::B64), narrow = reg(RegClass::B32);
    ins("min.s64 " + clamped + ", " + x + ", 2147483648");
    ins("cvt.u32.u64 " + narrow + ", " + clamped);
    return narrow;
  };
  std::string rows = dim(op.operand(1), 0), cols = dim(op.operand(2), 1);
  std::string address = reg(RegClass::B64), r = reg(RegClass::B32), c = reg(RegClass::B32),
              bytes = reg(RegClass::B64);
  ins("add.u64 " + address + ", " + padding_ + ", " + (nan ? "16" : "0"));
  ins("selp.b64 " + address + ", " + address + ", " + base + ", " + empty);
  ins("selp.b32 " + r + ", 1, " + rows + ", " + empty);
  ins("selp.b32 " + c + ", 1, " + cols + ", " + empty);
  ins("mul.lo.s64 " + bytes + ", " + stride + ", " + std::to_string(byteSize(d)));
  ins("selp.b64 " + bytes + ", 16, " + bytes + ", " + empty);
  mapRulesHold(op, address, bytes);
  std::string global = reg(RegClass::B64), generic = reg(RegClass::B64);
  ins("add.u64 " + global + ", " + mapScratch_ + ", " + std::to_string(128 * slot));
  std::string warp0 = reg(RegClass::Pred), skip = newLabel();
  ins("setp.ne.u32 " + warp0 + ", " + warp_ + ", " + std::to_string(leadWarp()));
  ins("@" + warp0 + " bra " + skip);
  std::string word = reg(RegClass::B32);
  ins("mad.lo.u32 " + word + ", " + lane_ + ", 4, " + mapStage_);
  ins("st.shared.u32 [" + word + "], 0");
  ins("bar.warp.sync -1");
  std::string t0 = "@" + firstThreadPred() + " tensormap.replace.tile.";
  std::string at = ".shared::cta.b1024";
  std::string stage = " [" + mapStage_ + "], ";
  ins(t0 + "global_address" + at + ".b64" + stage + address);
  ins(t0 + "rank" + at + ".b32" + stage + "1");
  ins(t0 + "box_dim" + at + ".b32" + stage + "0, " + std::to_string(box[1]));
  ins(t0 + "box_dim" + at + ".b32" + stage + "1, " + std::to_string(box[0]));
  ins(t0 + "global_dim" + at + ".b32" + stage + "0, " + c);
  ins(t0 + "global_dim" + at + ".b32" + stage + "1, " + r);
  ins(t0 + "global_stride" + at + ".b64" + stage + "0, " + bytes);
  ins(t0 + "element_stride" + at + ".b32" + stage + "0, 1");
  ins(t0 + "element_stride" + at + ".b32" + stage + "1, 1");
  ins(t0 + "elemtype" + at + ".b32" + stage + std::to_string(deviceTensorMapDataType(d)));
  ins(t0 + "swizzle_mode" + at + ".b32" + stage +
      std::to_string(tensorMapSwizzle(static_cast<int>(op.intAttr("swizzle")))));
  if (nan) ins(t0 + "fill_mode" + at + ".b32" + stage + "1");
  ins("bar.warp.sync -1");
  ins("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [" +
      global + "], [" + mapStage_ + "], 128");
  ins("fence.proxy.tensormap::generic.acquire.gpu [" + global + "], 128");
  // The staging buffer is read before it is built again.
  ins("cp.async.bulk.commit_group");
  ins("cp.async.bulk.wait_group.read 0");
  label(skip);
  ins("cvta.global.u64 " + generic + ", " + global);
  set(op.result(), {generic});
}

void Emitter::emitTmaOp(Operation &op) {
  needPtxVersion(80);
  auto barrierAt = [&](const Value *bars, const Value *slot) {
    std::string b = reg(RegClass::B32);
    ins("mad.lo.u32 " + b + ", " + get(slot)[0] + ", 8, " + get(bars)[0]);
    return b;
  };
  switch (op.code) {
    case OpCode::BarrierAlloc: {
      int64_t count = op.intAttr("count"), arrivals = op.intAttr("arrivals", 1);
      std::string bars = reg(RegClass::B32);
      int64_t offset = allocateInRingArea(op.result(), 8 * count, 8);
      ins("add.u32 " + bars + ", " + ringArea() + ", " + std::to_string(offset));
      std::string t0 = firstThreadPred();
      for (int64_t k = 0; k < count; ++k)
        ins("@" + t0 + " mbarrier.init.shared::cta.b64 [" + bars + "+" + std::to_string(8 * k) +
            "], " + std::to_string(arrivals));
      ins("@" + t0 + " fence.mbarrier_init.release.cluster");
      ins("fence.proxy.async.shared::cta");
      barrier();
      set(op.result(), {bars});
      return;
    }
    case OpCode::BarrierDealloc: {
      int64_t count = op.operand(0)->def ? op.operand(0)->def->intAttr("count") : 0;
      barrier();
      for (int64_t k = 0; k < count; ++k)
        ins("@" + firstThreadPred() + " mbarrier.inval.shared::cta.b64 [" + get(op.operand(0))[0] +
            "+" + std::to_string(8 * k) + "]");
      freeInRingArea(op.operand(0));
      return;
    }
    case OpCode::BarrierWait: {
      std::string b = barrierAt(op.operand(0), op.operand(1));
      std::string done = reg(RegClass::Pred), again = newLabel();
      bool firstOnly = op.intAttr("first_thread", 0) != 0;
      std::string past = firstOnly ? newLabel() : "";
      if (firstOnly) ins("@!" + firstThreadPred() + " bra " + past);
      label(again);
      ins("mbarrier.try_wait.parity.shared::cta.b64 " + done + ", [" + b + "], " +
          get(op.operand(2))[0]);
      ins("@!" + done + " bra " + again);
      if (firstOnly) {
        // The first warp's other lanes waited here: reconverged, the warp
        // goes on to warp-wide (.aligned) instructions together.
        label(past);
        ins("bar.warp.sync -1");
      }
      return;
    }
    case OpCode::BarrierArrive:
      ins("mbarrier.arrive.shared::cta.b64 _, [" + barrierAt(op.operand(0), op.operand(1)) + "]");
      return;
    case OpCode::TmaCopy:
      break;
    default:
      internalError("emit-ptx", std::string("not a TMA op: ") + op.info().mnemonic);
  }

  const Value *dst = op.operand(0);
  SharedLayout sl = sharedLayoutOf(dst);
  DType d = dst->type.dtype;
  int eb = byteSize(d);
  const std::vector<int64_t> &shape = dst->type.shape;
  if (shape.size() != 2) internalError("emit-ptx", "tma_copy of a tile that is not 2-D");
  int64_t rows = shape[0], boxInner = sl.swizzle / eb;
  int64_t blocks = shape[1] * eb / sl.swizzle;
  if (rows > 256 || blocks < 1 || (blocks > 1 && rows * sl.swizzle % 1024 != 0))
    internalError("emit-ptx", "tma_copy of a " + dst->type.str() + " the copy engine cannot box");
  // The map: a kernel parameter for a host descriptor, else the last
  // operand (a tensormap_create).
  bool madeInKernel = !op.attr("tensormap");
  size_t runs = op.operands.size() - (madeInKernel ? 2 : 1);
  std::string map;
  if (madeInKernel) {
    map = get(op.operands.back())[0];
  } else {
    TensorMapUse use{
        op.intAttr("tensormap"), d, {boxInner, rows}, sl.swizzle, op.strAttr("padding") == "nan"};
    int k = tensorMapIndex(use);
    std::string &param = cached_["tma|map" + std::to_string(k)];
    if (param.empty()) {
      param = reg(RegClass::B64);
      std::string pname = ptxEntryName(fn_.name) + "_param_" +
                          std::to_string(fn_.body.args.size() + static_cast<size_t>(k));
      prologueIns("mov.u64 " + param + ", " + pname);
      prologueIns("cvta.param.u64 " + param + ", " + param);
    }
    map = param;
  }
  std::string bar = barrierAt(op.operand(1), op.operand(2));
  std::string p = reg(RegClass::Pred);
  ins("and.pred " + p + ", " + firstThreadPred() + ", " + get(op.operand(runs))[0]);
  // A coordinate that descriptors-from-pointers could not prove >= 0: the
  // pointer load it replaced read memory below the tensor's first row or
  // column, where the copy engine would read the padding, so the kernel
  // traps rather than read other elements.
  if (op.attr("unbounded_below"))
    for (int64_t d : op.intsAttr("unbounded_below")) {
      std::string bad = reg(RegClass::Pred);
      ins("setp.lt.and.s32 " + bad + ", " + get(op.operand(3 + static_cast<unsigned>(d)))[0] +
          ", 0, " + p);
      ins("@" + bad + " trap");
    }
  if (int64_t expect = op.intAttr("expect"))
    ins("@" + p + " mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + bar + "], " +
        std::to_string(expect));
  const std::string &outer = get(op.operand(3))[0], &inner = get(op.operand(4))[0];
  for (int64_t j = 0; j < blocks; ++j) {
    std::string to = get(dst)[0], x = inner;
    if (j) {
      to = reg(RegClass::B32);
      ins("add.u32 " + to + ", " + get(dst)[0] + ", " + std::to_string(j * rows * sl.swizzle));
      x = reg(RegClass::B32);
      ins("add.s32 " + x + ", " + inner + ", " + std::to_string(j * boxInner));
    }
    ins("@" + p + " cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [" +
        to + "], [" + map + ", {" + x + ", " + outer + "}], [" + bar + "]");
  }
}

}  // namespace tessera::ptx
