#!/usr/bin/env bash
# Installs the repository with `pip install --no-build-isolation` (the path
# for machines that reach no package registry) into a fresh virtual
# environment that sees the system's nanobind, scikit-build-core and NumPy,
# then runs a kernel from a directory outside the source tree, so only the
# installed package can be imported, and checks it against NumPy.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv --system-site-packages "$work/venv"
start=$(date +%s)
"$work/venv/bin/python" -m pip install -q --no-build-isolation --no-deps "$repo"
echo "pip install --no-build-isolation: $(( $(date +%s) - start )) s"
cat > "$work/kernel.py" <<'PY'
import numpy as np
import tessera as triton
import tessera.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


rng = np.random.default_rng()
n = 5000
x = rng.standard_normal(n, dtype=np.float32)
y = rng.standard_normal(n, dtype=np.float32)
ref = 2.5 * x.astype(np.float64) + y
axpy[(triton.cdiv(n, 512),)](x, y, n, 2.5, BLOCK=512)
np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-6)
assert "site-packages" in triton.__file__, triton.__file__
assert "site-packages" in triton.runtime.jit._ext().__file__
print("installed package ok:", triton.__file__)
PY
cd "$work"
env -u TESSERA_BUILD_DIR -u PYTHONPATH TESSERA_CACHE_DIR="$work/cache" "$work/venv/bin/python" kernel.py
