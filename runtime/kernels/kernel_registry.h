// The kernel registry, keyed by (op, device type, dtype). It answers the placer's one question,
// "can a device of type D run node N?", and builds kernels for the executor.
//
// Kernel files register through functions listed in kernel_registry.cc, the one table that
// shows every kernel graphrt has:
//
//   r->Register(KernelDefBuilder("Relu").Device(kDeviceCpu).TypeConstraint<float>("T"),
//               MakeFactory<ReluOp<float>>());
#ifndef GRAPHRT_RUNTIME_KERNELS_KERNEL_REGISTRY_H_
#define GRAPHRT_RUNTIME_KERNELS_KERNEL_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernels/op_kernel.h"

namespace graphrt {

using KernelFactory = std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

template <typename K>
KernelFactory MakeFactory() {
  return [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<K>(ctx);
  };
}

// A factory for kernel Op constructed as Op(ctx, args...): one class serving several ops.
template <typename Op, typename... Args>
KernelFactory FactoryWith(Args... args) {
  return [=](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<Op>(ctx, args...);
  };
}

struct KernelDef {
  std::string op;
  std::string device_type;
  // attr name -> the dtypes this kernel accepts for it.
  std::vector<std::pair<std::string, std::vector<DataType>>> type_constraints;
  // Inputs and outputs (by arg name) that stay in host memory on a non-CPU device.
  std::vector<std::string> host_memory_args;
  std::string label;  // matched against the node's "_kernel" attr, as TensorFlow does
  // Attrs the kernel cannot handle, found before any kernel is built: given a node that passes
  // the type constraints, "" if the kernel runs it, else why not ("is_training=true"). The
  // placer then treats the device as having no kernel for the node and reports the reason.
  std::function<std::string(const ::tensorflow::NodeDef&)> attr_check;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op) { def_.op = std::move(op); }
  KernelDefBuilder& Device(std::string device_type) {
    def_.device_type = std::move(device_type);
    return *this;
  }
  template <typename... Ts>
  KernelDefBuilder& TypeConstraint(std::string attr) {
    def_.type_constraints.push_back({std::move(attr), {DataTypeToEnum<Ts>::value...}});
    return *this;
  }
  KernelDefBuilder& TypeConstraint(std::string attr, std::vector<DataType> types) {
    def_.type_constraints.push_back({std::move(attr), std::move(types)});
    return *this;
  }
  KernelDefBuilder& HostMemory(std::string arg) {
    def_.host_memory_args.push_back(std::move(arg));
    return *this;
  }
  KernelDefBuilder& AttrCheck(std::function<std::string(const ::tensorflow::NodeDef&)> check) {
    def_.attr_check = std::move(check);
    return *this;
  }
  KernelDefBuilder& Label(std::string label) {
    def_.label = std::move(label);
    return *this;
  }
  const KernelDef& Build() const { return def_; }

 private:
  KernelDef def_;
};

// Every dtype a tensor can hold, for kernels that only move values (Identity, Switch, ...).
const std::vector<DataType>& AllTypes();
// float, double, half, bfloat16, and the signed and unsigned integers.
const std::vector<DataType>& RealNumberTypes();

struct KernelRegistration {
  KernelDef def;
  KernelFactory factory;
};

class KernelRegistry {
 public:
  // The process-wide registry, filled on first use from the table in kernel_registry.cc.
  static KernelRegistry* Global();

  void Register(const KernelDefBuilder& builder, KernelFactory factory);
  // The factory of the first kernel registered for (`op`, `device_type`); null if none. For
  // another backend to reuse a kernel that never reads tensor data (it moves tensors or reads
  // their shapes), so that it serves whatever memory holds the data.
  KernelFactory FactoryOf(const std::string& op, const std::string& device_type) const;

  // The kernel for `node` (attrs already defaulted) on `device_type`. NOT_FOUND names the op,
  // the node, its attrs and the kernels that do exist.
  StatusOr<const KernelRegistration*> Find(const std::string& device_type,
                                           const ::tensorflow::NodeDef& node) const;
  bool Supports(const std::string& device_type, const ::tensorflow::NodeDef& node) const {
    return Find(device_type, node).ok();
  }
  // Why the kernels of `device_type` whose type constraints fit `node` refuse its attrs (their
  // attr_check); "" when none refuses it, or none fits its types.
  std::string AttrLimitation(const std::string& device_type,
                             const ::tensorflow::NodeDef& node) const;
  // Device types with at least one kernel for `op`.
  std::vector<std::string> DeviceTypesFor(const std::string& op) const;
  bool HasOp(const std::string& op) const { return kernels_.count(op) > 0; }
  // Every op with a kernel: op -> device type -> the dtypes its kernels take (the union of their
  // type constraints; for a kernel without any, the fixed dtypes of its op's arguments).
  std::map<std::string, std::map<std::string, std::set<DataType>>> Coverage() const;

  // Builds the kernel; errors from its constructor name the node. `constant_inputs` says which
  // inputs are constant (OpKernelConstruction::input_is_constant); empty: none.
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const std::string& device_type,
                                                   const ::tensorflow::NodeDef& node,
                                                   Device* device, FunctionRuntime* functions,
                                                   std::vector<bool> constant_inputs = {},
                                                   const Tensor* const_value = nullptr) const;

 private:
  std::map<std::string, std::vector<KernelRegistration>> kernels_;
};

