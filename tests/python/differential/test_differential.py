"""Differential testing in CI: random tile programs (generator.py) on the
interpreter with the Tile IR passes off and on, compared bit for bit
(runner.py). Fixed seeds, so a failure names a seed that reproduces it:

    scripts/differential.py --seed SEED -n 1 --show

TESSERA_DIFF_PROGRAMS sets how many programs run (default PROGRAMS)."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import generator
import runner

PROGRAMS = 10000
CHUNK = 50
TOTAL = int(os.environ.get("TESSERA_DIFF_PROGRAMS", PROGRAMS))


@pytest.mark.parametrize("first", range(1, TOTAL + 1, CHUNK))
def test_passes_preserve_meaning(first):
    import tessera
    failures = []
    for seed in range(first, min(first + CHUNK, TOTAL + 1)):
        res = runner.check(generator.generate(seed), tessera)
        if not res.ok:
            what = res.error or "\n".join(map(str, res.mismatches))
            failures.append(f"seed {seed}: {what}\n{res.program.reproducer()}")
    assert not failures, "\n\n".join(failures[:3])


# The same programs through the GPU code generator, without a GPU: tesserac
# compiles each for sm_80 and sm_90a as a launch would specialise it
# (pointers 16-byte aligned) and the CUDA toolkit's ptxas assembles the
# PTX, so an instruction or operand the PTX ISA does not allow fails here.
# (scripts/differential.py --gpu runs them on a GPU.)
PTX_PROGRAMS = 500
_PTX_TYPES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
              "uint32": "u32", "uint64": "u64", "float16": "fp16", "bfloat16": "bf16",
              "float32": "fp32"}


def _gpu_tools():
    import shutil
    build = os.environ.get("TESSERA_BUILD_DIR", "")
    tesserac = os.path.join(build, "tesserac")
    ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
    if not build or not os.path.exists(tesserac) or not ptxas:
        pytest.skip("needs tesserac (TESSERA_BUILD_DIR) and the CUDA toolkit's ptxas")
    return tesserac, ptxas


@pytest.mark.parametrize("first", range(1, PTX_PROGRAMS + 1, 100))
def test_programs_assemble_for_the_gpu(first, tmp_path):
    import subprocess
    tesserac, ptxas = _gpu_tools()
    failures = []
    for seed in range(first, first + 100):
        p = generator.generate(seed)
        src = tmp_path / f"p{seed}.py"
        src.write_text(p.reproducer())
        sig = [f"*{_PTX_TYPES[b.dtype]}:16" for b in p.inputs]
        sig += [f"*{_PTX_TYPES[o.buffer.dtype]}:16" for o in p.outputs]
        sig += [_PTX_TYPES[t] for _, t, _ in p.scalars] + [str(v) for v in p.constexprs.values()]
        for target in ("sm_80", "sm_90a"):
            ptx = tmp_path / f"p{seed}_{target}.ptx"
            r = subprocess.run([tesserac, "compile", str(src), "--kernel", p.name, "--signature",
                                ", ".join(sig), "--emit", "ptx", "--target", target, "-o", str(ptx)],
                               capture_output=True, text=True)
            if r.returncode == 0:
                r = subprocess.run([ptxas, f"-arch={target}", str(ptx), "-o", str(ptx) + ".cubin"],
                                   capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"seed {seed}, {target}:\n{r.stderr[:2000]}")
    assert not failures, "\n\n".join(failures[:3])


def test_generator_is_deterministic_and_varied():
    a, b = generator.generate(123), generator.generate(123)
    assert a.source == b.source and a.scalars == b.scalars
    assert [x.tobytes() for x in runner.random_inputs(a)] == \
        [x.tobytes() for x in runner.random_inputs(b)]
    covered = set().union(*(generator.generate(s).features for s in range(1, 300)))
    for f in ("atomic", "broadcast", "cast", "const_range", "constant", "dot", "dot3d", "for",
              "identity",
              "if", "intdiv", "load", "mask", "math", "memory", "reduce", "scan", "shift",
              "static_range", "store", "unroll", "where", "while"):
        assert f in covered, f


def test_comparison_sees_one_bit_and_forgives_only_nan_payloads():
    want = np.array([1.0, np.nan, -0.0], np.float32)
    assert runner.compare_exact("o", "float32", want.copy(), want) is None
    other_nan = want.copy()
    other_nan.view(np.uint32)[1] ^= 1  # another NaN payload
    assert runner.compare_exact("o", "float32", other_nan, want) is None
    for i in (0, 2):  # one ulp; +0.0 for -0.0
        got = want.copy()
        got.view(np.uint32)[i] ^= 1 if i == 0 else 0x80000000
        m = runner.compare_exact("o", "float32", got, want)
        assert m is not None and m.first == i and m.count == 1
    ints = np.array([5, -1], np.int64)
    assert runner.compare_exact("o", "int64", ints + [0, 1], ints).first == 1


def test_the_runners_pipeline_is_the_default_one():
    # runner.PIPELINE names the default Tile IR pipeline for bisect and for
    # leaving out combine-dot-add: the same IR as the default, for programs
    # of every feature.
    import tessera
    for seed in range(1, 41):
        p = generator.generate(seed)
        irs = []
        for passes in ("", ",".join(runner.PIPELINE)):
            kernel, _ = runner.make_kernel(p, tessera)
            with tessera.knobs.compilation.scope():
                tessera.knobs.compilation.passes = passes
                k = kernel[(p.grid,)](*runner.random_inputs(p), *runner.poisoned_outputs(p),
                                      *[v for _, _, v in p.scalars], **p.constexprs)
            irs.append(k.asm["ttir"])
        assert irs[0] == irs[1], f"seed {seed}"


def test_dot_add_rounding_is_forgiven_only_through_that_pass():
    # Seed 121846 adds a scalar to a dot's result: combine-dot-add moves the
    # add into the dot (another rounding order, as Triton's combine), which
    # the comparison forgives; the pipeline without that pass must match
    # bit for bit, so a wrong value elsewhere is still a mismatch.
    import tessera
    p = generator.generate(121846)
    assert "dot" in p.features
    inputs = runner.random_inputs(p)
    ref = runner.launch(p, tessera, inputs, runner.poisoned_outputs(p), "none")
    got = runner.launch(p, tessera, inputs, runner.poisoned_outputs(p), "")
    assert any(runner.compare_exact(o.buffer.name, o.buffer.dtype, g, w) is not None
               for o, g, w in zip(p.outputs, got, ref))
    assert runner.check(p, tessera).ok
    wrong = [g.copy() for g in got]
    k = next(i for i, o in enumerate(p.outputs) if o.buffer.dtype == "float32")
    wrong[k][0] = wrong[k][0] * 1.5 + 1
    fixed = runner._without_dot_add_rounding(p, tessera, inputs, wrong, ref)
    assert runner.compare_exact("o", "float32", fixed[k], ref[k]) is not None


@pytest.mark.parametrize("seed", [586009, 657967])
def test_static_range_indices_are_not_shifted_out_of_int32(seed):
    # These seeds shifted a static_range index left by 31 (in Python, as the
    # index is a compile-time int), which no int32 operand then accepts: a
    # program error of the generator's, not the compiler's.
    import tessera
    res = runner.check(generator.generate(seed), tessera)
    assert res.ok, res.error or res.mismatches


def test_the_passes_knob_turns_the_pipeline_off():
    import tessera
    p = generator.generate(7)
    runs = {}
    for passes in ("none", ""):
        kernel, _ = runner.make_kernel(p, tessera)
        with tessera.knobs.compilation.scope():
            tessera.knobs.compilation.passes = passes
            outs = runner.poisoned_outputs(p)
            k = kernel[(p.grid,)](*runner.random_inputs(p), *outs,
                                  *[v for _, _, v in p.scalars], **p.constexprs)
        runs[passes] = k.asm
    assert runs["none"]["ttir"] == runs["none"]["ttir-initial"]
    assert runs[""]["ttir"] != runs[""]["ttir-initial"]


def test_gpu_mode_plumbing_on_the_interpreter():
    # The GPU mode's buffers travel as integers and reach the kernel through
    # tessera.reinterpret; NumPy copies stand in for CUDA tensors here, so a
    # mistake in that path (a dtype, a view, the tolerance rules) shows
    # without a GPU.
    # PyTorch CPU tensors, when PyTorch is installed, take the path of CUDA
    # tensors but one copy.
    import tessera
    devices = [(np.copy, lambda a: a)]
    try:
        import torch
        devices.append((lambda a: torch.from_numpy(a.copy()), lambda t: t.numpy()))
    except ImportError:
        pass
    for device in devices:
        for seed in range(1, 101):
            res = runner.check(generator.generate(seed), tessera, gpu=device)
            assert res.ok, f"seed {seed}: {res.error or res.mismatches}"


def test_gpu_tolerance_catches_a_wrong_float():
    want = np.array([1.0, -2.0, 100.0], np.float32)
    assert runner.compare_close("o", "float32", want * (1 + 1e-6), want) is None
    got = want.copy()
    got[1] = -2.1
    assert runner.compare_close("o", "float32", got, want).first == 1


def test_quotients_of_inexact_floats_are_not_compared_on_the_gpu():
    # A denominator that is a sum (inexact: another order rounds it
    # differently) near zero moves the quotient arbitrarily far, so such
    # outputs are marked unstable and the GPU mode skips them; others stay
    # compared. Both kinds occur among the generated programs, and sin/cos
    # arguments are always clamped.
    import tessera
    programs = [generator.generate(seed) for seed in range(1, 2001)]
    for p in programs:
        assert "tl.sin(" not in p.source or "tl.sin(tl.minimum(tl.maximum(" in p.source
    unstable = [p for p in programs if any(o.unstable for o in p.outputs)]
    assert unstable and len(unstable) < len(programs) // 4
    p = unstable[0]
    res = runner.check(p, tessera, gpu=(np.copy, lambda a: a))
    assert res.ok and res.skipped >= sum(o.unstable for o in p.outputs)
    assert generator._flags(generator.V("s", "float32", "scalar", unstable=True))["unstable"]


def test_float16_sums_are_not_compared_on_the_gpu():
    # Triton rounds every partial sum of a float16 sum or cumsum to float16:
    # another order differs by the terms' rounding, however small the sum
    # (GPU seeds 3204 and 4317), so such values are unstable.
    seen = 0
    for seed in range(40):
        gen = generator._Gen(seed)
        for v in (gen.reduce("float16", "scalar", 2), gen.scan("float16", "2d", 2)):
            if v.expr.startswith(("tl.sum(", "tl.cumsum(")):  # max and min are exact
                assert v.unstable, v.expr
                seen += 1
    assert seen > 20


def test_tf32_dots_of_inexact_operands_are_not_compared_on_the_gpu():
    # The tensor core drops an fp32 operand's fraction bits past TF32's ten:
    # x / x one bit below 1 on the GPU (div.full) becomes 1 - 2^-11 there and
    # 1 in the interpreter (GPU seed 8120). Such dots are unstable; exact
    # operands, and input_precision="ieee", stay compared.
    seen = {True: 0, False: 0}
    for seed in range(400):
        gen = generator._Gen(seed)
        before = len(gen.vars)
        gen.stmt_dot()
        *bound, dot = gen.vars[before:]
        rhs = gen.lines[-1].split("=", 1)[1]
        operands = [v for v in bound if re.search(rf"\b{v.expr}\b", rhs)]
        if dot.dtype != "float32" or operands[0].dtype != "float32":
            continue
        tf32 = "input_precision" not in gen.lines[-1]
        inexact = tf32 and any(o.inexact for o in operands)
        assert dot.unstable == (inexact or any(o.unstable for o in operands)), gen.lines[-1]
        seen[inexact] += 1
    assert seen[True] and seen[False], seen
