// tl.device_print through vprintf and tl.device_assert (when compiled with
// debug) through __assertfail, both resolved by the CUDA driver's JIT.
//
// device_print prints, like the interpreter, one line per element from the
// thread that owns it: `pid (x, y, z) idx (i, j) prefix: value`. Floats are
// printed with %.9g (%.17g for float64), since the device printf has no
// shortest round-trip form. A failed device_assert stops the kernel with the
// message, the kernel's file and line; the launch then fails with
// CUDA_ERROR_ASSERT, which the runtime raises as KernelError.
#include <cstdio>

#include "codegen/ptx/emitter.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

std::string Emitter::globalString(const std::string &s) {
  std::string name = "tessera_str" + std::to_string(strings_.size());
  strings_.push_back(s);
  std::string r = reg(RegClass::B64);
  ins("mov.u64 " + r + ", " + name);
  ins("cvta.global.u64 " + r + ", " + r);
  return r;
}

std::string Emitter::debugDeclarations() const {
  std::string out;
  if (usesVprintf_)
    out +=
        ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
        "\t.param .b64 vprintf_param_1\n);\n";
  if (usesAssert_)
    out +=
        ".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0,\n"
        "\t.param .b64 __assertfail_param_1,\n\t.param .b32 __assertfail_param_2,\n"
        "\t.param .b64 __assertfail_param_3,\n\t.param .b64 __assertfail_param_4\n);\n";
  for (size_t i = 0; i < strings_.size(); ++i) {
    const std::string &s = strings_[i];
    out += ".global .align 1 .b8 tessera_str" + std::to_string(i) + "[" +
           std::to_string(s.size() + 1) + "] = {";
    for (unsigned char c : s) out += std::to_string(c) + ", ";
    out += "0};\n";
  }
  return out;
}

std::string Emitter::localDeclarations() const {
  if (printBufBytes_ == 0) return {};
  return "\t.local .align 8 .b8 tessera_printbuf[" + std::to_string(printBufBytes_) + "];\n";
}

