#include "ir/ir.h"

#include <algorithm>
#include <unordered_map>

#include "support/diagnostics.h"
#include "support/node_pool.h"

namespace tessera {

// Never destroyed, so that IR freed during static destruction still finds
// its pool.
static NodePool &operationPool() {
  static NodePool &pool = *new NodePool(sizeof(Operation));
  return pool;
}
static NodePool &valuePool() {
  static NodePool &pool = *new NodePool(sizeof(Value));
  return pool;
}

// Both classes are final, so `size` is always theirs.
void *Operation::operator new(size_t) {
  return operationPool().allocate();
}
void Operation::operator delete(void *p) {
  operationPool().deallocate(p);
}
void *Value::operator new(size_t) {
  return valuePool().allocate();
}
void Value::operator delete(void *p) {
  valuePool().deallocate(p);
}

namespace {
using namespace opflags;
constexpr OpInfo kOps[] = {
#define OP(E, mn, nops, nres, nreg, flags) {mn, nops, nres, nreg, static_cast<unsigned>(flags)},
#include "ir/ops.def"
};
}  // namespace

const OpInfo &opInfo(OpCode c) {
  return kOps[static_cast<int>(c)];
}

bool isPureOp(const Operation &op) {
  if (op.code == OpCode::InlineAsm) return op.intAttr("pure") != 0;
  return hasFlag(op.code, opflags::Pure);
}

bool writesMemOp(const Operation &op) {
  if (op.code == OpCode::InlineAsm) return op.intAttr("pure") == 0;
  return hasFlag(op.code, opflags::WritesMem);
}

std::optional<OpCode> opCodeFromMnemonic(std::string_view s) {
  // A hash map: the IR parser looks up every op, and deserialising a cached
  // kernel is parsing, on the path of every cache hit.
  static const std::unordered_map<std::string_view, OpCode> byMnemonic = [] {
    std::unordered_map<std::string_view, OpCode> m;
    for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); ++i)
      m.emplace(kOps[i].mnemonic, static_cast<OpCode>(i));
    return m;
  }();
  auto it = byMnemonic.find(s);
  if (it == byMnemonic.end()) return std::nullopt;
  return it->second;
}

Value *Block::addArg(Type t, std::string nameHint) {
  auto v = std::make_unique<Value>();
  v->type = std::move(t);
  v->owner = this;
  v->index = static_cast<unsigned>(args.size());
  v->nameHint = std::move(nameHint);
  args.push_back(std::move(v));
  return args.back().get();
}

Operation *Block::terminator() const {
  if (ops.empty()) return nullptr;
  Operation *last = ops.back().get();
  return hasFlag(last->code, opflags::Terminator) ? last : nullptr;
}

const Attr *Operation::attr(std::string_view name) const {
  for (const auto &a : attrs)
    if (a.name == name) return &a.value;
  return nullptr;
}

void Operation::setAttr(std::string name, Attr value) {
  for (auto &a : attrs)
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  auto it = std::lower_bound(attrs.begin(), attrs.end(), name,
                             [](const NamedAttr &a, const std::string &n) { return a.name < n; });
  attrs.insert(it, NamedAttr{std::move(name), std::move(value)});
}

void Operation::removeAttr(std::string_view name) {
  std::erase_if(attrs, [&](const NamedAttr &a) { return a.name == name; });
}

int64_t Operation::intAttr(std::string_view name, int64_t dflt) const {
  const Attr *a = attr(name);
  if (!a) return dflt;
  if (auto *i = std::get_if<int64_t>(a)) return *i;
  if (auto *d = std::get_if<double>(a)) return static_cast<int64_t>(*d);
  return dflt;
}

double Operation::floatAttr(std::string_view name, double dflt) const {
  const Attr *a = attr(name);
  if (!a) return dflt;
  if (auto *d = std::get_if<double>(a)) return *d;
  if (auto *i = std::get_if<int64_t>(a)) return static_cast<double>(*i);
  return dflt;
}

std::string Operation::strAttr(std::string_view name, std::string dflt) const {
  const Attr *a = attr(name);
  if (a)
    if (auto *s = std::get_if<std::string>(a)) return *s;
  return dflt;
}

std::vector<int64_t> Operation::intsAttr(std::string_view name) const {
  const Attr *a = attr(name);
  if (a)
    if (auto *v = std::get_if<std::vector<int64_t>>(a)) return *v;
  return {};
}

void Operation::walk(const std::function<void(Operation *)> &fn) {
  fn(this);
  for (auto &r : regions)
    for (auto &op : r->ops) op->walk(fn);
}

void Function::walk(const std::function<void(Operation *)> &fn) {
  for (auto &op : body.ops) op->walk(fn);
}

