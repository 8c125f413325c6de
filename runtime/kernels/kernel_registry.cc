#include "runtime/kernels/kernel_registry.h"

#include <algorithm>

#include "runtime/ops/op_registry.h"

namespace graphrt {

namespace {

// Backends that registered before the registry was first used.
std::vector<KernelBackendRegistrations>& PendingBackends() {
  static auto* pending = new std::vector<KernelBackendRegistrations>();
  return *pending;
}

bool& RegistryBuilt() {
  static bool built = false;
  return built;
}

}  // namespace

void RegisterKernelBackend(KernelBackendRegistrations registrations) {
  // Backends register while libraries load, before any thread runs a graph; the registry is
  // built on first use, after that.
  if (RegistryBuilt()) {
    registrations(KernelRegistry::Global());
  } else {
    PendingBackends().push_back(std::move(registrations));
  }
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterConstPlumbingKernels(r);
    RegisterControlFlowKernels(r);
    RegisterMatMulKernels(r);
    RegisterBinaryKernels(r);
    RegisterUnaryKernels(r);
    RegisterActivationKernels(r);
    RegisterSoftmaxKernels(r);
    RegisterConvKernels(r);
    RegisterInt8Kernels(r);
    RegisterPoolKernels(r);
    RegisterConvBackpropKernels(r);
    RegisterNnExtKernels(r);
    RegisterBatchNormKernels(r);
    RegisterReductionKernels(r);
    RegisterShapeKernels(r);
    RegisterArrayKernels(r);
    RegisterCastKernels(r);
    RegisterSelectCompareKernels(r);
    RegisterResizeKernels(r);
    RegisterRandomKernels(r);
    RegisterMultinomialKernels(r);
    RegisterRandomShuffleKernels(r);
    RegisterSampleDistortedBoundingBoxKernels(r);
    RegisterFunctionalKernels(r);
    RegisterTensorArrayKernels(r);
    RegisterTensorListKernels(r);
    RegisterAssertAndSequenceKernels(r);
    RegisterVariableKernels(r);
    RegisterSaveRestoreKernels(r);
    RegisterLookupTableKernels(r);
    RegisterExampleParsingKernels(r);
    RegisterStringKernels(r);
    RegisterTextKernels(r);
    RegisterUnicodeKernels(r);
    RegisterSparseKernels(r);
    RegisterAudioKernels(r);
    RegisterFakeQuantKernels(r);
    RegisterSearchSortedKernels(r);
    RegisterQuantizedConvertKernels(r);
    RegisterQuantizedNnKernels(r);
    RegisterQuantizedMathKernels(r);
    RegisterImageCodecKernels(r);
    RegisterImageKernels(r);
    RegisterNmsKernels(r);
    RegisterSegmentKernels(r);
    RegisterScanKernels(r);
    RegisterBincountKernels(r);
    RegisterMathMiscKernels(r);
    RegisterEinsumKernels(r);
    RegisterMiscExtKernels(r);
    RegisterCudnnRnnKernels(r);
    RegisterLstmBlockKernels(r);
    RegisterComplexKernels(r);
    RegisterFftKernels(r);
    RegisterRaggedKernels(r);
    RegisterLinalgKernels(r);
    for (const KernelBackendRegistrations& backend : PendingBackends()) backend(r);
    RegistryBuilt() = true;
    return r;
  }();
  return registry;
}

const std::vector<DataType>& AllTypes() {
  static const std::vector<DataType> types = {
      ::tensorflow::DT_FLOAT,    ::tensorflow::DT_DOUBLE,    ::tensorflow::DT_HALF,
      ::tensorflow::DT_BFLOAT16, ::tensorflow::DT_INT8,      ::tensorflow::DT_INT16,
      ::tensorflow::DT_INT32,    ::tensorflow::DT_INT64,     ::tensorflow::DT_UINT8,
      ::tensorflow::DT_UINT16,   ::tensorflow::DT_UINT32,    ::tensorflow::DT_UINT64,
      ::tensorflow::DT_BOOL,     ::tensorflow::DT_STRING,    ::tensorflow::DT_RESOURCE,
      ::tensorflow::DT_VARIANT,  ::tensorflow::DT_COMPLEX64, ::tensorflow::DT_COMPLEX128,
      ::tensorflow::DT_QINT8,    ::tensorflow::DT_QUINT8,    ::tensorflow::DT_QINT32,
      ::tensorflow::DT_QINT16,   ::tensorflow::DT_QUINT16};
  return types;
}

