#include "runtime/session/session_options.h"

#include <google/protobuf/text_format.h>

namespace graphrt {

SessionConfig SessionConfig::FromProto(const ::tensorflow::ConfigProto& proto) {
  SessionConfig c;
  for (const auto& [type, count] : proto.device_count()) c.device_count[type] = count;
  c.allow_soft_placement = proto.allow_soft_placement();
  c.log_device_placement = proto.log_device_placement();
  c.intra_op_parallelism_threads = proto.intra_op_parallelism_threads();
  c.inter_op_parallelism_threads = proto.inter_op_parallelism_threads();
  c.gpu_options.visible_device_list = proto.gpu_options().visible_device_list();
  c.gpu_options.allow_growth = proto.gpu_options().allow_growth();
  c.gpu_options.per_process_gpu_memory_fraction =
      proto.gpu_options().per_process_gpu_memory_fraction();
  c.operation_timeout_in_ms = proto.operation_timeout_in_ms();
  const ::tensorflow::RewriterConfig& rewrite = proto.graph_options().rewrite_options();
  for (auto toggle :
       {rewrite.auto_mixed_precision(), rewrite.auto_mixed_precision_cpu(),
        rewrite.auto_mixed_precision_onednn_bfloat16(), rewrite.auto_mixed_precision_mkl()}) {
    if (toggle == ::tensorflow::RewriterConfig::ON) c.reduced_precision_requested = true;
  }
  const bool all_off = rewrite.disable_meta_optimizer();
  // TensorFlow's meta optimizer runs the bfloat16 pass before the float16 one, which then finds
  // no float32 op left to move: bfloat16 wins. Plain auto_mixed_precision is for CUDA GPUs only.
  if (!all_off &&
      (rewrite.auto_mixed_precision_onednn_bfloat16() == ::tensorflow::RewriterConfig::ON ||
       rewrite.auto_mixed_precision_mkl() == ::tensorflow::RewriterConfig::ON)) {
    c.rewrite_options.cpu_mixed_precision = ReducedPrecision::kBfloat16;
  } else if (!all_off && rewrite.auto_mixed_precision_cpu() == ::tensorflow::RewriterConfig::ON) {
    c.rewrite_options.cpu_mixed_precision = ReducedPrecision::kFloat16;
  }
  auto on = [all_off](::tensorflow::RewriterConfig::Toggle t) {
    return !all_off && t != ::tensorflow::RewriterConfig::OFF;
  };
  c.rewrite_options.model_pruning = !all_off && !rewrite.disable_model_pruning();
  c.rewrite_options.constant_folding = on(rewrite.constant_folding());
  c.rewrite_options.remapping = on(rewrite.remapping());
  c.rewrite_options.arithmetic_optimization = on(rewrite.arithmetic_optimization());
  c.rewrite_options.layout_optimizer = on(rewrite.layout_optimizer());
  return c;
}

StatusOr<SessionConfig> SessionConfig::FromText(const std::string& text) {
  ::tensorflow::ConfigProto proto;
  if (!google::protobuf::TextFormat::ParseFromString(text, &proto)) {
    return InvalidArgument("not a text-format tensorflow.ConfigProto");
  }
  return FromProto(proto);
}

StatusOr<SessionConfig> SessionConfig::FromBinary(const std::string& bytes) {
  ::tensorflow::ConfigProto proto;
  if (!proto.ParseFromString(bytes)) return InvalidArgument("not a binary tensorflow.ConfigProto");
  return FromProto(proto);
}

::tensorflow::ConfigProto SessionConfig::ToProto() const {
  ::tensorflow::ConfigProto proto;
  for (const auto& [type, count] : device_count) (*proto.mutable_device_count())[type] = count;
  proto.set_allow_soft_placement(allow_soft_placement);
  proto.set_log_device_placement(log_device_placement);
  proto.set_intra_op_parallelism_threads(intra_op_parallelism_threads);
  proto.set_inter_op_parallelism_threads(inter_op_parallelism_threads);
  proto.mutable_gpu_options()->set_visible_device_list(gpu_options.visible_device_list);
  proto.mutable_gpu_options()->set_allow_growth(gpu_options.allow_growth);
  proto.mutable_gpu_options()->set_per_process_gpu_memory_fraction(
      gpu_options.per_process_gpu_memory_fraction);
  proto.set_operation_timeout_in_ms(operation_timeout_in_ms);
  ::tensorflow::RewriterConfig* amp = proto.mutable_graph_options()->mutable_rewrite_options();
  if (rewrite_options.cpu_mixed_precision == ReducedPrecision::kFloat16) {
    amp->set_auto_mixed_precision_cpu(::tensorflow::RewriterConfig::ON);
  } else if (rewrite_options.cpu_mixed_precision == ReducedPrecision::kBfloat16) {
    amp->set_auto_mixed_precision_onednn_bfloat16(::tensorflow::RewriterConfig::ON);
  } else if (reduced_precision_requested) {
    amp->set_auto_mixed_precision(::tensorflow::RewriterConfig::ON);
  }
  // A default config stays an empty ConfigProto.
  if (amp->ByteSizeLong() == 0) proto.clear_graph_options();
  // Only passes turned off are written, so that a default config gives an empty ConfigProto.
  const GraphRewriteOptions& r = rewrite_options;
  const GraphRewriteOptions defaults;
  if (r.model_pruning != defaults.model_pruning ||
      r.constant_folding != defaults.constant_folding || r.remapping != defaults.remapping ||
      r.arithmetic_optimization != defaults.arithmetic_optimization ||
      r.layout_optimizer != defaults.layout_optimizer) {
    ::tensorflow::RewriterConfig* rewrite =
        proto.mutable_graph_options()->mutable_rewrite_options();
    auto toggle = [](bool on) {
      return on ? ::tensorflow::RewriterConfig::DEFAULT : ::tensorflow::RewriterConfig::OFF;
    };
    rewrite->set_disable_model_pruning(!r.model_pruning);
    rewrite->set_constant_folding(toggle(r.constant_folding));
    rewrite->set_remapping(toggle(r.remapping));
    rewrite->set_arithmetic_optimization(toggle(r.arithmetic_optimization));
    rewrite->set_layout_optimizer(toggle(r.layout_optimizer));
  }
  return proto;
}

}  // namespace graphrt
