// PTX for inline assembly (tl.inline_asm_elementwise) and special registers
// (tl.extra.cuda.smid, globaltimer).
//
// Each thread runs the asm once per `pack` of its elements, with fresh
// virtual registers for every operand: the user's text is copied between
// `{` and `}`, so `.reg` declarations inside it stay local to one call and
// the same asm may appear many times. Inputs are copied into the operand
// registers (packed when narrower than 32 bits, see ir/inline_asm.h) so an
// asm that writes an input cannot clobber a value the kernel still uses.
#include "codegen/ptx/emitter.h"
#include "ir/inline_asm.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

namespace {

RegClass constraintClass(char c) {
  switch (c) {
    case 'h':
      return RegClass::B16;
    case 'l':
      return RegClass::B64;
    case 'f':
      return RegClass::F32;
    case 'd':
      return RegClass::F64;
    default:
      return RegClass::B32;
  }
}

// `text` with $N replaced by operand N's register and $$ by $.
std::string substitute(const std::string &text, const std::vector<std::string> &operands) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    bool brace = text[i + 1] == '{';
    size_t j = i + 1 + brace;
    size_t n = 0, digits = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && digits < 6) {
      n = n * 10 + (text[j++] - '0');
      ++digits;
    }
    if (!digits || n >= operands.size() || (brace && (j == text.size() || text[j] != '}'))) {
      out += text[i];  // not an operand reference ($L labels of the user's own)
      continue;
    }
    out += operands[n];
    i = j - 1 + brace;
  }
  return out;
}

// The bits of element register `r` (class of `elem`) as the low bits of a .b32.
std::string lowBits32(Emitter &e, const std::string &r, const Type &elem) {
  switch (regClassOf(elem)) {
    case RegClass::B32:
      return r;
    case RegClass::F32: {
      std::string t = e.reg(RegClass::B32);
      e.ins("mov.b32 " + t + ", " + r);
      return t;
    }
    case RegClass::B16: {
      std::string t = e.reg(RegClass::B32);
      e.ins("cvt.u32.u16 " + t + ", " + r);
      return t;
    }
    case RegClass::Pred: {
      std::string t = e.reg(RegClass::B32);
      e.ins("selp.b32 " + t + ", 1, 0, " + r);
      return t;
    }
    case RegClass::B64:
    case RegClass::F64:
      break;
  }
  internalError("emit-ptx", "a 64-bit value in a 32-bit inline asm register");
}

// A fresh register of `cls` holding `bits32`, a .b32 whose low bits matter.
std::string fromB32(Emitter &e, const std::string &bits32, char cls) {
  RegClass c = constraintClass(cls);
  std::string r = e.reg(c);
  switch (c) {
    case RegClass::B16:
      e.ins("cvt.u16.u32 " + r + ", " + bits32);
      break;
    case RegClass::B64:
    case RegClass::F64: {
      std::string w = c == RegClass::B64 ? r : e.reg(RegClass::B64);
      e.ins("cvt.u64.u32 " + w + ", " + bits32);
      if (c == RegClass::F64) e.ins("mov.b64 " + r + ", " + w);
      break;
    }
    default:
      e.ins("mov.b32 " + r + ", " + bits32);
  }
  return r;
}

// The register operand for elements `regs` (one, or several packed) of `elem`.
std::string inputOperand(Emitter &e, const std::vector<std::string> &regs, const Type &elem,
                         char cls) {
  RegClass have = regClassOf(elem);
  if (regs.size() == 1 && (have == RegClass::B64 || have == RegClass::F64)) {
    std::string r = e.reg(constraintClass(cls));
    e.ins("mov.b64 " + r + ", " + regs[0]);
    return r;
  }
  if (regs.size() == 1 && (have == RegClass::B32 || have == RegClass::F32) &&
      (cls == 'r' || cls == 'f')) {
    std::string r = e.reg(constraintClass(cls));
    e.ins("mov.b32 " + r + ", " + regs[0]);
    return r;
  }
  if (regs.size() == 1 && have == RegClass::B16 && cls == 'h') {
    std::string r = e.reg(RegClass::B16);
    e.ins("mov.b16 " + r + ", " + regs[0]);
    return r;
  }
  if (regs.size() == 1) return fromB32(e, lowBits32(e, regs[0], elem), cls);
  int w = asmElementBits(elem);
  std::string acc = e.reg(RegClass::B32);
  e.ins("mov.b32 " + acc + ", 0");
  for (size_t k = 0; k < regs.size(); ++k)
    e.ins("bfi.b32 " + acc + ", " + lowBits32(e, regs[k], elem) + ", " + acc + ", " +
          std::to_string(k * w) + ", " + std::to_string(w));
  return fromB32(e, acc, cls);
}