const std::vector<DataType>& RealNumberTypes() {
  static const std::vector<DataType> types = {
      ::tensorflow::DT_FLOAT,    ::tensorflow::DT_DOUBLE, ::tensorflow::DT_HALF,
      ::tensorflow::DT_BFLOAT16, ::tensorflow::DT_INT8,   ::tensorflow::DT_INT16,
      ::tensorflow::DT_INT32,    ::tensorflow::DT_INT64,  ::tensorflow::DT_UINT8,
      ::tensorflow::DT_UINT16,   ::tensorflow::DT_UINT32, ::tensorflow::DT_UINT64};
  return types;
}

void KernelRegistry::Register(const KernelDefBuilder& builder, KernelFactory factory) {
  KernelRegistration reg{builder.Build(), std::move(factory)};
  kernels_[reg.def.op].push_back(std::move(reg));
}

KernelFactory KernelRegistry::FactoryOf(const std::string& op,
                                        const std::string& device_type) const {
  auto it = kernels_.find(op);
  if (it != kernels_.end()) {
    for (const KernelRegistration& reg : it->second) {
      if (reg.def.device_type == device_type) return reg.factory;
    }
  }
  return nullptr;
}

namespace {

bool MatchesTypes(const KernelDef& def, const ::tensorflow::NodeDef& node) {
  for (const auto& [attr_name, types] : def.type_constraints) {
    const ::tensorflow::AttrValue* attr = FindAttr(node, attr_name);
    if (attr == nullptr) return false;
    if (attr->value_case() == ::tensorflow::AttrValue::kType) {
      if (std::find(types.begin(), types.end(), attr->type()) == types.end()) return false;
    } else if (attr->value_case() == ::tensorflow::AttrValue::kList) {
      for (int t : attr->list().type()) {
        if (std::find(types.begin(), types.end(), static_cast<DataType>(t)) == types.end()) {
          return false;
        }
      }
    } else {
      return false;
    }
  }
  const ::tensorflow::AttrValue* label = FindAttr(node, "_kernel");
  std::string node_label = label != nullptr ? label->s() : "";
  return node_label == def.label;
}

bool Matches(const KernelDef& def, const ::tensorflow::NodeDef& node) {
  return MatchesTypes(def, node) && (!def.attr_check || def.attr_check(node).empty());
}

std::string DescribeKernel(const KernelDef& def) {
  std::string out = StrCat("device='", def.device_type, "'");
  for (const auto& [attr, types] : def.type_constraints) {
    std::vector<std::string> names;
    for (DataType t : types) names.push_back(DataTypeString(t));
    out += StrCat("; ", attr, " in [", StrJoin(names, ", "), "]");
  }
  return out;
}

}  // namespace

