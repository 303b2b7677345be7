// Kernel (de)serialisation; the layout is in serialize.h's terms:
//
//   header   magic (8 bytes) | format version (u32) | compiler version (str)
//            | payload size (u64) | payload checksum (u64)
//   payload  kernel name (str) | debug (u8) | unit count (u32)
//            | per unit: file name (str), first line (u32), column offset (u32), text (str)
//            | stage count (u32) | per stage: name (str), IR text (str)
//            | the final IR with locations (str)
//
// Integers are little-endian; a str is a u32 byte count and the bytes. In the
// located IR, source unit i is named "unit<i>" rather than by its file name:
// several units may come from one file (one unit per @jit function), and a
// location must land in the unit whose text it quotes.
#include "runtime/serialize.h"

#include <cstring>
#include <functional>
#include <stdexcept>

#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/diagnostics.h"

namespace tessera {

namespace {

constexpr char kMagic[8] = {'T', 'E', 'S', 'S', 'K', 'R', 'N', 'L'};
// Bumped when the layout above changes (and then kCompilerRevision too, so
// that the version string says so before the layout is even read).
constexpr uint32_t kFormatVersion = 1;

std::string unitFileName(size_t unit) {
  return "unit" + std::to_string(unit);
}

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void str(std::string_view s) {
    if (s.size() > UINT32_MAX) throw std::length_error("a serialised string exceeds 4 GiB");
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void raw(std::string_view s) { out_.append(s); }
  std::string &bytes() { return out_; }

 private:
  std::string out_;
};

// Reads what Writer wrote, never past the end: every read first checks that
// the bytes are there.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  size_t remaining() const { return in_.size() - pos_; }
  bool atEnd() const { return pos_ == in_.size(); }

  std::string_view take(size_t n, const char *what) {
    if (n > remaining())
      throw InvalidCachedKernel(std::string("it is truncated (in the ") + what + ")");
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint8_t u8(const char *what) { return static_cast<uint8_t>(take(1, what)[0]); }
  uint32_t u32(const char *what) {
    std::string_view s = take(4, what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(s[i])} << (8 * i);
    return v;
  }
  uint64_t u64(const char *what) {
    std::string_view s = take(8, what);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(s[i])} << (8 * i);
    return v;
  }
  std::string_view str(const char *what) { return take(u32(what), what); }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

void forEachLoc(Module &m, const std::function<void(SourceLoc &)> &fn) {
  for (auto &f : m.functions) {
    fn(f->loc);
    f->walk([&](Operation *op) { fn(op->loc); });
  }
}

}  // namespace

uint64_t checksum64(std::string_view bytes, uint64_t seed) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h = seed;
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
  size_t n = bytes.size(), i = 0;
  // A multiply carries differences only upward: without the xor-shift, two
  // flips of the same high bit in different words would cancel.
  auto mix = [&](uint64_t w) {
    h = (h ^ w) * kPrime;
    h ^= h >> 29;
  };
  for (; i + 8 <= n; i += 8) {
    uint64_t w = 0;
    for (int b = 0; b < 8; ++b) w |= uint64_t{p[i + b]} << (8 * b);
    mix(w);
  }
  for (; i < n; ++i) mix(p[i]);
  return h;
}

std::string serializeKernel(const KernelImpl &kernel) {
  const SourceManager &sm = kernel.sources();
  Writer payload;
  payload.str(kernel.name());
  payload.u8(kernel.debug() ? 1 : 0);
  payload.u32(static_cast<uint32_t>(kernel.numUnits()));
  SourceManager naming;  // the same file ids, named by unit index
  for (size_t u = 0; u < kernel.numUnits(); ++u) {
    const SourceFile *f = sm.file(static_cast<uint32_t>(u + 1));
    if (!f) internalError("serialize", "source unit " + std::to_string(u) + " is missing");
    payload.str(f->name);
    payload.u32(f->firstLine);
    payload.u32(f->colOffset);
    payload.str(f->text);
    naming.addFile(unitFileName(u), "");
  }
  payload.u32(static_cast<uint32_t>(kernel.stages().size()));
  for (const auto &[name, text] : kernel.stages()) {
    payload.str(name);
    payload.str(text);
  }
  PrintOptions po;
  po.locations = true;
  po.sm = &naming;
  payload.str(printModule(kernel.module(), po));
  return withHeader(payload.bytes());
}

