# tesserac's command line: help and version on stdout, both spellings of an
# option, -o FILE, checked numbers and targets, one-line usage errors (exit
# status 2), and the PTX .version of every target (assembled by ptxas for
# sm_100 and sm_120 when the CUDA toolkit is installed).
# RUN: tesserac --help | FileCheck %s --check-prefix=HELP
# RUN: tesserac compile --help | FileCheck %s --check-prefix=HELP
# RUN: tesserac --version | FileCheck %s --check-prefix=VERSION
# RUN: tesserac compile %s --kernel=scale --signature="*fp32:16, *fp32:16, 256" --emit=ptx --target=sm_80 -o %t.ptx
# RUN: FileCheck %s --check-prefix=SM80 --input-file %t.ptx
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_100 --output %t.ptx
# RUN: FileCheck %s --check-prefix=SM100 --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_100 %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_120a -o %t.ptx
# RUN: FileCheck %s --check-prefix=SM120 --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_120a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" --emit ptx --target sm_121 | FileCheck %s --check-prefix=SM121
# RUN: tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" -o - | FileCheck %s --check-prefix=TTIR
# RUN: tesserac compile %s --kernel scale --num-warps abc 2> %t.err; test $? = 2
# RUN: FileCheck %s --check-prefix=WARPS --input-file %t.err
# RUN: (tesserac compile %s --kernel scale --num-stages 0 2>&1; test $? = 2) | FileCheck %s --check-prefix=STAGES
# RUN: (tesserac compile %s --kernel scale --target sm_75 2>&1; test $? = 2) | FileCheck %s --check-prefix=TARGET
# RUN: (tesserac compile %s --kernel scale --emit asm 2>&1; test $? = 2) | FileCheck %s --check-prefix=EMIT
# RUN: (tesserac compile %s --kernel scale --kernal x 2>&1; test $? = 2) | FileCheck %s --check-prefix=TYPO
# RUN: (tesserac compile %s 2>&1; test $? = 2) | FileCheck %s --check-prefix=NOKERNEL
# RUN: (tesserac compile --kernel scale 2>&1; test $? = 2) | FileCheck %s --check-prefix=NOFILE
# RUN: (tesserac compil %s 2>&1; test $? = 2) | FileCheck %s --check-prefix=COMMAND
# RUN: (tesserac 2>&1; test $? = 2) | FileCheck %s --check-prefix=NOCOMMAND
# RUN: (tesserac compile %S/does-not-exist.py --kernel scale 2>&1; test $? = 1) | FileCheck %s --check-prefix=NOREAD
# RUN: (tesserac compile %s --kernel scale --signature "*fp32:16, *fp32:16, 256" -o %S/no-such-folder/out.ttir 2>&1; test $? = 1) | FileCheck %s --check-prefix=NOWRITE
# RUN: rm -f %t.out && ! tesserac compile %s --kernel missing -o %t.out 2>/dev/null && test ! -e %t.out
# RUN: (tesserac compile %s --kernel scale --signature "tensordesc<fp32[64, x]>, *fp32:16" 2>&1; test $? = 1) | FileCheck %s --check-prefix=BADDESC
# RUN: (tesserac compile %s --kernel scale --signature "tensordesc<fp32[64]>:8, *fp32:16" 2>&1; test $? = 1) | FileCheck %s --check-prefix=BADHINT
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)

# BADDESC: error: bad signature entry 'tensordesc<fp32[64, x]>': the block shape must be positive integers, got 'x'
# BADDESC-NEXT: note: entries look like {{.*}}'tensordesc<fp16[64, 64]>' (host tensor descriptor)
# BADHINT: error: bad signature entry 'tensordesc<fp32[64]>:8': hints after '>' are ':16' and ':nan', got ':8'

# HELP: usage: tesserac compile FILE.py --kernel NAME
# HELP: --kernel NAME
# HELP: --signature SIG
# HELP: --emit STAGE
# HELP: --target sm_NN
# HELP: --num-warps N
# HELP: --num-stages N
# HELP: --debug
# HELP: --passes a,b,c
# HELP: --no-opt
# HELP: --print-after a,b
# HELP: --print-after-all
# HELP: --time-passes
# HELP: --split-input-file
# HELP: -o, --output FILE
# HELP: -h, --help
# HELP: --version

# VERSION: tesserac {{[0-9]+\.[0-9]+\.[0-9]+}} ir-{{[0-9a-f]+$}}

# SM80: .version 8.0
# SM80-NEXT: .target sm_80
# SM100: .version 8.6
# SM100-NEXT: .target sm_100
# SM120: .version 8.7
# SM120-NEXT: .target sm_120a
# SM121: .version 8.8
# SM121-NEXT: .target sm_121

# TTIR: func @scale(

# WARPS: tesserac: error: option '--num-warps': expects a power of two from 1 to 32, got 'abc'
# WARPS-NEXT: Run 'tesserac --help' for the options.
# STAGES: tesserac: error: option '--num-stages': expects an integer from 1 to 16, got '0'
# TARGET: tesserac: error: option '--target': expects a GPU target, got 'sm_75'; the targets are: sm_80, {{.*}}sm_90a, sm_100, {{.*}}sm_120
# EMIT: tesserac: error: option '--emit': expects ir, ttir, ttir-initial, ttgir, ptx or ptx-unspecialized, got 'asm'
# TYPO: tesserac: error: unknown option '--kernal'; did you mean '--kernel'?
# NOKERNEL: tesserac: error: --kernel NAME is required
# NOFILE: tesserac: error: missing FILE.py
# COMMAND: tesserac: error: unknown command 'compil' (the commands are 'compile' and 'aot')
# NOCOMMAND: tesserac: error: no command given
# NOREAD: tesserac: error: cannot read '{{.*}}does-not-exist.py'
# NOWRITE: tesserac: error: cannot write '{{.*}}no-such-folder/out.ttir'