StatusOr<const KernelRegistration*> KernelRegistry::Find(const std::string& device_type,
                                                         const ::tensorflow::NodeDef& node) const {
  auto it = kernels_.find(node.op());
  if (it == kernels_.end()) {
    if (OpRegistry::Global()->Find(node.op()) == nullptr) {
      return NotFound("Op type not registered '", node.op(), "' in binary (graphrt), used by node ",
                      node.name());
    }
    return NotFound("No OpKernel was registered to support Op '", node.op(), "' used by node ",
                    node.name(), ": graphrt has no kernel for it on any device");
  }
  for (const KernelRegistration& reg : it->second) {
    if (reg.def.device_type == device_type && Matches(reg.def, node)) return &reg;
  }
  std::vector<std::string> attrs;
  for (const auto& [name, value] : node.attr()) {
    if (value.value_case() == ::tensorflow::AttrValue::kType) {
      attrs.push_back(StrCat(name, "=", DataTypeString(value.type())));
    }
  }
  std::sort(attrs.begin(), attrs.end());
  std::vector<std::string> registered;
  for (const KernelRegistration& reg : it->second) registered.push_back(DescribeKernel(reg.def));
  std::string limitation = AttrLimitation(device_type, node);
  if (!limitation.empty()) limitation = StrCat(" (its ", device_type, " kernel: ", limitation, ")");
  return NotFound("No OpKernel was registered to support Op '", node.op(), "' used by node ",
                  node.name(), " with these attrs: [", StrJoin(attrs, ", "), "] on device type ",
                  device_type, limitation, ". Registered kernels: ", StrJoin(registered, " | "));
}

std::string KernelRegistry::AttrLimitation(const std::string& device_type,
                                           const ::tensorflow::NodeDef& node) const {
  auto it = kernels_.find(node.op());
  if (it == kernels_.end()) return "";
  std::string reason;
  for (const KernelRegistration& reg : it->second) {
    if (reg.def.device_type != device_type || !MatchesTypes(reg.def, node)) continue;
    if (!reg.def.attr_check) return "";
    std::string why = reg.def.attr_check(node);
    if (why.empty()) return "";
    if (reason.empty()) reason = std::move(why);
  }
  return reason;
}

std::vector<std::string> KernelRegistry::DeviceTypesFor(const std::string& op) const {
  std::vector<std::string> types;
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return types;
  for (const KernelRegistration& reg : it->second) {
    if (std::find(types.begin(), types.end(), reg.def.device_type) == types.end()) {
      types.push_back(reg.def.device_type);
    }
  }
  return types;
}

std::map<std::string, std::map<std::string, std::set<DataType>>> KernelRegistry::Coverage() const {
  std::map<std::string, std::map<std::string, std::set<DataType>>> coverage;
  for (const auto& [op, registrations] : kernels_) {
    const OpRegistration* op_reg = OpRegistry::Global()->Find(op);
    for (const KernelRegistration& reg : registrations) {
      std::set<DataType>& types = coverage[op][reg.def.device_type];
      for (const auto& [attr, allowed] : reg.def.type_constraints) {
        types.insert(allowed.begin(), allowed.end());
      }
      if (!reg.def.type_constraints.empty() || op_reg == nullptr) continue;
      for (const auto* args : {&op_reg->op_def.input_arg(), &op_reg->op_def.output_arg()}) {
        for (const ::tensorflow::OpDef::ArgDef& arg : *args) {
          if (arg.type() != ::tensorflow::DT_INVALID) types.insert(arg.type());
        }
      }
    }
  }
  return coverage;
}

StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(const std::string& device_type,
                                                                 const ::tensorflow::NodeDef& node,
                                                                 Device* device,
                                                                 FunctionRuntime* functions,
                                                                 std::vector<bool> constant_inputs,
                                                                 const Tensor* const_value) const {
  GRT_ASSIGN_OR_RETURN(const KernelRegistration* reg, Find(device_type, node));
  const OpRegistration* op = OpRegistry::Global()->Find(node.op());
  if (op == nullptr) return NotFound("Op type not registered '", node.op(), "'");
  std::vector<DataType> inputs, outputs;
  GRT_RETURN_IF_ERROR(InOutTypesForNode(node, op->op_def, &inputs, &outputs));
  OpKernelConstruction construction(node, device, std::move(inputs), std::move(outputs), functions,
                                    std::move(constant_inputs), const_value);
  std::unique_ptr<OpKernel> kernel = reg->factory(&construction);
  if (!construction.status().ok()) {
    Status s = construction.status();
    return s.Prepend(StrCat("node ", node.name(), " (", node.op(), ")"));
  }
  return kernel;
}

}  // namespace graphrt
