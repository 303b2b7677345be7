#include "support/diagnostics.h"

namespace tessera {

void fail(SourceLoc loc, std::string message, std::string hint) {
  Diagnostic d;
  d.loc = loc;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw CompileError(std::move(d));
}

void internalError(const std::string &pass, const std::string &message, SourceLoc loc) {
  Diagnostic d;
  d.loc = loc;
  d.message = "internal compiler error in " + pass + ": " + message;
  d.hint = "this is a bug in Tessera, not in your kernel; please report it with the kernel";
  throw CompileError(std::move(d));
}

std::string render(const SourceManager &sm, const Diagnostic &d) {
  const char *sev = d.severity == Diagnostic::Severity::Error     ? "error"
                    : d.severity == Diagnostic::Severity::Warning ? "warning"
                                                                  : "note";
  std::string out;
  const SourceFile *f = sm.file(d.loc.file);
  if (f) {
    out += f->name + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": ";
  }
  out += std::string(sev) + ": " + d.message + "\n";
  if (f && d.loc.line) {
    std::string_view line = sm.lineText(d.loc.file, d.loc.line);
    // The user's line had colOffset more columns of indentation than our text.
    std::string shown(f->colOffset, ' ');
    shown += line;
    out += "    " + shown + "\n";
    std::string caret = "    ";
    for (uint32_t c = 1; c < d.loc.col && c - 1 < shown.size(); ++c)
      caret += shown[c - 1] == '\t' ? '\t' : ' ';
    out += caret + "^\n";
  }
  if (!d.hint.empty()) out += "note: " + d.hint + "\n";
  return out;
}

bool DiagnosticEngine::hasErrors() const {
  for (const auto &d : diags_)
    if (d.severity == Diagnostic::Severity::Error) return true;
  return false;
}

std::string DiagnosticEngine::renderAll() const {
  std::string out;
  for (const auto &d : diags_) out += render(sm_, d);
  return out;
}

}  // namespace tessera
