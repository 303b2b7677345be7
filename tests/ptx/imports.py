# tesserac follows a kernel file's imports of @jit helpers to the Python
# files next to it (runtime/source_imports.h), as Python finds a script's
# neighbours: `from M import f as g`, `import M as m` then `m.f`, a
# package's module (`from pkg import util`) and, inside it, a relative
# import. An error inside a helper points into the helper's file; a host
# function or a module that is not on disk is reported where the kernel
# uses it. ptxas assembles the kernel.
# RUN: tesserac compile %S/import_kernels/kernels.py --kernel uses_helpers --signature "*fp32, *fp32, i32, 64" | FileCheck %s --check-prefix=IR
# RUN: tesserac compile %S/import_kernels/kernels.py --kernel uses_helpers --signature "*fp32, *fp32, i32, 64" --emit ptx --target sm_80 -o %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.ptx -o %t.cubin
# tesserac aot follows them too: the PTX it embeds has the helpers inlined.
# RUN: rm -rf %t.aot && mkdir -p %t.aot
# RUN: tesserac aot %S/import_kernels/kernels.py --kernel uses_helpers --signature "*fp32:16, *fp32:16, i32, 64" --no-cubin -o %t.aot
# RUN: FileCheck %s --check-prefix=AOT --input-file %t.aot/uses_helpers.c
# RUN: (tesserac compile %S/import_kernels/kernels.py --kernel uses_host_function --signature "*fp32, 64" 2>&1; test $? = 1) | FileCheck %s --check-prefix=HOST
# RUN: (tesserac compile %S/import_kernels/kernels.py --kernel uses_missing_module --signature "*fp32, 64" 2>&1; test $? = 1) | FileCheck %s --check-prefix=MISSING
# RUN: (tesserac compile %S/import_kernels/kernels.py --kernel uses_broken_helper --signature "*fp32, 64" 2>&1; test $? = 1) | FileCheck %s --check-prefix=BROKEN

# sc(x, 3.0), then h.add_one, then util.double_cube (cube from pkg/inner.py).
# IR: %x = load
# IR-NEXT: constant {value = 3.0}
# IR-NEXT: mul %x
# IR-NEXT: constant {value = 1.0}
# IR-NEXT: add
# IR-NEXT: mul [[S:%[0-9]+]], [[S]]
# IR-NEXT: mul {{%[0-9]+}}, [[S]]
# IR-NEXT: constant {value = 2.0}
# IR-NEXT: %y = mul
# AOT: mul.f32
# HOST: kernels.py:25:24: error: module 'helpers' has no attribute 'host_only' that a kernel can use
# MISSING: kernels.py:31:24: error: undefined name 'thing'
# BROKEN: helpers.py:17:16: error: undefined name 'undefined_thing'
