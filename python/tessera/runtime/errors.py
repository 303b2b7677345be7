"""Exceptions raised by the Python package.

The C++ core renders every user error itself (file:line:col, the source line,
a caret and a hint, with the line numbers of the user's .py file); these
classes carry that text unchanged as their message.
"""


class TesseraError(Exception):
    """Base class of Tessera's own errors."""


class CompilationError(TesseraError):
    """A kernel failed to compile. `str(e)` is the rendered diagnostic;
    `error_message` (Triton's attribute) is the same text."""

    def __init__(self, message: str = ""):
        super().__init__(message.rstrip("\n"))
        self.message = message.rstrip("\n")
        self.error_message = self.message

    def __reduce__(self):  # picklable for multiprocessing
        return (type(self), (self.message,))


class KernelError(TesseraError, RuntimeError):
    """A kernel failed while running: an out-of-bounds access (naming the
    kernel line, the program id and the element index) or a failed
    device_assert."""

    def __init__(self, message: str = ""):
        super().__init__(message.rstrip("\n"))
        self.message = message.rstrip("\n")

    def __reduce__(self):
        return (type(self), (self.message,))


# Triton's names for the errors that tutorials catch.
InterpreterError = KernelError


class OutOfResources(TesseraError):
    """A configuration needs more of a resource than the target has. The
    autotuner skips configurations that raise it."""

    def __init__(self, required, limit, name):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(f"out of resource: {name}, required: {required}, hardware limit: {limit}")

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))
