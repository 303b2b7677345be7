// drop-repeated-barriers (repeated_barriers.h).
//
// Requires: PTX instructions one a line, as the emitter writes them
// (a tab, the instruction, `;`), labels alone on their lines.
// Guarantees: inline asm (between the emitter's `// begin inline asm` and
// `// end inline asm`) is left as written and counts as memory access;
// a barrier line is removed only where every line since the
// previous identical barrier line (or since the start of the text) is a
// directive, a comment or an instruction of the allow-list below: register
// arithmetic and moves, comparisons and selects, conversions, reads of
// special registers, of kernel parameters (read-only) and shuffles, none
// of which touches shared or global memory or branches.
// Preserves: what the kernel computes; every thread removes the same
// barriers (the text is one for all), so the barriers left still match.
#include "codegen/ptx/repeated_barriers.h"

#include <array>
#include <string_view>

#include "support/text.h"

namespace tessera::ptx {
namespace {

bool isBarrier(std::string_view line) {
  return line.starts_with("bar.sync ");
}

// Lines that neither touch memory nor change control flow.
bool isRegisterOnly(std::string_view line) {
  if (line.empty() || line.starts_with("//") || line.starts_with(".loc") ||
      line.starts_with(".reg"))
    return true;
  if (line.ends_with(":")) return false;  // a label: control flow joins here
  if (line.starts_with("@")) {            // a predicated instruction: its operation counts
    size_t sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) return false;
    line = trim(line.substr(sp));
  }
  static constexpr std::array<std::string_view, 27> kAllowed = {
      "add.", "sub.", "mul.",  "mad.",  "mul24.", "mad24.", "div.",  "rem.",      "neg.",
      "abs.", "min.", "max.",  "and.",  "or.",    "xor.",   "not.",  "shl.",      "shr.",
      "mov.", "cvt.", "cvta.", "setp.", "selp.",  "set.",   "slct.", "ld.param.", "shfl.sync."};
  for (std::string_view prefix : kAllowed)
    if (line.starts_with(prefix)) return true;
  return false;
}

}  // namespace

int dropRepeatedBarriers(std::string &text) {
  std::string out;
  out.reserve(text.size());
  std::string last;        // the barrier met last, while only register work followed it
  bool clean = true;       // at the start, only register work so far
  bool inlineAsm = false;  // a program's own asm is copied as written
  int removed = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    size_t next = end == std::string::npos ? text.size() : end + 1;
    std::string_view raw(text.data() + pos, next - pos);
    std::string_view line = trim(raw.substr(0, raw.size() - (end == std::string::npos ? 0 : 1)));
    if (line == "// begin inline asm" || inlineAsm) {
      inlineAsm = line != "// end inline asm";
      clean = false;
      last.clear();
    } else if (isBarrier(line)) {
      if (clean && (last.empty() || last == line)) {
        // The previous identical barrier (or the kernel's start) already
        // ordered everything this one would.
        if (last.empty()) last = std::string(line);
        ++removed;
        pos = next;
        continue;
      }
      last = std::string(line);
      clean = true;
    } else if (!isRegisterOnly(line)) {
      clean = false;
      last.clear();
    }
    out.append(raw);
    pos = next;
  }
  text = std::move(out);
  return removed;
}

}  // namespace tessera::ptx
