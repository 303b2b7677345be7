#include "support/source.h"

#include <istream>

namespace tessera {

std::optional<std::string> readAtMost(std::istream &in, size_t limit) {
  std::string out;
  char buf[1 << 16];
  while (in && out.size() <= limit) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, limit + 1 - out.size())));
    out.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (out.size() > limit) return std::nullopt;
  return out;
}

uint32_t SourceManager::addFile(std::string name, std::string text, uint32_t firstLine,
                                uint32_t colOffset) {
  SourceFile f;
  f.name = std::move(name);
  f.text = std::move(text);
  f.firstLine = firstLine == 0 ? 1 : firstLine;
  f.colOffset = colOffset;
  f.lineStarts.push_back(0);
  // Callers keep text under kMaxSourceBytes, so offsets fit 32 bits.
  for (size_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.lineStarts.push_back(static_cast<uint32_t>(i + 1));
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

const SourceFile *SourceManager::file(uint32_t id) const {
  if (id == 0 || id > files_.size()) return nullptr;
  return &files_[id - 1];
}

std::string_view SourceManager::lineText(uint32_t id, uint32_t userLine) const {
  const SourceFile *f = file(id);
  if (!f || userLine < f->firstLine) return {};
  uint32_t idx = userLine - f->firstLine;
  if (idx >= f->lineStarts.size()) return {};
  uint32_t begin = f->lineStarts[idx];
  uint32_t end = idx + 1 < f->lineStarts.size() ? f->lineStarts[idx + 1] - 1
                                                : static_cast<uint32_t>(f->text.size());
  if (end > begin && f->text[end - 1] == '\r') --end;
  return std::string_view(f->text).substr(begin, end - begin);
}

}  // namespace tessera
