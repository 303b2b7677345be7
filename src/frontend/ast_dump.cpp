// S-expression dumps of the AST, for tests and debugging. The format is
// stable (tests compare it): names and numbers print as themselves, strings
// quoted with C escapes, composite nodes as (head children...), absent
// optional children as `_`. Recursion follows the AST, whose height the
// parser bounds.
#include <charconv>
#include <cstdio>

#include "frontend/ast.h"

namespace tessera::ast {
namespace {

void quote(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void formatFloat(std::string &out, double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s = ec == std::errc() ? std::string(buf, end) : std::string("?");
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep floats visibly floats
  out += s;
}

class Dumper {
 public:
  std::string out;

  void expr(const Expr *e) {
    if (!e) {
      out += '_';
      return;
    }
    switch (e->kind) {
      case ExprKind::Name:
        out += e->str;
        return;
      case ExprKind::Int:
        out += std::to_string(e->ival);
        return;
      case ExprKind::Float:
        formatFloat(out, e->fval);
        return;
      case ExprKind::Str:
        quote(out, e->str);
        return;
      case ExprKind::Bool:
        out += e->ival ? "True" : "False";
        return;
      case ExprKind::None:
        out += "None";
        return;
      case ExprKind::Ellipsis:
        out += "...";
        return;
      case ExprKind::Attribute:
        open(".");
        child(e->a.get());
        out += ' ' + e->str + ')';
        return;
      case ExprKind::Subscript:
        node("sub", {e->a.get(), e->b.get()});
        return;
      case ExprKind::Slice:
        node("slice", {e->a.get(), e->b.get(), e->c.get()});
        return;
      case ExprKind::Tuple:
        list("tuple", *e);
        return;
      case ExprKind::List:
        list("list", *e);
        return;
      case ExprKind::Call:
        open("call");
        child(e->a.get());
        for (const auto &arg : e->list) child(arg.get());
        for (const auto &k : e->keywords) {
          out += k.name.empty() ? " (** " : " (kw " + k.name + " ";
          expr(k.value.get());
          out += ')';
        }
        out += ')';
        return;
      case ExprKind::BinOp:
        node(spelling(e->binop), {e->a.get(), e->b.get()});
        return;
      case ExprKind::UnaryOp:
        node(spelling(e->unop), {e->a.get()});
        return;
      case ExprKind::BoolOp:
        list(e->boolop == BoolOp::And ? "and" : "or", *e);
        return;
      case ExprKind::Compare:
        open("cmp");
        child(e->a.get());
        for (size_t i = 0; i < e->list.size(); ++i) {
          if (i < e->cmpops.size()) out += std::string(" ") + spelling(e->cmpops[i]);
          child(e->list[i].get());
        }
        out += ')';
        return;
      case ExprKind::IfExp:
        node("ifexp", {e->a.get(), e->b.get(), e->c.get()});
        return;
      case ExprKind::JoinedStr:
        list("fstr", *e);
        return;
      case ExprKind::FormattedValue:
        open("fmt");
        child(e->a.get());
        if (e->ival) out += std::string(" !") + static_cast<char>(e->ival);
        if (!e->str.empty()) {
          out += " :";
          quote(out, e->str);
        }
        out += ')';
        return;
      case ExprKind::Starred:
        node("*", {e->a.get()});
        return;
      case ExprKind::NamedExpr:
        open(":= " + e->str);
        child(e->a.get());
        out += ')';
        return;
      case ExprKind::ListComp:
        open("listcomp");
        child(e->a.get());
        for (const auto &c : e->list) child(c.get());
        out += ')';
        return;
      case ExprKind::CompFor:
        open("for");
        child(e->a.get());
        child(e->b.get());
        for (const auto &c : e->list) child(c.get());
        out += ')';
        return;
      case ExprKind::Unsupported:
        out += "(unsupported ";
        quote(out, e->str);
        out += ')';
        return;
    }
    out += "(?)";
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
      case StmtKind::FunctionDef:
        open("def " + s.name);
        out += " (params";
        for (const auto &p : s.params) param(p);
        out += ')';
        if (s.a) {
          out += " (->";
          child(s.a.get());
          out += ')';
        }
        decorators(s);
        body("body", s.body);
        out += ')';
        return;
      case StmtKind::ClassDef:
        open("class " + s.name);
        if (s.a) child(s.a.get());
        decorators(s);
        body("body", s.body);
        out += ')';
        return;
      case StmtKind::Return:
        open("return");
        if (s.a) child(s.a.get());
        out += ')';
        return;
      case StmtKind::Assign:
        open("=");
        for (const auto &t : s.targets) child(t.get());
        child(s.a.get());
        out += ')';
        return;
      case StmtKind::AugAssign:
        open(std::string(spelling(s.binop)) + "=");
        child(s.targets.empty() ? nullptr : s.targets[0].get());
        child(s.a.get());
        out += ')';
        return;
      case StmtKind::AnnAssign:
        open(":");
        child(s.targets.empty() ? nullptr : s.targets[0].get());
        child(s.b.get());
        if (s.a) child(s.a.get());
        out += ')';
        return;
      case StmtKind::For:
        open("for");
        child(s.targets.empty() ? nullptr : s.targets[0].get());
        child(s.a.get());
        bodies(s);
        return;
      case StmtKind::While:
        open("while");
        child(s.a.get());
        bodies(s);
        return;
      case StmtKind::If:
        open("if");
        child(s.a.get());
        bodies(s);
        return;
      case StmtKind::ExprStmt:
        open("expr");
        child(s.a.get());
        out += ')';
        return;
      case StmtKind::Pass:
        out += "(pass)";
        return;
      case StmtKind::Break:
        out += "(break)";
        return;
      case StmtKind::Continue:
        out += "(continue)";
        return;
      case StmtKind::Assert:
        open("assert");
        child(s.a.get());
        if (s.b) child(s.b.get());
        out += ')';
        return;
      case StmtKind::Import:
        open("import");
        names(s);
        out += ')';
        return;
      case StmtKind::ImportFrom:
        open("from " + std::string(static_cast<size_t>(s.importLevel), '.') + s.name);
        names(s);
        out += ')';
        return;
      case StmtKind::Global:
      case StmtKind::Nonlocal:
        open(s.kind == StmtKind::Global ? "global" : "nonlocal");
        names(s);
        out += ')';
        return;
      case StmtKind::With:
        open("with");
        for (size_t i = 0; i < s.targets.size(); ++i) {
          out += " (item";
          child(s.targets[i].get());
          if (s.a && i < s.a->list.size() && s.a->list[i]->kind != ExprKind::None) {
            out += " as";
            child(s.a->list[i].get());
          }
          out += ')';
        }
        body("body", s.body);
        out += ')';
        return;
      case StmtKind::Unsupported:
        out += "(unsupported ";
        quote(out, s.name);
        out += ')';
        return;
    }
    out += "(?)";
  }

 private:
  void open(const std::string &head) { out += '(' + head; }
  void child(const Expr *e) {
    out += ' ';
    expr(e);
  }
  void node(const std::string &head, std::initializer_list<const Expr *> children) {
    open(head);
    for (const Expr *c : children) child(c);
    out += ')';
  }
  void list(const std::string &head, const Expr &e) {
    open(head);
    for (const auto &item : e.list) child(item.get());
    out += ')';
  }
  void body(const char *head, const Body &b) {
    out += std::string(" (") + head;
    for (const auto &s : b) {
      out += ' ';
      stmt(*s);
    }
    out += ')';
  }
  void bodies(const Stmt &s) {
    body("body", s.body);
    if (!s.orelse.empty()) body("else", s.orelse);
    out += ')';
  }
  void decorators(const Stmt &s) {
    if (s.decorators.empty()) return;
    out += " (decorators";
    for (const auto &d : s.decorators) child(d.get());
    out += ')';
  }
  void names(const Stmt &s) {
    for (const auto &n : s.names) {
      if (n.asname.empty())
        out += ' ' + n.name;
      else
        out += " (as " + n.name + ' ' + n.asname + ')';
    }
  }
  void param(const Param &p) {
    std::string name = p.name;
    switch (p.kind) {
      case Param::Kind::Normal:
        break;
      case Param::Kind::VarArgs:
        name = "*" + name;
        break;
      case Param::Kind::KwOnly:
        name = "kw:" + name;
        break;
      case Param::Kind::VarKw:
        name = "**" + name;
        break;
    }
    if (!p.annotation && !p.defaultValue) {
      out += ' ' + name;
      return;
    }
    out += " (" + name;
    if (p.annotation) {
      out += " :";
      child(p.annotation.get());
    }
    if (p.defaultValue) {
      out += " =";
      child(p.defaultValue.get());
    }
    out += ')';
  }
};

}  // namespace

std::string dump(const Expr &e) {
  Dumper d;
  d.expr(&e);
  return d.out;
}

std::string dump(const Stmt &s) {
  Dumper d;
  d.stmt(s);
  return d.out;
}

std::string dump(const Module &m) {
  Dumper d;
  for (const auto &s : m.body) {
    if (!d.out.empty()) d.out += '\n';
    d.stmt(*s);
  }
  return d.out;
}

}  // namespace tessera::ast
