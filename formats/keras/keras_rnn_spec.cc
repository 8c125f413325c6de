// Recurrent layers' configs and weights (keras_rnn_spec.h).
#include "formats/keras/keras_rnn_spec.h"

#include <algorithm>
#include <set>
#include <utility>

#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

namespace {

Tensor Reshaped(const Tensor& t, const TensorShape& shape) {
  Tensor out(kFloat, shape);
  std::copy(t.data<float>(), t.data<float>() + t.NumElements(), out.data<float>());
  return out;
}

// cuDNN's layout, as Keras's CuDNNLSTM/CuDNNGRU write it and its HDF5 loader converts it
// (_convert_rnn_weights): each gate's [in, units] block of the kernel holds the row-major
// buffer of the [units, in] matrix cuDNN multiplies by, and each gate's recurrent block is
// transposed. The gates are in Keras's order (the CuDNN layers reorder them for cuDNN).
Tensor KernelFromCudnn(const Tensor& k, int gates) {
  const int64_t d = k.dim_size(0), n = k.dim_size(1), u = n / gates;
  Tensor out(kFloat, k.shape());
  const float* src = k.data<float>();
  float* dst = out.data<float>();
  for (int g = 0; g < gates; ++g) {
    for (int64_t a = 0; a < d; ++a) {
      for (int64_t b = 0; b < u; ++b) {
        int64_t m = b * d + a;  // position in the gate block's row-major buffer
        dst[a * n + g * u + b] = src[(m / u) * n + g * u + m % u];
      }
    }
  }
  return out;
}

Tensor RecurrentFromCudnn(const Tensor& k, int gates) {
  const int64_t n = k.dim_size(1), u = n / gates;
  Tensor out(kFloat, k.shape());
  for (int g = 0; g < gates; ++g) {
    for (int64_t a = 0; a < u; ++a) {
      for (int64_t b = 0; b < u; ++b) {
        out.data<float>()[a * n + g * u + b] = k.data<float>()[b * n + g * u + a];
      }
    }
  }
  return out;
}

// A dense cell's weights: Keras's layout, or cuDNN's (a CuDNN layer's, or an LSTM/GRU given
// weights a CuDNN layer wrote: recognised, as Keras does, by a bias of 2 * gates * units).
Status ReadDenseWeights(RnnCellSpec* cell, int64_t input_dim, bool cudnn_class,
                        WeightCursor* weights, const std::string& layer) {
  const int gates = cell->kind == "LSTM" ? 4 : cell->kind == "GRU" ? 3 : 1;
  const int64_t u = cell->units;
  GRT_ASSIGN_OR_RETURN(cell->kernel, weights->Next("kernel", {input_dim, gates * u}));
  GRT_ASSIGN_OR_RETURN(cell->recurrent_kernel, weights->Next("recurrent_kernel", {u, gates * u}));
  if (!cell->use_bias) return Status::OK();
  const Tensor* next = weights->Peek();
  bool cudnn = cudnn_class || (gates > 1 && next != nullptr && next->dims() == 1 &&
                               next->dim_size(0) == 2 * gates * u);
  if (cudnn && cell->kind == "GRU" && !cell->reset_after) {
    return InvalidArgument("layer '", layer, "': GRU(reset_after=False) cannot take weights ",
                           "in the cuDNN layout (a bias of ", 2 * gates * u, ")");
  }
  Shape bshape = cudnn                                      ? Shape{2 * gates * u}
                 : cell->kind == "GRU" && cell->reset_after ? Shape{2, 3 * u}
                                                            : Shape{gates * u};
  GRT_ASSIGN_OR_RETURN(cell->bias, weights->Next("bias", bshape));
  if (!cudnn) return Status::OK();
  cell->kernel = KernelFromCudnn(cell->kernel, gates);
  cell->recurrent_kernel = RecurrentFromCudnn(cell->recurrent_kernel, gates);
  if (cell->kind == "LSTM") {
    // cuDNN adds an input and a recurrent bias; Keras's LSTM has their sum.
    Tensor sum(kFloat, TensorShape({4 * u}));
    const float* b = cell->bias.data<float>();
    for (int64_t i = 0; i < 4 * u; ++i) sum.data<float>()[i] = b[i] + b[4 * u + i];
    cell->bias = sum;
  } else {
    cell->bias = Reshaped(cell->bias, TensorShape({2, 3 * u}));
  }
  return Status::OK();
}

// A ConvLSTM cell, over `input` in channels_last order.
Status ReadConvLstm(RnnCellSpec* cell, const Json& c, const Shape& input, WeightCursor* weights,
                    const std::string& layer) {
  const int r = cell->spatial;
  if (static_cast<int>(input.size()) != r + 3) {
    return InvalidArgument("layer '", layer, "': input ", ShapeString(input), " where ConvLSTM", r,
                           "D takes rank ", r + 3);
  }
  const int64_t ch = input.back(), f = cell->units;
  if (ch < 0) return InvalidArgument("layer '", layer, "': input of unknown channel count");
  std::vector<int64_t> ks = GetWindow(c, "kernel_size", r, 1);
  cell->strides = GetWindow(c, "strides", r, 1);
  cell->dilations = GetWindow(c, "dilation_rate", r, 1);
  cell->padding = Get<std::string>(c, "padding", "valid");
  if (cell->padding != "valid" && cell->padding != "same") {
    return Unimplemented("layer '", layer, "': ConvLSTM", cell->spatial, "D padding '",
                         cell->padding, "'");
  }
  Shape kshape(ks.begin(), ks.end()), rshape(ks.begin(), ks.end());
  kshape.push_back(ch);
  kshape.push_back(4 * f);
  rshape.push_back(f);
  rshape.push_back(4 * f);
  GRT_ASSIGN_OR_RETURN(cell->kernel, weights->Next("kernel", kshape));
  GRT_ASSIGN_OR_RETURN(cell->recurrent_kernel, weights->Next("recurrent_kernel", rshape));
  if (cell->use_bias) {
    GRT_ASSIGN_OR_RETURN(cell->bias, weights->Next("bias", {4 * f}));
  }
  if (r == 1) {
    cell->kernel = Reshaped(cell->kernel, TensorShape({1, ks[0], ch, 4 * f}));
    cell->recurrent_kernel = Reshaped(cell->recurrent_kernel, TensorShape({1, ks[0], f, 4 * f}));
  }
  return Status::OK();
}

}  // namespace