// An optional backend's kernels (the OpenCL GPU kernels): registered into the global registry
// by the backend itself when it is loaded (runtime/kernels/opencl/opencl_backend.cc), so that the
// runtime never calls into an optional component.
using KernelBackendRegistrations = std::function<void(KernelRegistry*)>;
void RegisterKernelBackend(KernelBackendRegistrations registrations);

// The registration table (kernel_registry.cc calls each of these once).
void RegisterConstPlumbingKernels(KernelRegistry* r);
void RegisterControlFlowKernels(KernelRegistry* r);
void RegisterMatMulKernels(KernelRegistry* r);
void RegisterBinaryKernels(KernelRegistry* r);
void RegisterUnaryKernels(KernelRegistry* r);
void RegisterActivationKernels(KernelRegistry* r);
void RegisterSoftmaxKernels(KernelRegistry* r);
void RegisterConvKernels(KernelRegistry* r);
// int8_ops.cc: _GraphrtQuantizedMatMul, _GraphrtQuantizedConv2D (runtime/optimize/int8_weights.cc).
void RegisterInt8Kernels(KernelRegistry* r);
void RegisterPoolKernels(KernelRegistry* r);
void RegisterConvBackpropKernels(KernelRegistry* r);  // Conv3D, Conv*BackpropInput
void RegisterNnExtKernels(KernelRegistry* r);         // 3-D pools, LRN, xent losses, CTC
void RegisterBatchNormKernels(KernelRegistry* r);
void RegisterReductionKernels(KernelRegistry* r);
void RegisterShapeKernels(KernelRegistry* r);
void RegisterArrayKernels(KernelRegistry* r);
void RegisterCastKernels(KernelRegistry* r);
void RegisterSelectCompareKernels(KernelRegistry* r);
void RegisterResizeKernels(KernelRegistry* r);
void RegisterRandomKernels(KernelRegistry* r);
void RegisterMultinomialKernels(KernelRegistry* r);
void RegisterRandomShuffleKernels(KernelRegistry* r);
void RegisterSampleDistortedBoundingBoxKernels(KernelRegistry* r);
void RegisterFunctionalKernels(KernelRegistry* r);
void RegisterTensorArrayKernels(KernelRegistry* r);
void RegisterTensorListKernels(KernelRegistry* r);
void RegisterEinsumKernels(KernelRegistry* r);  // einsum_op.cc
// misc_ext_ops.cc: ExtractImagePatches, DenseToDenseSetOperation, UniqueV2, Print, PrintV2
void RegisterMiscExtKernels(KernelRegistry* r);
void RegisterAssertAndSequenceKernels(KernelRegistry* r);
void RegisterVariableKernels(KernelRegistry* r);
void RegisterSaveRestoreKernels(KernelRegistry* r);
void RegisterLookupTableKernels(KernelRegistry* r);
void RegisterExampleParsingKernels(KernelRegistry* r);
void RegisterStringKernels(KernelRegistry* r);
void RegisterTextKernels(KernelRegistry* r);     // cpu/text_ops.cc
void RegisterUnicodeKernels(KernelRegistry* r);  // cpu/unicode_ops.cc
void RegisterSparseKernels(KernelRegistry* r);
void RegisterAudioKernels(KernelRegistry* r);
void RegisterFakeQuantKernels(KernelRegistry* r);
void RegisterSearchSortedKernels(KernelRegistry* r);
// quantized_convert_ops.cc, quantized_nn_ops.cc, quantized_math_ops.cc: TensorFlow 1's eight-bit
// graphs (QuantizedReshape is in shape_ops.cc).
void RegisterQuantizedConvertKernels(KernelRegistry* r);
void RegisterQuantizedNnKernels(KernelRegistry* r);
void RegisterQuantizedMathKernels(KernelRegistry* r);
// image_codec_ops.cc: JPEG, PNG, BMP and GIF decoders and encoders.
void RegisterImageCodecKernels(KernelRegistry* r);
// image_ops.cc: bicubic/area resize, crop-and-resize, colour adjustments.
void RegisterImageKernels(KernelRegistry* r);
// nms_ops.cc: NonMaxSuppressionV2-V5, CombinedNonMaxSuppression.
void RegisterNmsKernels(KernelRegistry* r);
void RegisterSegmentKernels(KernelRegistry* r);
void RegisterScanKernels(KernelRegistry* r);
void RegisterBincountKernels(KernelRegistry* r);
void RegisterMathMiscKernels(KernelRegistry* r);
void RegisterCudnnRnnKernels(KernelRegistry* r);   // cudnn_rnn_ops.cc: CudnnRNN*, params layout
void RegisterLstmBlockKernels(KernelRegistry* r);  // lstm_block_ops.cc: LSTMBlockCell, BlockLSTM
// complex_ops.cc: Complex, Real, Imag, Conj, Angle, ComplexAbs; fft_ops.cc: (I)FFT, (I)RFFT.
void RegisterComplexKernels(KernelRegistry* r);
void RegisterFftKernels(KernelRegistry* r);
// linalg_ops.cc: inverse, determinants, solves, Cholesky, Qr, Svd, SelfAdjointEigV2.
void RegisterLinalgKernels(KernelRegistry* r);
void RegisterRaggedKernels(KernelRegistry* r);  // cpu/ragged_ops.cc, cpu/ragged_variant_ops.cc

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_KERNEL_REGISTRY_H_
