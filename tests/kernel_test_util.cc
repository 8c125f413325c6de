#include "tests/kernel_test_util.h"

#include "runtime/devices/device.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/ops/op_registry.h"

namespace graphrt {
namespace testing {

::tensorflow::NodeDef MakeNode(
    const std::string& op,
    const std::vector<std::pair<std::string, ::tensorflow::AttrValue>>& attrs) {
  ::tensorflow::NodeDef node;
  node.set_name("n");
  node.set_op(op);
  for (const auto& [name, value] : attrs) (*node.mutable_attr())[name] = value;
  if (const OpRegistration* reg = OpRegistry::Global()->Find(op)) {
    AddDefaultAttrs(reg->op_def, &node);
  }
  return node;
}

::tensorflow::AttrValue AttrType(DataType t) {
  ::tensorflow::AttrValue v;
  v.set_type(t);
  return v;
}
::tensorflow::AttrValue AttrInt(int64_t i) {
  ::tensorflow::AttrValue v;
  v.set_i(i);
  return v;
}
::tensorflow::AttrValue AttrFloat(float f) {
  ::tensorflow::AttrValue v;
  v.set_f(f);
  return v;
}
::tensorflow::AttrValue AttrBool(bool b) {
  ::tensorflow::AttrValue v;
  v.set_b(b);
  return v;
}
::tensorflow::AttrValue AttrString(const std::string& s) {
  ::tensorflow::AttrValue v;
  v.set_s(s);
  return v;
}
::tensorflow::AttrValue AttrInts(const std::vector<int64_t>& values) {
  ::tensorflow::AttrValue v;
  for (int64_t i : values) v.mutable_list()->add_i(i);
  return v;
}
::tensorflow::AttrValue AttrTypes(const std::vector<DataType>& types) {
  ::tensorflow::AttrValue v;
  for (DataType t : types) v.mutable_list()->add_type(t);
  return v;
}

StatusOr<std::vector<Tensor>> RunKernel(const ::tensorflow::NodeDef& node,
                                        const std::vector<Tensor>& inputs, int threads) {
  std::unique_ptr<Device> device = NewCpuDevice(0, threads);
  GRT_ASSIGN_OR_RETURN(
      std::unique_ptr<OpKernel> kernel,
      KernelRegistry::Global()->CreateKernel(kDeviceCpu, node, device.get(), nullptr));
  if (static_cast<int>(inputs.size()) != kernel->num_inputs()) {
    return InvalidArgument("kernel ", node.op(), " takes ", kernel->num_inputs(), " inputs, got ",
                           inputs.size());
  }
  std::vector<Entry> entries(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries[i].tensor = inputs[i];
    entries[i].has_value = true;
  }
  StepState step;
  OpKernelContext::Params params;
  params.kernel = kernel.get();
  params.device = device.get();
  params.inputs = &entries;
  params.step = &step;
  OpKernelContext ctx(params);
  GRT_RETURN_IF_ERROR(kernel->Compute(&ctx));
  std::vector<Tensor> outputs;
  for (Entry& entry : ctx.outputs()) outputs.push_back(entry.Value());
  return outputs;
}

}  // namespace testing
}  // namespace graphrt