// Escapes '%' so a user's prefix cannot act as a conversion.
static std::string escapePercent(const std::string &s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

void Emitter::emitPrint(Operation &op) {
  usesVprintf_ = true;
  std::string prefix = op.strAttr("prefix");
  while (!prefix.empty() && (prefix.back() == ' ' || prefix.back() == ':')) prefix.pop_back();
  while (!prefix.empty() && prefix.front() == ' ') prefix.erase(0, 1);
  bool hex = op.intAttr("hex") != 0;
  std::string pid[3];
  for (int a = 0; a < 3; ++a) {
    pid[a] = reg(RegClass::B32);
    ins(std::string("mov.u32 ") + pid[a] + ", %ctaid." + "xyz"[a]);
  }
  auto call = [&](const std::string &format, const std::vector<std::pair<std::string, int>> &args) {
    // args: (register, bytes) written at their natural alignment.
    int64_t off = 0;
    std::vector<int64_t> offs;
    for (auto &[r, bytes] : args) {
      off = (off + bytes - 1) / bytes * bytes;
      offs.push_back(off);
      off += bytes;
    }
    printBufBytes_ = std::max(printBufBytes_, std::max<int64_t>(off, 8));
    for (size_t i = 0; i < args.size(); ++i) {
      const auto &[r, bytes] = args[i];
      std::string t = r[1] == 'f' ? (bytes == 8 ? "f64" : "f32") : (bytes == 8 ? "b64" : "b32");
      ins("st.local." + t + " [tessera_printbuf+" + std::to_string(offs[i]) + "], " + r);
    }
    std::string fmt = globalString(format);
    std::string buf = reg(RegClass::B64);
    ins("mov.u64 " + buf + ", tessera_printbuf");
    ins("cvta.local.u64 " + buf + ", " + buf);
    body_ += "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], " + fmt +
             ";\n\t.param .b64 param1;\n\tst.param.b64 [param1], " + buf +
             ";\n\t.param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n\t}\n";
  };
  std::vector<std::pair<std::string, int>> pidArgs = {{pid[0], 4}, {pid[1], 4}, {pid[2], 4}};
  if (op.operands.empty()) {
    std::string skip = newLabel();
    ins("@!" + firstThreadPred() + " bra " + skip);
    call("pid (%u, %u, %u) " + escapePercent(prefix) + "\n", pidArgs);
    label(skip);
    return;
  }
  for (size_t j = 0; j < op.operands.size(); ++j) {
    const Value *v = op.operand(j);
    std::string label_ = escapePercent(prefix);
    if (op.operands.size() > 1) label_ += " (operand " + std::to_string(j) + ")";
    if (!label_.empty()) label_ += ": ";
    bool tile = v->type.isTile();
    DType d = v->type.dtype;
    size_t n = tile ? layoutOf(v).numRegs() : 1;
    LinearLayout l = tile ? layoutOf(v) : LinearLayout{};
    std::string own = tile ? ownerPred(l) : firstThreadPred();
    const Regs &regs = get(v);
    for (size_t r = 0; r < n; ++r) {
      std::string skip = newLabel();
      if (!own.empty()) ins("@!" + own + " bra " + skip);
      std::vector<std::pair<std::string, int>> args = pidArgs;
      std::string idx = "(";
      if (tile) {
        std::vector<int64_t> rc = l.regCoord(static_cast<int>(r));
        for (int dim = 0; dim < v->type.rank(); ++dim) {
          std::string c = reg(RegClass::B32);
          ins("add.s32 " + c + ", " + threadCoord(l, dim) + ", " + std::to_string(rc[dim]));
          args.push_back({c, 4});
          idx += dim ? ", %d" : "%d";
        }
      }
      idx += ")";
      std::string fmt;
      std::string val = regs[r];
      if (v->type.isPtrLike() || hex) {
        std::string w = reg(RegClass::B64);
        if (regClassOf(v->type.element()) == RegClass::B64 || v->type.isPtrLike())
          ins("mov.b64 " + w + ", " + val);
        else
          ins("cvt.u64.u32 " + w + ", " + convert(val, d, DType::U32));
        fmt = "0x%llx";
        args.push_back({w, 8});
      } else if (isFloat(d)) {
        std::string f64 = convert(val, d, DType::F64);
        fmt = d == DType::F64 ? "%.17g" : "%.9g";
        args.push_back({f64, 8});
      } else if (bitWidth(d) == 64) {
        fmt = isUnsigned(d) ? "%llu" : "%lld";
        args.push_back({val, 8});
      } else {
        fmt = isUnsigned(d) ? "%u" : "%d";
        args.push_back({d == DType::I1 ? convert(val, d, DType::I32) : val, 4});
      }
      call("pid (%u, %u, %u) idx " + idx + " " + label_ + fmt + "\n", args);
      label(skip);
    }
  }
}

void Emitter::emitAssert(Operation &op) {
  usesAssert_ = true;
  const Value *c = op.operand(0);
  size_t n = c->type.isTile() ? layoutOf(c).numRegs() : 1;
  Regs conds = spread(c, n);
  std::string file = "<kernel>";
  if (opts_.sources && op.loc.known())
    if (const SourceFile *f = opts_.sources->file(op.loc.file)) file = f->name;
  std::string message = op.strAttr("what", "device_assert") + " failed: " + op.strAttr("message");
  for (size_t r = 0; r < n; ++r) {
    std::string ok = newLabel();
    ins("@" + conds[r] + " bra " + ok);
    std::string msg = globalString(message), fileReg = globalString(file),
                fnReg = globalString(fn_.name);
    body_ += "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], " + msg +
             ";\n\t.param .b64 param1;\n\tst.param.b64 [param1], " + fileReg +
             ";\n\t.param .b32 param2;\n\tst.param.b32 [param2], " + std::to_string(op.loc.line) +
             ";\n\t.param .b64 param3;\n\tst.param.b64 [param3], " + fnReg +
             ";\n\t.param .b64 param4;\n\tst.param.b64 [param4], 1;\n\tcall.uni __assertfail, "
             "(param0, param1, param2, param3, param4);\n\t}\n";
    label(ok);
  }
}

}  // namespace tessera::ptx