Function *Module::lookup(std::string_view name) const {
  for (const auto &f : functions)
    if (f->name == name) return f.get();
  return nullptr;
}

void Builder::setInsertionPointBefore(Operation *op) {
  if (!op->linked) internalError("builder", "an insertion point before an op in no block");
  block_ = op->parent;
  point_ = op->self;
}

Operation *Builder::create(OpCode code, std::vector<Value *> operands,
                           std::vector<Type> resultTypes, std::vector<NamedAttr> attrs,
                           int numRegions) {
  if (!block_) internalError("builder", "no insertion point");
  auto op = std::make_unique<Operation>();
  op->code = code;
  op->operands = std::move(operands);
  op->loc = loc_;
  op->parent = block_;
  for (auto &a : attrs) op->setAttr(std::move(a.name), std::move(a.value));
  for (unsigned i = 0; i < resultTypes.size(); ++i) {
    auto v = std::make_unique<Value>();
    v->type = std::move(resultTypes[i]);
    v->def = op.get();
    v->index = i;
    op->results.push_back(std::move(v));
  }
  int nreg = numRegions ? numRegions : opInfo(code).numRegions;
  for (int i = 0; i < nreg; ++i) {
    op->regions.push_back(std::make_unique<Block>());
    op->regions.back()->parentOp = op.get();
  }
  Operation *raw = op.get();
  raw->self = block_->ops.insert(point_, std::move(op));
  raw->linked = true;
  return raw;
}

void replaceAllUsesWith(Block &scope, Value *from, Value *to) {
  for (auto &op : scope.ops)
    op->walk([&](Operation *o) {
      for (auto &v : o->operands)
        if (v == from) v = to;
    });
}

PtrMap<const Value *, int> countUses(Function &fn) {
  PtrMap<const Value *, int> uses;
  uses.reserve(fn.body.ops.size());  // about one used value per op: no rehashing as it fills
  fn.walk([&](Operation *o) {
    for (Value *v : o->operands) ++uses[v];
  });
  return uses;
}

void eraseOp(Operation *op) {
  // Through the op's own iterator: searching the block made erasing n ops
  // quadratic.
  if (!op->linked) internalError("erase", "erasing an op that is in no block");
  op->linked = false;
  op->parent->ops.erase(op->self);
}

Value *mapped(const std::unordered_map<const Value *, Value *> &mapping, Value *v) {
  auto it = mapping.find(v);
  return it == mapping.end() ? v : it->second;
}

Operation *cloneOp(const Operation &op, Builder &b,
                   std::unordered_map<const Value *, Value *> &mapping) {
  std::vector<Value *> operands;
  for (Value *v : op.operands) operands.push_back(mapped(mapping, v));
  std::vector<Type> types;
  for (auto &r : op.results) types.push_back(r->type);
  SourceLoc saved = b.loc();
  b.setLoc(op.loc);
  Operation *copy = b.create(op.code, std::move(operands), std::move(types), op.attrs,
                             static_cast<int>(op.regions.size()));
  b.setLoc(saved);
  for (size_t i = 0; i < op.results.size(); ++i) {
    mapping[op.results[i].get()] = copy->results[i].get();
    copy->results[i]->nameHint = op.results[i]->nameHint;
  }
  for (size_t r = 0; r < op.regions.size(); ++r) {
    Block &dst = *copy->regions[r];
    for (auto &a : op.regions[r]->args) mapping[a.get()] = dst.addArg(a->type, a->nameHint);
    cloneOpsInto(*op.regions[r], dst, mapping);
  }
  return copy;
}

std::unique_ptr<Module> cloneModule(const Module &m) {
  auto out = std::make_unique<Module>();
  out->numWarps = m.numWarps;
  out->numStages = m.numStages;
  out->targetSm = m.targetSm;
  out->archSpecific = m.archSpecific;
  out->globalScratch = m.globalScratch;
  for (const auto &f : m.functions) out->functions.push_back(cloneFunction(*f));
  return out;
}

std::unique_ptr<Function> cloneFunction(const Function &f) {
  auto g = std::make_unique<Function>();
  g->name = f.name;
  g->paramAttrs = f.paramAttrs;
  g->resultTypes = f.resultTypes;
  g->loc = f.loc;
  std::unordered_map<const Value *, Value *> mapping;
  for (const auto &a : f.body.args) mapping[a.get()] = g->body.addArg(a->type, a->nameHint);
  cloneOpsInto(f.body, g->body, mapping);
  return g;
}

void cloneOpsInto(const Block &src, Block &dst,
                  std::unordered_map<const Value *, Value *> &mapping) {
  Builder b(&dst);
  for (auto &op : src.ops) cloneOp(*op, b, mapping);
}

}  // namespace tessera
