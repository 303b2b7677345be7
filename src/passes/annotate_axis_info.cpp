// annotate-axis-info: writes the axis-info analysis into the IR, for tests
// and for reading dumps.
//
// Requires: valid Tile IR.
// Guarantees: every op with one integer or pointer result carries the int
// lists `axis_contiguity`, `axis_divisibility` and `axis_constancy` (one
// entry per dim; scalars have one entry). An op with several results (for,
// if, while, split, ...) carries `axis_contiguity_<i>` etc. for each integer
// or pointer result i. Existing annotations are replaced.
// Preserves: everything else; the attributes do not change what ops do.
#include <string>

#include "passes/axis_info.h"

namespace tessera {

void annotateAxisInfo(Module &m) {
  for (auto &fn : m.functions) {
    AxisInfoMap info = analyzeAxisInfo(*fn);
    fn->walk([&](Operation *op) {
      for (size_t i = 0; i < op->results.size(); ++i) {
        const Value *v = op->result(i);
        if (!v->type.isIntLike() && !v->type.isPtrLike()) continue;
        AxisInfo a = info.get(v);
        std::string suffix = op->results.size() == 1 ? "" : "_" + std::to_string(i);
        op->setAttr("axis_contiguity" + suffix, a.contiguity);
        op->setAttr("axis_divisibility" + suffix, a.divisibility);
        op->setAttr("axis_constancy" + suffix, a.constancy);
      }
    });
  }
}

}  // namespace tessera
