// Stateful random ops seeded by (seed, seed2), as TensorFlow declares them.
#include "runtime/ops/op_registry.h"

namespace graphrt {

namespace {

// The output shape is the value of input 0 when it is a constant.
Status RandomShape(InferenceContext* c) {
  const Tensor* t = c->input_tensor(0);
  if (t == nullptr) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    dims.push_back(t->dtype() == ::tensorflow::DT_INT32 ? t->data<int32_t>()[i]
                                                        : t->data<int64_t>()[i]);
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

void RegisterRandomOps(OpRegistry* r) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    r->Register(OpDefBuilder(op)
                    .Input("shape: T")
                    .Output("output: dtype")
                    .Attr("seed: int = 0")
                    .Attr("seed2: int = 0")
                    .Attr("dtype: {half, bfloat16, float, double}")
                    .Attr("T: {int32, int64}")
                    .SetIsStateful()
                    .SetShapeFn(RandomShape));
  }
  r->Register(OpDefBuilder("RandomUniformInt")
                  .Input("shape: T")
                  .Input("minval: Tout")
                  .Input("maxval: Tout")
                  .Output("output: Tout")
                  .Attr("seed: int = 0")
                  .Attr("seed2: int = 0")
                  .Attr("Tout: {int32, int64}")
                  .Attr("T: {int32, int64}")
                  .SetIsStateful()
                  .SetShapeFn(RandomShape));
}

}  // namespace graphrt
