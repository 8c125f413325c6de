// The configuration and weights of a recurrent layer, as keras_rnn.cc builds it: read from
// the layer's config (keras_rnn_spec.cc), with weights written in cuDNN's layout converted to
// Keras's.
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_RNN_SPEC_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_RNN_SPEC_H_

#include <string>
#include <vector>

#include "formats/keras/keras_builder_internal.h"

namespace graphrt {
namespace keras {
namespace internal {

// One cell: the layer's own (SimpleRNN, LSTM, GRU, ConvLSTM*) or one of an RNN layer's cells.
struct RnnCellSpec {
  std::string kind;   // SimpleRNN, LSTM, GRU, ConvLSTM
  int64_t units = 0;  // filters, for ConvLSTM
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  bool reset_after = false;
  Tensor kernel, recurrent_kernel, bias;
  // ConvLSTM: the number of spatial axes, and the input convolution's window. A ConvLSTM1D
  // runs as a 2-D convolution over a height of 1 (its kernels carry that axis).
  int spatial = 0;
  std::vector<int64_t> strides, dilations;
  std::string padding = "valid";
  int num_states() const { return kind == "SimpleRNN" || kind == "GRU" ? 1 : 2; }
};

// A recurrent layer: its cells, stacked (the output of each is the input of the next).
struct RnnSpec {
  std::vector<RnnCellSpec> cells;
  bool go_backwards = false;
  bool return_sequences = false;
  bool return_state = false;
  bool stateful = false;
  bool zero_output_for_mask = false;  // masked steps output zeros, not the previous output
  // A channels_first ConvLSTM, run channels_last between transposes (RunRnn).
  bool channels_first = false;
  int num_states() const {
    int n = 0;
    for (const RnnCellSpec& c : cells) n += c.num_states();
    return n;
  }
};

// The layer `class_name` with config `cfg` over inputs of shape `input`: SimpleRNN, LSTM, GRU,
// CuDNNLSTM, CuDNNGRU, ConvLSTM1D/2D/3D, or RNN over SimpleRNNCell, LSTMCell, GRUCell or
// StackedRNNCells of them. Takes the layer's weights from `weights`.
StatusOr<RnnSpec> ReadRnn(const std::string& class_name, const Json& cfg, const Shape& input,
                          WeightCursor* weights, const std::string& layer);

}  // namespace internal
}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_RNN_SPEC_H_
