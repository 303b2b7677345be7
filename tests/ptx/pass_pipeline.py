# The compile pipeline as tools see it: Tile IR passes, then the GPU passes,
# every one verified and visible to --print-after / --time-passes; names that
# are not passes are refused with the list of passes.
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_80 --print-after=cse,assign-layouts 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_80 --print-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ALL
# RUN: TESSERA_PRINT_AFTER=pipeline-loads tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_80 2>&1 >/dev/null | FileCheck %s --check-prefix=ENV
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_80 --time-passes 2>&1 >/dev/null | FileCheck %s --check-prefix=TIME
# RUN: ! tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --passes cse,fuse-everything 2>&1 | FileCheck %s --check-prefix=UNKNOWN
# RUN: ! tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --print-after=cse,fuse-everything 2>&1 | FileCheck %s --check-prefix=UNKNOWN
# RUN: ! tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --passes cse,assign-layouts 2>&1 | FileCheck %s --check-prefix=GPUPASS
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)

# The default pipeline runs cse twice; layouts appear with the GPU passes.
# PRINT: // IR of kernel 'scale' after pass 'cse'
# PRINT-NOT: linear<
# PRINT: // IR of kernel 'scale' after pass 'cse'
# PRINT-NOT: linear<
# PRINT: // IR of kernel 'scale' after pass 'assign-layouts'
# PRINT: tile<256xf32, #"linear<

# ALL: after pass 'inline'
# ALL: after pass 'canonicalize'
# ALL: after pass 'cse'
# ALL: after pass 'licm'
# ALL: after pass 'dce'
# ALL: after pass 'pipeline-loads'
# ALL: after pass 'assign-layouts'
# ALL: after pass 'thread-locality'

# ENV: // IR of kernel 'scale' after pass 'pipeline-loads'
# ENV-NOT: after pass

# TIME: // pass timings of kernel 'scale' (ms)
# TIME: parse and lower
# TIME: inline
# TIME: dce
# TIME: pipeline-loads
# TIME: assign-layouts
# TIME: thread-locality
# TIME: emit-ptx
# TIME: total

# UNKNOWN: tesserac: error: {{.*}}unknown pass 'fuse-everything'; the passes are: inline, {{.*}}assign-layouts

# GPUPASS: tesserac: error: 'assign-layouts' is a GPU pass