StatusOr<RnnSpec> ReadRnn(const std::string& class_name, const Json& cfg, const Shape& input,
                          WeightCursor* weights, const std::string& layer) {
  RnnSpec spec;
  spec.go_backwards = Get<bool>(cfg, "go_backwards", false);
  spec.return_sequences = Get<bool>(cfg, "return_sequences", false);
  spec.return_state = Get<bool>(cfg, "return_state", false);
  spec.stateful = Get<bool>(cfg, "stateful", false);
  spec.zero_output_for_mask = Get<bool>(cfg, "zero_output_for_mask", false);
  if (Get<bool>(cfg, "time_major", false)) {
    return Unimplemented("layer '", layer, "': time_major recurrent layers");
  }
  // (kind, the cell's config) for each cell.
  std::vector<std::pair<std::string, const Json*>> cells;
  static const std::set<std::string> kLayers = {"SimpleRNN", "LSTM", "GRU", "CuDNNLSTM",
                                                "CuDNNGRU"};
  static const std::set<std::string> kCells = {"SimpleRNNCell", "LSTMCell", "GRUCell"};
  static const std::set<std::string> kConv = {"ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"};
  if (kLayers.count(class_name) != 0) {
    auto cell = cfg.find("cell");
    const Json& c = cell != cfg.end() && cell->is_object() && cell->contains("config")
                        ? (*cell)["config"]
                        : cfg;
    cells.emplace_back(class_name, &c);
  } else if (kConv.count(class_name) != 0) {
    cells.emplace_back("ConvLSTM", &cfg);
  } else if (class_name == "RNN") {
    GRT_ASSIGN_OR_RETURN(const Json* cell, Member(cfg, "cell", layer));
    std::string cls = Get<std::string>(*cell, "class_name", "");
    GRT_ASSIGN_OR_RETURN(const Json* cell_cfg, Member(*cell, "config", layer));
    std::vector<const Json*> list;
    if (cls == "StackedRNNCells") {
      GRT_ASSIGN_OR_RETURN(const Json* stack, Member(*cell_cfg, "cells", layer));
      if (!stack->is_array() || stack->empty()) {
        return InvalidArgument("layer '", layer, "': StackedRNNCells without a list of cells");
      }
      for (const Json& one : *stack) list.push_back(&one);
    } else {
      list.push_back(cell);
    }
    for (const Json* one : list) {
      std::string one_cls = Get<std::string>(*one, "class_name", "");
      if (kCells.count(one_cls) == 0) {
        return Unimplemented("layer '", layer, "': RNN over a cell of class ", one_cls);
      }
      GRT_ASSIGN_OR_RETURN(const Json* one_cfg, Member(*one, "config", layer));
      cells.emplace_back(one_cls.substr(0, one_cls.size() - 4), one_cfg);
    }
  } else {
    return Unimplemented("layer '", layer, "': ", class_name, " is not a recurrent layer");
  }
  int64_t input_dim = input.empty() ? -1 : input.back();
  for (const auto& [cls, c] : cells) {
    RnnCellSpec cell;
    bool cudnn = cls.rfind("CuDNN", 0) == 0;
    cell.kind = cudnn ? cls.substr(5) : cls;
    cell.units = cell.kind == "ConvLSTM"
                     ? Get<int64_t>(*c, "filters", -1)
                     : Get<int64_t>(*c, "units", Get<int64_t>(cfg, "units", -1));
    if (cell.units <= 0) {
      return InvalidArgument("layer '", layer, "': ", cell.kind == "ConvLSTM" ? "filters" : "units",
                             " must be positive");
    }
    cell.activation = ActivationName(*c, "activation", "tanh");
    cell.recurrent_activation =
        ActivationName(*c, "recurrent_activation", cell.kind == "SimpleRNN" ? "" : "sigmoid");
    cell.use_bias = Get<bool>(*c, "use_bias", true);
    // cuDNN's GRU applies the reset gate after the recurrent matmul.
    cell.reset_after = cudnn || Get<bool>(*c, "reset_after", false);
    if (cudnn) {
      // Fixed by cuDNN, whatever the config says.
      cell.activation = "tanh";
      cell.recurrent_activation = "sigmoid";
      cell.use_bias = true;
    }
    if (cell.kind == "ConvLSTM") {
      cell.spatial = class_name[8] - '0';
      std::string format = Get<std::string>(*c, "data_format", "channels_last");
      if (format != "channels_last" && format != "channels_first") {
        return Unimplemented("layer '", layer, "': data_format '", format, "'");
      }
      Shape in = input;
      spec.channels_first = format == "channels_first";
      if (spec.channels_first && in.size() > 2) {
        std::rotate(in.begin() + 2, in.begin() + 3, in.end());  // [b, t, spatial..., c]
      }
      GRT_RETURN_IF_ERROR(ReadConvLstm(&cell, *c, in, weights, layer));
    } else {
      GRT_RETURN_IF_ERROR(ReadDenseWeights(&cell, input_dim, cudnn, weights, layer));
      input_dim = cell.units;
    }
    spec.cells.push_back(std::move(cell));
  }
  return spec;
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
