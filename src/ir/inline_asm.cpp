#include "ir/inline_asm.h"

#include <algorithm>
#include <cctype>

#include "support/text.h"

namespace tessera {

int AsmConstraint::bits() const {
  switch (cls) {
    case 'h':
      return 16;
    case 'l':
    case 'd':
      return 64;
    default:
      return 32;
  }
}

int asmElementBits(const Type &elem) {
  if (elem.isPtrLike()) return 64;
  if (elem.dtype == DType::I1) return 8;
  return bitWidth(elem.dtype);
}

namespace {

// Elements per register of one operand of `bits`-wide elements: narrower
// than 32 bits, as many as fit in 32 bits, but no more than one call takes.
int perRegister(int bits, int64_t pack) {
  return static_cast<int>(std::min<int64_t>(std::max(32 / bits, 1), pack));
}

// The highest $N the asm text names, or -1 ("$$" is a literal dollar).
int highestOperand(const std::string &text) {
  int top = -1;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '$') continue;
    if (text[i + 1] == '$') {
      ++i;
      continue;
    }
    size_t j = i + 1 + (text[i + 1] == '{');
    int n = -1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && n < 100000)
      n = (n < 0 ? 0 : n * 10) + (text[j++] - '0');
    top = std::max(top, n);
  }
  return top;
}

}  // namespace

