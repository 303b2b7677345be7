"""Marks torch_ops._written for Dynamo as a function whose result is a
constant (`torch.compiler.assume_constant_result`), so the source analysis
it runs is not traced. Imported by torch_ops.launcher, which only runs while
Dynamo traces: Dynamo performs a module's first import for real, and
torch._dynamo is loaded by then. Marking it when torch_ops is imported would
import torch._dynamo (over a second) into every process that merely
launches kernels on PyTorch tensors."""

import torch

from . import torch_ops

torch.compiler.assume_constant_result(torch_ops._written)
