# The example attention forward on mma.sync (sm_80). Its two products,
# S = Q K^T and O += P V, are chained through S's row maximum and row sum,
# so both put every warp along M (Triton's rule for mma.sync): the row
# statistics reduce within a warp, rescale O's rows where they lie, and P's
# registers are the second product's A fragments (FlashAttention-2), packed
# two halves to a register. The key loop crosses one barrier, the ring's,
# and writes nothing to shared memory.
# RUN: tesserac compile %S/../../examples/attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 64, 64, 64, 0, 0" --emit ptx --target sm_80 --num-warps 4 --num-stages 3 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.ptx -o %t.cubin
# CHECK: [[LOOP:\$L[0-9]+]]:
# CHECK: cp.async.wait_group
# CHECK-NEXT: bar.sync 0
# CHECK-NOT: bar.sync
# CHECK-NOT: st.shared
# CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# CHECK-NOT: bar.sync
# CHECK-NOT: st.shared
# CHECK: mov.b32 [[P:%r[0-9]+]], {%h{{[0-9]+}}, %h{{[0-9]+}}};
# CHECK-NOT: bar.sync
# CHECK-NOT: st.shared
# CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{.*}}, {[[P]],
# CHECK-NOT: bar.sync
# CHECK-NOT: st.shared
# CHECK: bra [[LOOP]];
