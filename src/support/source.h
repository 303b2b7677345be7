// Source files and locations. A SourceLoc names a file registered with the
// SourceManager and a 1-based line and column *as the user sees them*: the
// front end is told where the kernel starts inside the user's .py file, so the
// lines it records are already the user's lines.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

struct SourceLoc {
  uint32_t file = 0;  // 0: unknown (e.g. IR built by hand)
  uint32_t line = 0;  // 1-based, user's numbering
  uint32_t col = 0;   // 1-based, user's numbering
  bool known() const { return file != 0 && line != 0; }
  bool operator==(const SourceLoc &) const = default;
};

struct SourceFile {
  std::string name;
  std::string text;
  uint32_t firstLine = 1;  // line of text[0] in the user's file
  uint32_t colOffset = 0;  // columns removed by dedenting
  std::vector<uint32_t> lineStarts;
};

// The largest kernel source (one unit, or one input file of the tools):
// far beyond any kernel, small enough that reading it (or a device such as
// /dev/zero named by mistake) cannot exhaust memory, and that offsets fit
// the 32-bit line tables.
inline constexpr size_t kMaxSourceBytes = size_t{64} << 20;

// The largest column offset of a unit (the indentation dedenting removed):
// columns are 32-bit, and no real indentation comes near it.
inline constexpr uint32_t kMaxColOffset = uint32_t{1} << 16;

// All of `in` when it holds at most `limit` bytes, else nullopt (having
// read limit + 1 bytes, not the rest).
std::optional<std::string> readAtMost(std::istream &in, size_t limit = kMaxSourceBytes);

class SourceManager {
 public:
  // Registers a buffer and returns its id (never 0).
  uint32_t addFile(std::string name, std::string text, uint32_t firstLine = 1,
                   uint32_t colOffset = 0);
  const SourceFile *file(uint32_t id) const;
  // The text of a line in the user's numbering, without its newline; empty
  // when out of range.
  std::string_view lineText(uint32_t id, uint32_t userLine) const;

 private:
  std::vector<SourceFile> files_;
};

}  // namespace tessera
