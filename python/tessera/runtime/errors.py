"""Exceptions raised by the Python package.

The C++ core renders every user error itself (file:line:col, the source line,
a caret and a hint, with the line numbers of the user's .py file); these
classes carry that text unchanged as their message.
"""


class TesseraError(Exception):
    """Base class of Tessera's own errors."""


class CompilationErrorCause(ValueError):
    """The bare sentence of a compile error, as `CompilationError.__cause__`."""


class CompilationError(TesseraError):
    """A kernel failed to compile. `str(e)` is the rendered diagnostic;
    `error_message` (Triton's attribute) is the same text."""

    def __init__(self, message: str = ""):
        super().__init__(message.rstrip("\n"))
        self.message = message.rstrip("\n")
        self.error_message = self.message

    def __reduce__(self):  # picklable for multiprocessing
        return (type(self), (self.message,))

    # Triton raises its CompilationError from the front end's own error, and
    # programs read that error's text off `__cause__` ("invalid axis -3" in
    # str(e.__cause__)). Ours has no such error behind it: `__cause__` reads
    # as one holding the diagnostic's sentence (without file, line and
    # caret), unless a cause was set. A property, so that Python's own report
    # of an uncaught error (which reads the C-level field) stays the one
    # rendered diagnostic.
    @property
    def __cause__(self):
        cause = BaseException.__cause__.__get__(self)
        if cause is not None:
            return cause
        if not hasattr(self, "_sentence_cause"):
            self._sentence_cause = CompilationErrorCause(_sentence(self.message))
        return self._sentence_cause

    @__cause__.setter
    def __cause__(self, value):
        BaseException.__cause__.__set__(self, value)


def _sentence(message: str) -> str:
    """The text after 'error: ' on a diagnostic's first line, or that line."""
    first = message.split("\n", 1)[0]
    at = first.find("error: ")
    return first[at + len("error: "):] if at >= 0 else first


class KernelError(TesseraError, RuntimeError):
    """A kernel failed while running: an out-of-bounds access (naming the
    kernel line, the program id and the element index) or a failed
    device_assert."""

    def __init__(self, message: str = ""):
        super().__init__(message.rstrip("\n"))
        self.message = message.rstrip("\n")

    def __reduce__(self):
        return (type(self), (self.message,))


class CompileTimeAssertionFailure(CompilationError):
    """A tl.static_assert that failed (Triton's class of that name)."""


class UnsupportedLanguageConstruct(CompilationError):
    """Triton's class for Python a kernel may not use; Tessera reports such
    code as a CompilationError, so this one is never raised."""


def refined(e: CompilationError) -> CompilationError:
    """`e` as the subclass Triton raises for it: CompileTimeAssertionFailure
    for a failed tl.static_assert, else `e` itself."""
    if type(e) is CompilationError and "error: static_assert failed" in e.message.split("\n", 1)[0]:
        return CompileTimeAssertionFailure(e.message)
    return e


# Triton's names for the errors that tutorials catch.
InterpreterError = KernelError


class InterpretedCompilationError(CompilationError, InterpreterError):
    """A compile error of a kernel bound for the interpreter under
    TRITON_INTERPRET=1, where Triton raises InterpreterError: either
    `except` clause catches it."""


class AutotunerError(TesseraError):
    """An autotuning that cannot go on (Triton's triton.runtime.errors.AutotunerError),
    such as an early_config_prune that kept no config."""

    def __init__(self, error_message=None):
        self.error_message = error_message
        super().__init__(error_message)

    def __str__(self) -> str:
        return f"Autotuner error: {self.error_message or ''}"


class OutOfResources(TesseraError):
    """A configuration needs more of a resource than the target has. The
    autotuner skips configurations that raise it."""

    def __init__(self, required, limit, name):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(f"out of resource: {name}, required: {required}, hardware limit: {limit}")

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))
