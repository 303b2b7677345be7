// The host side of the tensor memory accelerator, without a GPU: the
// tensor-map header lines that PTX emission writes for a host-descriptor
// matmul on sm_90a, as the runtime reads them back, and the request it
// builds from a launch's arguments for cuTensorMapEncodeTiled (dims and
// strides innermost first, strides in bytes).
#include <gtest/gtest.h>

#include <algorithm>

#include "frontend/frontend.h"
#include "runtime/compiler.h"

namespace {

using tessera::CompileRequest;
using tessera::interp::ArgValue;

constexpr const char *kSource = R"(
import triton
import triton.language as tl

@triton.jit
def desc_matmul(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([tl.program_id(0) * BM, k * BK])
        b = b_desc.load([k * BK, tl.program_id(1) * BN])
        acc = tl.dot(a, b, acc)
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))
)";

std::shared_ptr<tessera::KernelImpl> compile(const std::string &target) {
  CompileRequest req;
  req.source = kSource;
  req.kernel = "desc_matmul";
  req.args = tessera::frontend::parseSignature(
      "tensordesc<bf16[64, 64]>:16:nan, tensordesc<bf16[64, 128]>:16:nan, *fp32:16, i32, i32, "
      "i32, 64, 128, 64");
  req.target = target;
  req.numWarps = 4;
  req.numStages = 3;
  return tessera::compileKernel(req);
}

TEST(TensorMap, HeaderLinesDescribeEachDescriptor) {
  auto k = compile("sm_90a");
  const auto &maps = k->tensorMapParams();
  ASSERT_EQ(maps.size(), 2u);
  // A: parameters 0..3, bf16 (CUtensorMapDataType 9), a 64 x 64 block in
  // one 128-byte box; B: parameters 4..7, 64 x 128 in boxes of 64 columns.
  // 128-byte swizzle (3), NaN fill (1).
  EXPECT_EQ(maps[0].arg, 0);
  EXPECT_EQ(maps[1].arg, 4);
  for (const auto &m : maps) {
    EXPECT_EQ(m.rank, 2);
    EXPECT_EQ(m.dtype, 9);
    EXPECT_EQ(m.boxInner, 64);
    EXPECT_EQ(m.boxOuter, 64);
    EXPECT_EQ(m.swizzle, 3);
    EXPECT_EQ(m.fill, 1);
  }
}

TEST(TensorMap, NoneWithoutTheCopyEngine) {
  EXPECT_TRUE(compile("sm_80")->tensorMapParams().empty());
  EXPECT_TRUE(compile("sm_90")->tensorMapParams().empty());
}

TEST(TensorMap, RequestIsInnermostFirstInBytes) {
  auto k = compile("sm_90a");
  const auto &maps = k->tensorMapParams();
  ASSERT_EQ(maps.size(), 2u);
  // A 200 x 136 view with rows 264 elements apart, then B.
  std::vector<ArgValue> args = {ArgValue::integer(0x7f0000001000),
                                ArgValue::integer(200),
                                ArgValue::integer(136),
                                ArgValue::integer(264),
                                ArgValue::integer(0x7f0000100000),
                                ArgValue::integer(136),
                                ArgValue::integer(72),
                                ArgValue::integer(80),
                                ArgValue::integer(0x7f0000200000),
                                ArgValue::integer(200),
                                ArgValue::integer(72),
                                ArgValue::integer(136)};
  args[0].kind = args[4].kind = args[8].kind = ArgValue::Kind::Pointer;
  tessera::cuda::TensorMapRequest a = tessera::tensorMapRequest(maps[0], args);
  EXPECT_EQ(a.address, 0x7f0000001000u);
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.dims[0], 136u);  // columns first
  EXPECT_EQ(a.dims[1], 200u);
  EXPECT_EQ(a.strides[0], 264u * 2);
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 64u);
  EXPECT_EQ(a.dtype, 9);
  EXPECT_EQ(a.swizzle, 3);
  EXPECT_EQ(a.fill, 1);
  tessera::cuda::TensorMapRequest b = tessera::tensorMapRequest(maps[1], args);
  EXPECT_EQ(b.address, 0x7f0000100000u);
  EXPECT_EQ(b.dims[0], 72u);
  EXPECT_EQ(b.dims[1], 136u);
  EXPECT_EQ(b.strides[0], 80u * 2);
}

}  // namespace

// Descriptors made in the kernel: no tensor-map parameters, 128 bytes of
// global scratch per program and map, and the row strides that are kernel
// arguments named for the runtime's check before each launch.
constexpr const char *kMadeSource = R"(
import triton
import triton.language as tl

@triton.jit
def made(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, BM: tl.constexpr, BN: tl.constexpr,
         BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_a, 1],
                                       block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([tl.program_id(0) * BM, k * BK])
        b = b_desc.load([tl.program_id(1) * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))
)";

TEST(TensorMap, MapsMadeInTheKernelNameTheirStrideArguments) {
  CompileRequest req;
  req.source = kMadeSource;
  req.kernel = "made";
  req.args = tessera::frontend::parseSignature(
      "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i64:16, 64, 128, 64");
  req.target = "sm_90a";
  req.numWarps = 4;
  req.numStages = 3;
  auto k = tessera::compileKernel(req);
  EXPECT_TRUE(k->tensorMapParams().empty());
  EXPECT_EQ(k->globalScratchBytes(), 256);
  std::vector<std::pair<int, int>> strides = k->mapStrideArgs();
  std::sort(strides.begin(), strides.end());
  // K (argument 5) and stride_a (argument 6), fp16.
  EXPECT_EQ(strides, (std::vector<std::pair<int, int>>{{5, 2}, {6, 2}}));
  // Ahead-of-time launchers pass no scratch: compiled for them, none.
  req.globalScratch = false;
  auto aot = tessera::compileKernel(req);
  EXPECT_EQ(aot->globalScratchBytes(), 0);
  EXPECT_TRUE(aot->mapStrideArgs().empty());
}
