#include "support/source.h"

namespace tessera {

uint32_t SourceManager::addFile(std::string name, std::string text, uint32_t firstLine,
                                uint32_t colOffset) {
  SourceFile f;
  f.name = std::move(name);
  f.text = std::move(text);
  f.firstLine = firstLine == 0 ? 1 : firstLine;
  f.colOffset = colOffset;
  f.lineStarts.push_back(0);
  for (uint32_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.lineStarts.push_back(i + 1);
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