std::string withHeader(std::string_view payload) {
  Writer out;
  out.raw(std::string_view(kMagic, sizeof kMagic));
  out.u32(kFormatVersion);
  out.str(compilerVersion());
  out.u64(payload.size());
  out.u64(checksum64(payload));
  out.raw(payload);
  return std::move(out.bytes());
}

std::shared_ptr<KernelImpl> deserializeKernel(std::string_view bytes) {
  Reader header(bytes);
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw InvalidCachedKernel("it does not start with the Tessera kernel magic");
  header.take(sizeof kMagic, "magic");
  uint32_t format = header.u32("format version");
  if (format != kFormatVersion)
    throw InvalidCachedKernel("its format version is " + std::to_string(format) +
                              ", this compiler reads version " + std::to_string(kFormatVersion));
  std::string_view version = header.str("compiler version");
  if (version != compilerVersion())
    throw InvalidCachedKernel("it was written by '" + std::string(version) + "', this is '" +
                              compilerVersion() + "'");
  uint64_t size = header.u64("payload size");
  uint64_t sum = header.u64("checksum");
  if (size != header.remaining())
    throw InvalidCachedKernel("its payload has " + std::to_string(header.remaining()) +
                              " bytes, the header says " + std::to_string(size));
  std::string_view payload = header.take(header.remaining(), "payload");
  if (checksum64(payload) != sum) throw InvalidCachedKernel("its checksum does not match");

  Reader r(payload);
  auto k = std::make_shared<KernelImpl>();
  k->name_ = std::string(r.str("kernel name"));
  uint8_t debug = r.u8("debug flag");
  if (debug > 1) throw InvalidCachedKernel("its debug flag is " + std::to_string(debug));
  k->debug_ = debug == 1;
  uint32_t numUnits = r.u32("unit count");
  if (numUnits == 0) throw InvalidCachedKernel("it has no source units");
  k->sm_ = std::make_unique<SourceManager>();
  SourceManager scratch;  // where the located IR is parsed: files named as serializeKernel did
  for (uint32_t u = 0; u < numUnits; ++u) {
    std::string_view name = r.str("unit file name");
    uint32_t firstLine = r.u32("unit first line");
    uint32_t colOffset = r.u32("unit column offset");
    std::string_view text = r.str("unit text");
    if (colOffset > kMaxColOffset || text.size() > kMaxSourceBytes)
      throw InvalidCachedKernel("a source unit's column offset or size is out of range");
    k->sm_->addFile(std::string(name), std::string(text), firstLine, colOffset);
    scratch.addFile(unitFileName(u), "");
  }
  k->numUnits_ = numUnits;
  uint32_t numStages = r.u32("stage count");
  bool haveFinal = false;
  for (uint32_t s = 0; s < numStages; ++s) {
    std::string name(r.str("stage name"));
    haveFinal |= name == "ttir";
    k->stages_.emplace_back(std::move(name), std::string(r.str("stage text")));
  }
  if (!haveFinal) throw InvalidCachedKernel("it has no 'ttir' stage");
  std::string_view located = r.str("located IR");
  if (!r.atEnd()) throw InvalidCachedKernel("its payload has trailing bytes");

  try {
    k->module_ = parseIRString(scratch, "<cached kernel IR>", std::string(located));
  } catch (const CompileError &e) {
    throw InvalidCachedKernel("its IR does not parse (line " + std::to_string(e.diag.loc.line) +
                              ": " + e.diag.message + ")");
  }
  std::string err = verify(*k->module_);
  if (!err.empty()) throw InvalidCachedKernel("its IR does not verify: " + err);
  if (k->module_->functions.empty() || k->module_->functions.front()->name != k->name_)
    throw InvalidCachedKernel("its IR does not define kernel '" + k->name_ + "' first");
  // Units are files 1..numUnits in both managers; any other file (the IR
  // text itself, for an op printed without a location) means "unknown".
  forEachLoc(*k->module_, [&](SourceLoc &loc) {
    if (loc.file > numUnits) loc = {};
  });
  return k;
}

}  // namespace tessera
