"""Differential testing in CI: random tile programs (generator.py) on the
interpreter with the Tile IR passes off and on, compared bit for bit
(runner.py). Fixed seeds, so a failure names a seed that reproduces it:

    scripts/differential.py --seed SEED -n 1 --show

TESSERA_DIFF_PROGRAMS sets how many programs run (default PROGRAMS)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import generator
import runner

PROGRAMS = 6000
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


def test_generator_is_deterministic_and_varied():
    a, b = generator.generate(123), generator.generate(123)
    assert a.source == b.source and a.scalars == b.scalars
    assert [x.tobytes() for x in runner.random_inputs(a)] == \
        [x.tobytes() for x in runner.random_inputs(b)]
    covered = set().union(*(generator.generate(s).features for s in range(1, 300)))
    for f in ("broadcast", "cast", "constant", "dot", "for", "if", "intdiv", "load", "mask",
              "math", "reduce", "scan", "shift", "static_range", "store", "where"):
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
