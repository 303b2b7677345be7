"""Triton's `triton.compiler.errors`: the compile errors a program catches
by name (the classes live in tessera.runtime.errors)."""

from ..runtime.errors import (CompilationError, CompileTimeAssertionFailure,
                              UnsupportedLanguageConstruct)

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"]
