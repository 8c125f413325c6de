// Session configuration: the fields of TensorFlow's ConfigProto that graphrt honours, as a plain
// struct, loadable from a serialized or text tensorflow.ConfigProto.
#ifndef GRAPHRT_CONFIG_H_
#define GRAPHRT_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>

#include <graphrt/export.h>
#include <graphrt/status.h>

#include "config.pb.h"

namespace graphrt {

struct GPUOptions {
  // Comma-separated visible GPU ids, in the order they become /device:GPU:0, 1, ...
  std::string visible_device_list;
  bool allow_growth = false;
  // 0: graphrt's default share of each GPU's memory.
  double per_process_gpu_memory_fraction = 0;
};

// The graph optimizer's passes (runtime/optimize/), read from
// ConfigProto.graph_options.rewrite_options with TensorFlow's field names: a Toggle of DEFAULT or
// ON leaves a pass on, OFF turns it off; disable_meta_optimizer turns every pass off. The
// environment variable GRAPHRT_OPTIMIZER=0 turns every pass off in every session (to run a test
// suite with the optimizer off).
// The reduced type Grappler's auto_mixed_precision pass moves CPU nodes to.
enum class ReducedPrecision {
  kNone,
  kFloat16,   // auto_mixed_precision_cpu
  kBfloat16,  // auto_mixed_precision_onednn_bfloat16 (or its old name, auto_mixed_precision_mkl)
};

struct GraphRewriteOptions {
  bool model_pruning = true;     // !disable_model_pruning: Identity, NoOp, StopGradient, Snapshot
  bool constant_folding = true;  // nodes of constants (and static shapes) become Const nodes
  bool remapping = true;         // Conv2D/MatMul + BiasAdd + activation -> _Fused* ops
  bool arithmetic_optimization = true;  // batch norm and constant Mul/Add folded into weights
  // Accepted for TensorFlow's sake: graphrt's kernels take either layout, there is nothing to do.
  bool layout_optimizer = true;
  // auto_mixed_precision on the CPU (off unless turned ON; bfloat16 wins when both are): the
  // ops on TensorFlow's lists for the mode run in the reduced type between Casts, where graphrt
  // has a CPU kernel for them in that type (runtime/optimize/mixed_precision.cc).
  ReducedPrecision cpu_mixed_precision = ReducedPrecision::kNone;
};

struct GRAPHRT_EXPORT SessionConfig {
  // "CPU" / "GPU" -> the most devices of that type to use. Absent: all there are (CPU: 1).
  std::map<std::string, int> device_count;
  bool allow_soft_placement = false;
  bool log_device_placement = false;
  // 0: one per core.
  int intra_op_parallelism_threads = 0;
  // 0: one per core; negative: every node runs on the caller's thread.
  int inter_op_parallelism_threads = 0;
  GPUOptions gpu_options;
  // Deadline of each Run; 0: none.
  int64_t operation_timeout_in_ms = 0;
  // graph_options.rewrite_options.auto_mixed_precision (or its _cpu / _onednn_bfloat16 / _mkl
  // variants) turned on. graphrt's GPU nodes still compute in float32, and the placement report
  // says that it was asked for; on the CPU, rewrite_options.cpu_mixed_precision says what runs.
  bool reduced_precision_requested = false;
  GraphRewriteOptions rewrite_options;

  // graphrt extensions (no ConfigProto field; FromProto leaves them at their defaults).
  // Which OpenCL devices become /device:GPU:N: "" (those of type GPU or ACCELERATOR), "all"
  // (CPU-type devices such as PoCL's, too) or "none" (no OpenCL, not even discovery). When
  // empty, the environment variable GRAPHRT_OPENCL_DEVICES gives the value.
  std::string opencl_devices;

  // Reads the fields above from a ConfigProto; other fields are ignored.
  static SessionConfig FromProto(const ::tensorflow::ConfigProto& proto);
  // From a text-format ConfigProto (as in a --config FILE.pbtxt).
  static StatusOr<SessionConfig> FromText(const std::string& text);
  // From a binary ConfigProto (as TF_SetConfig takes it).
  static StatusOr<SessionConfig> FromBinary(const std::string& bytes);
  ::tensorflow::ConfigProto ToProto() const;
};

struct SessionOptions {
  SessionConfig config;
  std::string target;  // must be empty: graphrt runs in process
};

}  // namespace graphrt

#endif  // GRAPHRT_CONFIG_H_
