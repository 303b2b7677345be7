// inline: replaces every `call {callee = "f"}` by a copy of @f's body.
//
// Requires: every callee exists in the module, its parameters match the
// call's operands, and its body ends in one top-level `return` whose operands
// match the call's results (the front end lowers early returns to that).
// Guarantees: no `call` op is left; the copied ops keep their own source
// locations; functions that are no longer called are removed, except the
// first function of the module (the kernel). Recursion (direct or mutual)
// is reported with internalError, as the front end should have rejected it.
// Preserves: the kernel's parameters and their attributes, op order.
#include <unordered_map>
#include <unordered_set>

#include "passes/pass_utils.h"
#include "support/diagnostics.h"

namespace tessera {
namespace {

using namespace passes;

class Inliner {
 public:
  explicit Inliner(Module &m) : m_(m) {}

  void inlineInto(Function &fn) {
    if (done_.count(&fn)) return;
    if (!active_.insert(&fn).second)
      internalError("inline", "recursive call cycle through @" + fn.name, fn.loc);
    std::vector<Operation *> calls;
    fn.walk([&](Operation *op) {
      if (op->code == OpCode::Call) calls.push_back(op);
    });
    Graveyard gy;
    ValueMap vm;
    for (Operation *call : calls) {
      std::string name = call->strAttr("callee");
      Function *callee = m_.lookup(name);
      if (!callee) internalError("inline", "call to unknown function @" + name, call->loc);
      inlineInto(*callee);  // callees are call-free before they are copied
      inlineCall(call, *callee, vm);
      gy.bury(call);
    }
    vm.apply(fn);
    active_.erase(&fn);
    done_.insert(&fn);
  }

 private:
  void inlineCall(Operation *call, Function &callee, ValueMap &vm) {
    Block &body = callee.body;
    if (body.args.size() != call->operands.size())
      internalError("inline", "call to @" + callee.name + " has the wrong number of operands",
                    call->loc);
    Operation *ret = body.terminator();
    if (!ret || ret->code != OpCode::Return || ret->operands.size() != call->results.size())
      internalError("inline", "@" + callee.name + " does not end in a matching return", callee.loc);
    std::unordered_map<const Value *, Value *> mapping;
    for (size_t i = 0; i < body.args.size(); ++i)
      mapping[body.args[i].get()] = vm.lookup(call->operand(i));
    Builder b;
    b.setInsertionPointBefore(call);
    for (auto &op : body.ops) {
      if (op.get() == ret) break;
      cloneOp(*op, b, mapping);
    }
    for (size_t i = 0; i < call->results.size(); ++i) {
      Value *v = ret->operand(i);
      auto it = mapping.find(v);
      vm.map(call->result(i), it == mapping.end() ? v : it->second);
    }
  }

  Module &m_;
  std::unordered_set<Function *> active_, done_;
};

}  // namespace

void inlineCalls(Module &m) {
  if (m.functions.empty()) return;
  Inliner in(m);
  // Only what the kernel reaches matters; after this the kernel has no
  // calls, so no other function is still needed.
  in.inlineInto(*m.functions.front());
  m.functions.erase(m.functions.begin() + 1, m.functions.end());
}

}  // namespace tessera