std::optional<AsmPlan> planInlineAsm(const std::string &asmText, const std::string &constraints,
                                     const std::vector<Type> &argElems,
                                     const std::vector<Type> &resultElems, int64_t pack,
                                     std::string &error, std::string &hint) {
  AsmPlan plan;
  if (pack < 1 || pack > 64) {
    error = "pack must be between 1 and 64, got " + std::to_string(pack);
    hint = "pass the number of elements one asm call handles, e.g. pack=4 for four int8";
    return std::nullopt;
  }
  if (resultElems.empty()) {
    error = "the inline asm must return at least one value";
    hint = "return a dummy value (dtype=tl.int32 and an unused \"=r\" output) if none is needed";
    return std::nullopt;
  }
  // The constraint list: outputs ("=r", "=&r"), then inputs ("r", "0"),
  // then clobbers ("~{memory}"), which PTX has no use for.
  size_t start = 0;
  bool seenInput = false;
  while (start <= constraints.size()) {
    size_t comma = constraints.find(',', start);
    if (comma == std::string::npos) comma = constraints.size();
    std::string c(trim(constraints.substr(start, comma - start)));
    start = comma + 1;
    if (c.empty()) {
      if (start > constraints.size() && plan.outputs.empty() && plan.inputs.empty()) break;
      error = "the constraint string \"" + constraints + "\" has an empty entry";
      hint = "write one constraint per operand separated by commas, e.g. \"=r,r,r\"";
      return std::nullopt;
    }
    if (c[0] == '~') continue;
    AsmConstraint k;
    size_t p = 0;
    if (c[p] == '=') {
      k.output = true;
      ++p;
      if (p < c.size() && c[p] == '&') ++p;  // early clobber: every register is fresh anyway
    }
    std::string body = c.substr(p);
    if (!k.output && !body.empty() &&
        std::all_of(body.begin(), body.end(), [](char ch) { return std::isdigit(ch); })) {
      k.tiedTo = std::stoi(body.substr(0, 6));
      k.cls = 0;
    } else if (body.size() == 1 && std::string("rhlfd").find(body[0]) != std::string::npos) {
      k.cls = body[0];
    } else {
      error = "unsupported inline asm constraint \"" + c + "\"";
      hint =
          "use r (.b32), h (.b16), l (.b64), f (.f32) or d (.f64), '=' before outputs, "
          "or the number of an output to share its register";
      return std::nullopt;
    }
    if (k.output && seenInput) {
      error = "output constraint \"" + c + "\" comes after an input";
      hint = "list the outputs (\"=r\") first, then the inputs, as in \"=r,=r,r,r\"";
      return std::nullopt;
    }
    seenInput = seenInput || !k.output;
    (k.output ? plan.outputs : plan.inputs).push_back(k);
  }
  // What the arguments and results need, in registers.
  auto needs = [&](const std::vector<Type> &elems, std::vector<int> &perReg, int &regs,
                   const char *what) -> bool {
    for (size_t i = 0; i < elems.size(); ++i) {
      int per = perRegister(asmElementBits(elems[i]), pack);
      if (pack % per) {
        error = "pack=" + std::to_string(pack) + " does not fill whole registers with " + what +
                " " + std::to_string(i) + " (" + elems[i].str() + ", " + std::to_string(per) +
                " per 32-bit register)";
        hint = "make pack a power of two";
        return false;
      }
      perReg.push_back(per);
      regs += static_cast<int>(pack / per);
    }
    return true;
  };
  if (!needs(resultElems, plan.resultPerReg, plan.numOutputRegs, "result") ||
      !needs(argElems, plan.argPerReg, plan.numInputRegs, "argument"))
    return std::nullopt;
  auto regList = [&](const std::vector<Type> &elems, const std::vector<int> &perReg) {
    std::string s;
    for (size_t i = 0; i < elems.size(); ++i)
      s += (i ? ", " : "") + std::to_string(pack / perReg[i]) + " for " + elems[i].str();
    return s;
  };
  if (static_cast<int>(plan.outputs.size()) != plan.numOutputRegs) {
    error = "the constraints declare " + std::to_string(plan.outputs.size()) +
            " output register(s), but the result dtype(s) with pack=" + std::to_string(pack) +
            " need " + std::to_string(plan.numOutputRegs) + " (" +
            regList(resultElems, plan.resultPerReg) + ")";
    hint = "write one \"=r\" (or =h, =l, =f, =d) per output register, before the inputs";
    return std::nullopt;
  }
  if (static_cast<int>(plan.inputs.size()) != plan.numInputRegs) {
    error = "the constraints declare " + std::to_string(plan.inputs.size()) +
            " input register(s), but the arguments with pack=" + std::to_string(pack) + " need " +
            std::to_string(plan.numInputRegs) +
            (argElems.empty() ? std::string() : " (" + regList(argElems, plan.argPerReg) + ")");
    hint =
        "write one constraint per input register after the outputs; elements narrower than "
        "32 bits are packed into 32-bit registers";
    return std::nullopt;
  }
  // Widths: a packed or single value must fit its register.
  auto fits = [&](const std::vector<Type> &elems, const std::vector<int> &perReg,
                  const std::vector<AsmConstraint> &ks, bool outputs) -> bool {
    size_t k = 0;
    for (size_t i = 0; i < elems.size(); ++i) {
      int bits = asmElementBits(elems[i]) * perReg[i];
      for (int64_t r = 0; r < pack / perReg[i]; ++r, ++k) {
        const AsmConstraint &c = ks[k];
        int width = c.tiedTo >= 0 ? (c.tiedTo < static_cast<int>(plan.outputs.size())
                                         ? plan.outputs[c.tiedTo].bits()
                                         : 0)
                                  : c.bits();
        if (c.tiedTo >= 0 && width == 0) {
          error = "input constraint \"" + std::to_string(c.tiedTo) + "\" names no output";
          hint = "a numeric constraint ties an input to that output; there are " +
                 std::to_string(plan.outputs.size()) + " outputs";
          return false;
        }
        if (bits > width) {
          int n = static_cast<int>(k + (outputs ? 0 : plan.outputs.size()));
          error = "$" + std::to_string(n) + " holds " + std::to_string(bits) + " bits (" +
                  elems[i].str() + (perReg[i] > 1 ? " x" + std::to_string(perReg[i]) : "") +
                  ") but its constraint gives a " + std::to_string(width) + "-bit register";
          hint = bits == 64 ? "use \"l\" (or \"d\") for 64-bit values and pointers"
                            : "use \"r\" for 32-bit registers";
          return false;
        }
      }
    }
    return true;
  };
  if (!fits(resultElems, plan.resultPerReg, plan.outputs, true) ||
      !fits(argElems, plan.argPerReg, plan.inputs, false))
    return std::nullopt;
  int total = plan.numOutputRegs + plan.numInputRegs;
  if (int top = highestOperand(asmText); top >= total) {
    error = "the asm names $" + std::to_string(top) + " but has only " + std::to_string(total) +
            " operands ($0..$" + std::to_string(total - 1) + ")";
    hint = "operands are numbered outputs first, then inputs; write $$ for a literal '$'";
    return std::nullopt;
  }
  return plan;
}

}  // namespace tessera
