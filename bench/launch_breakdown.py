"""Where the host time of a GPU launch goes (torch tensors, cached kernel):
the whole `kernel[grid](...)`, the C++ dispatcher alone, argument binding,
and torch.add for scale. Microseconds per call, timed as bench/gpu.py times
a launch (host_us_per_launch: batches of back-to-back calls, the GPU
drained, untimed, between batches).

    python3 bench/launch_breakdown.py
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import torch  # noqa: E402

from gpu import host_us_per_launch as us  # noqa: E402  (also puts python/, examples/ on the path)
import vector_add  # noqa: E402

k = vector_add.add_kernel
x = torch.randn(16, device="cuda")
y = torch.randn(16, device="cuda")
out = torch.empty_like(x)
k[(1,)](x, y, out, 16, BLOCK_SIZE=1024)
torch.cuda.synchronize()
bound, opts, _ = k._binder(x, y, out, 16, BLOCK_SIZE=1024)
d = k._dispatcher

launch = k[(1,)]
print(f"kernel[grid](...)        {us(lambda: k[(1,)](x, y, out, 16, BLOCK_SIZE=1024)):6.2f} us")
print(f"launcher(...) (cached)   {us(lambda: launch(x, y, out, 16, BLOCK_SIZE=1024)):6.2f} us")
empty = k[(0,)]
empty(x, y, out, 16, BLOCK_SIZE=1024)
print(f"launcher, empty grid     {us(lambda: empty(x, y, out, 16, BLOCK_SIZE=1024)):6.2f} us (all but the driver)")
print(f"dispatcher.run alone     {us(lambda: d.run(bound, (1, 1, 1), opts)):6.2f} us")
print(f"binder alone             {us(lambda: k._binder(x, y, out, 16, BLOCK_SIZE=1024)):6.2f} us")
print(f"x.data_ptr() x3          {us(lambda: (x.data_ptr(), y.data_ptr(), out.data_ptr())):6.2f} us")
print(f"x.get_device() x3        {us(lambda: (x.get_device(), y.get_device(), out.get_device())):6.2f} us")
print(f"x.dtype x3               {us(lambda: (x.dtype, y.dtype, out.dtype)):6.2f} us")
print(f"empty lambda             {us(lambda: None):6.2f} us")
print(f"torch raw stream getter  {us(lambda: torch._C._cuda_getCurrentRawStream(0)):6.2f} us")
print(f"torch.add(out=)          {us(lambda: torch.add(x, y, out=out)):6.2f} us")
