// Diagnostics: every user error is rendered as
//
//   file:line:col: error: message
//     source line
//         ^
//   note: what to do
//
// Code that finds an error calls fail(), which throws CompileError; the API
// boundary (tessera::compile, the tools) catches it and returns the rendered
// text. A compiler bug is reported through internalError(), which names the
// pass, so users can tell their mistakes from ours.
//
// Warnings ("file:line:col: warning: ...") are code that compiles but is
// likely a mistake, where Triton warns too (tl.where on a non-boolean
// condition, a shift past the type's width): the front end collects them
// and the kernel keeps them; Python raises each as a UserWarning at its
// line.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "support/source.h"

namespace tessera {

// An error, or a warning (which does not stop the compile).
struct Diagnostic {
  SourceLoc loc;
  std::string message;
  std::string hint;  // optional sentence that says what to do
};

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}
  Diagnostic diag;
};

// An error while running a kernel (e.g. the interpreter's bounds checks); the
// message already names the kernel's file:line:col and the program id.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(SourceLoc loc, std::string message, std::string hint = {});
[[noreturn]] void internalError(const std::string &pass, const std::string &message,
                                SourceLoc loc = {});

// Renders a diagnostic with its source line and caret (when the location is
// known to `sm`); `severity` is "error" or "warning".
std::string render(const SourceManager &sm, const Diagnostic &d,
                   std::string_view severity = "error");

}  // namespace tessera
