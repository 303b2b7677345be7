#include "support/diagnostics.h"

#include <algorithm>

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

std::string render(const SourceManager &sm, const Diagnostic &d, std::string_view severity) {
  std::string out;
  const SourceFile *f = sm.file(d.loc.file);
  if (f) {
    out += f->name + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": ";
  }
  out += std::string(severity) + ": " + d.message + "\n";
  if (f && d.loc.line) {
    std::string_view line = sm.lineText(d.loc.file, d.loc.line);
    // The user's line had colOffset more columns of indentation than our
    // text. Only a window of it around the caret is shown, so that a huge
    // offset or line (minified code, a damaged cache entry) cannot make a
    // huge message.
    constexpr uint64_t kWidth = 160;
    const uint64_t total = uint64_t{f->colOffset} + line.size();
    const uint64_t caretAt = d.loc.col ? d.loc.col - 1 : 0;  // 0-based column
    uint64_t begin = 0;
    if (total > kWidth)
      begin = std::min(caretAt > kWidth / 2 ? caretAt - kWidth / 2 : 0, total - kWidth);
    const uint64_t end = std::min(total, begin + kWidth);
    auto at = [&](uint64_t c) { return c < f->colOffset ? ' ' : line[c - f->colOffset]; };
    std::string shown = begin > 0 ? "..." : "";
    for (uint64_t c = begin; c < end; ++c) shown += at(c);
    if (end < total) shown += "...";
    out += "    " + shown + "\n";
    std::string caret = begin > 0 ? "       " : "    ";
    for (uint64_t c = begin; c < caretAt && c < end; ++c) caret += at(c) == '\t' ? '\t' : ' ';
    out += caret + "^\n";
  }
  if (!d.hint.empty()) out += "note: " + d.hint + "\n";
  return out;
}

}  // namespace tessera