// Element `k` of output register `o` (constraint class `cls`), as a value of `elem`.
std::string outputElement(Emitter &e, const std::string &o, char cls, const Type &elem, int k) {
  RegClass want = regClassOf(elem);
  RegClass have = constraintClass(cls);
  if (want == RegClass::B64 || want == RegClass::F64) {
    std::string r = e.reg(want);
    e.ins("mov.b64 " + r + ", " + o);
    return r;
  }
  if (want == RegClass::B16 && have == RegClass::B16 && asmElementBits(elem) == 16) {
    std::string r = e.reg(want);
    e.ins("mov.b16 " + r + ", " + o);
    return r;
  }
  std::string t = o;
  if (have == RegClass::F32) {
    t = e.reg(RegClass::B32);
    e.ins("mov.b32 " + t + ", " + o);
  } else if (have == RegClass::B16) {
    t = e.reg(RegClass::B32);
    e.ins("cvt.u32.u16 " + t + ", " + o);
  } else if (have == RegClass::B64 || have == RegClass::F64) {
    std::string w = o;
    if (have == RegClass::F64) {
      w = e.reg(RegClass::B64);
      e.ins("mov.b64 " + w + ", " + o);
    }
    t = e.reg(RegClass::B32);
    e.ins("cvt.u32.u64 " + t + ", " + w);
  }
  int w = asmElementBits(elem);
  std::string r = e.reg(want);
  std::string x = t;
  if (w < 32) {
    x = e.reg(RegClass::B32);
    bool sign = want == RegClass::B32 && isSigned(elem.dtype);
    e.ins(std::string(sign ? "bfe.s32 " : "bfe.u32 ") + x + ", " + t + ", " +
          std::to_string(k * w) + ", " + std::to_string(w));
  }
  switch (want) {
    case RegClass::B32:
    case RegClass::F32:
      e.ins("mov.b32 " + r + ", " + x);
      break;
    case RegClass::B16:
      e.ins("cvt.u16.u32 " + r + ", " + x);
      break;
    case RegClass::Pred:
      e.ins("setp.ne.u32 " + r + ", " + x + ", 0");
      break;
    case RegClass::B64:
    case RegClass::F64:
      break;
  }
  return r;
}

}  // namespace

void Emitter::emitInlineAsm(Operation &op) {
  std::vector<Type> args, results;
  for (Value *v : op.operands) args.push_back(v->type.element());
  for (auto &r : op.results) results.push_back(r->type.element());
  int64_t pack = op.intAttr("pack", 1);
  std::string error, hint;
  std::optional<AsmPlan> plan =
      planInlineAsm(op.strAttr("asm"), op.strAttr("constraints"), args, results, pack, error, hint);
  if (!plan) unsupported(op, error);
  const Value *res = op.result(0);
  size_t n = res->type.isTile() ? layoutOf(res).numRegs() : 1;
  std::vector<Regs> in;
  for (Value *v : op.operands) in.push_back(spread(v, n));
  std::vector<Regs> out(op.results.size());
  // A thread's elements in groups of `pack`; a last, partial group repeats
  // its first element, whose extra results are dropped.
  for (size_t base = 0; base < n; base += static_cast<size_t>(pack)) {
    auto element = [&](size_t j) { return base + j < n ? base + j : base; };
    std::vector<std::string> operands;
    for (size_t i = 0; i < plan->outputs.size(); ++i)
      operands.push_back(reg(constraintClass(plan->outputs[i].cls)));
    size_t k = 0;
    for (size_t a = 0; a < in.size(); ++a) {
      int per = plan->argPerReg[a];
      for (int64_t r = 0; r < pack / per; ++r, ++k) {
        std::vector<std::string> regs;
        for (int j = 0; j < per; ++j) regs.push_back(in[a][element(r * per + j)]);
        const AsmConstraint &c = plan->inputs[k];
        if (c.tiedTo < 0) {
          operands.push_back(inputOperand(*this, regs, args[a], c.cls));
          continue;
        }
        // Tied: the input's value starts in the output's register.
        const AsmConstraint &o = plan->outputs[c.tiedTo];
        std::string v = inputOperand(*this, regs, args[a], o.cls);
        ins(std::string("mov.") + movType(constraintClass(o.cls)) + " " + operands[c.tiedTo] +
            ", " + v);
        operands.push_back(operands[c.tiedTo]);
      }
    }
    body_ += "\t// begin inline asm\n\t{\n" + substitute(op.strAttr("asm"), operands) +
             "\n\t}\n\t// end inline asm\n";
    size_t o = 0;
    for (size_t r = 0; r < results.size(); ++r) {
      int per = plan->resultPerReg[r];
      for (int64_t g = 0; g < pack / per; ++g, ++o)
        for (int j = 0; j < per; ++j)
          if (base + g * per + j < n)
            out[r].push_back(
                outputElement(*this, operands[o], plan->outputs[o].cls, results[r], j));
    }
  }
  for (size_t r = 0; r < results.size(); ++r) set(op.result(r), out[r]);
}

void Emitter::emitReadSreg(Operation &op) {
  bool timer = op.strAttr("reg") == "globaltimer";
  std::string r = reg(timer ? RegClass::B64 : RegClass::B32);
  ins(timer ? "mov.u64 " + r + ", %globaltimer" : "mov.u32 " + r + ", %smid");
  set(op.result(), {r});
}

}  // namespace tessera::ptx
