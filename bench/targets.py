"""The performance targets that bench/gpu.py checks its rows against.

Each benchmark row passes its measured ratios (Tessera against a peer, or a
time) and the bounds that apply to it; at the end of the run `report` says
which targets were met and which were missed, so one run answers "are we
there" without reading every row. A target whose row failed or was not timed
counts as missed.

The bounds (H100 / H200, the same run):
  - matmul example, fp16 and bf16 at 4096^3 and 8192^3: at least 1.0x Triton
    and 0.95x cuBLAS; fp8 e4m3 at those sizes: at least 1.0x Triton;
    with TESSERA_TARGET=sm_80 (the mma.sync path on a Hopper GPU): fp16
    4096^3 at least 0.6x cuBLAS;
  - attention example, forward and backward: at least 1.0x Triton on every
    row; forward D 128, not causal: at least 1.0x SDPA and 0.95x
    FlashAttention-3's published 640 TFLOP/s;
  - cold compile of the matmul example: under 50 ms.
"""

FA3_PUBLISHED_TFLOPS = 640.0


def matmul_bounds(dtype, M, N, K, target=""):
    """(ratio, op, bound) for a matmul row: ratio "triton" or "cublas" is
    Tessera's TFLOP/s over the peer's; `target` is TESSERA_TARGET."""
    if target.startswith("sm_8"):
        return [("cublas", ">=", 0.6)] if dtype == "fp16" and M == N == K == 4096 else []
    if not (M == N == K and M in (4096, 8192)):
        return []
    if dtype in ("fp16", "bf16"):
        return [("triton", ">=", 1.0), ("cublas", ">=", 0.95)]
    if dtype == "fp8":
        return [("triton", ">=", 1.0)]
    return []


def attention_bounds(head_dim, causal, backward=False):
    """(ratio, op, bound) for an attention row: "triton", "sdpa" (Tessera over
    the peer) and "fa3" (Tessera's TFLOP/s over FA3_PUBLISHED_TFLOPS)."""
    bounds = [("triton", ">=", 1.0)]
    if not backward and head_dim == 128 and not causal:
        bounds += [("sdpa", ">=", 1.0), ("fa3", ">=", 0.95)]
    return bounds


def ratio(a, b):
    """a / b, or None where either was not measured."""
    return a / b if a and b else None


class Targets:
    def __init__(self):
        self.rows = []  # (row, name, measured or None, op, bound)

    def check(self, row, measured, bounds):
        """Records each of `bounds` against `measured` ({name: value or None})."""
        for name, op, bound in bounds:
            self.rows.append((row, name, measured.get(name), op, bound))

    @staticmethod
    def _met(value, op, bound):
        if value is None:
            return False
        return value >= bound if op == ">=" else value <= bound

    def report(self):
        """The lines that end a run: a count, then each target, missed first."""
        if not self.rows:
            return []
        met = [r for r in self.rows if self._met(r[2], r[3], r[4])]
        missed = [r for r in self.rows if r not in met]
        lines = [f"targets: {len(met)} met, {len(missed)} missed"]
        for verdict, rows in (("missed", missed), ("met", met)):
            for row, name, value, op, bound in rows:
                shown = "not measured" if value is None else f"{value:.3g}"
                lines.append(f"  {verdict:6s} {row}: {name} {shown} (target {op} {bound:g})")
        return lines
