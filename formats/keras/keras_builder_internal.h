// What the files of the Keras graph builder share; not part of the API (keras_graph_builder.h).
//
//   keras_graph_builder.cc     BuildKerasGraph, and the one table of layer classes
//   keras_model_walker.cc      Sequential and Functional models: inputs, call order, outputs
//   keras_config.{h,cc}        reading the model_config JSON
//   keras_node_emitter.{h,cc}  emitting NodeDefs
//   keras_weight_cursor.cc     handing each layer its weights, checked against the architecture
//   keras_layers_*.cc          the layers, one file per family
//   keras_layers_*preprocessing.cc  the preprocessing layers: image, categorical, lookups, text
//   keras_rnn.cc               SimpleRNN, LSTM, GRU, CuDNN*, RNN(cells), ConvLSTM and
//                              Bidirectional as while loops
//   keras_rnn_spec.{h,cc}      their configs and weights (cuDNN's layout converted)
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_BUILDER_INTERNAL_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_BUILDER_INTERNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "formats/keras/keras_config.h"
#include "formats/keras/keras_graph_builder.h"
#include "formats/keras/keras_h5_file.h"
#include "formats/keras/keras_node_emitter.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {
namespace keras {
namespace internal {

using Shape = std::vector<int64_t>;  // with the batch dimension; -1 where unknown

// A tensor of the graph being built, with what Keras knows of its shape.
struct Value {
  Value() = default;
  Value(std::string t, Shape s, DataType d = kFloat)
      : tensor(std::move(t)), shape(std::move(s)), dtype(d) {}
  std::string tensor;
  Shape shape;
  DataType dtype = kFloat;
  // Keras's mask, a bool [batch, time] tensor, from Embedding(mask_zero=True) or Masking; empty
  // when there is none.
  std::string mask;
  int rank() const { return static_cast<int>(shape.size()); }
};

// "[?,3]".
std::string ShapeString(const Shape& shape);
Shape TensorDims(const Tensor& t);

// Weights of one layer, taken in the order Keras's layer.weights lists them.
class WeightCursor {
 public:
  WeightCursor(std::string layer, std::string file, std::vector<const KerasWeight*> weights)
      : layer_(std::move(layer)), file_(std::move(file)), weights_(std::move(weights)) {}

  // The next weight, checked against `expected` (-1 matches any size).
  StatusOr<Tensor> Next(const std::string& role, const Shape& expected);
  // The next weight without taking it; null when none is left (layers whose weights come in
  // more than one layout look before they take).
  const Tensor* Peek() const { return next_ < weights_.size() ? &weights_[next_]->value : nullptr; }
  // The weights not taken yet (a nested model's, which it hands to its own layers).
  std::vector<const KerasWeight*> TakeAll();
  // An error naming the weights the layer left untaken.
  Status Finish() const;

 private:
  std::string layer_;
  std::string file_;
  std::vector<const KerasWeight*> weights_;
  size_t next_ = 0;
};

// Weights of the layers of one model, by layer name.
using WeightMap = std::map<std::string, std::vector<const KerasWeight*>>;

class ModelWalker;

// One call of a layer: what its builder reads and where it emits.
struct LayerCall {
  std::string class_name;
  std::string name;   // the layer's name
  std::string scope;  // prefix of its nodes
  const Json* config = nullptr;
  std::vector<Value> inputs;
  // Call arguments from the inbound node (may be null). For TFOpLambda and SlicingOpLambda:
  // {"args": [first argument], "kwargs": {...}}, each tensor in them as {kInputRef: i},
  // `inputs[i]`.
  const Json* kwargs = nullptr;
  // Call arguments that are tensors of the model ("value", "key", "attention_mask"), by name.
  std::map<std::string, Value> tensor_kwargs;
  WeightCursor* weights = nullptr;
  Emitter* emit = nullptr;
  ModelWalker* walker = nullptr;  // for layers that call other layers (wrappers, nested models)
};

// Appends the layer's outputs to `out`. May throw on a malformed config (keras_config.h).
using LayerFn = Status (*)(LayerCall& c, std::vector<Value>* out);

// Every supported layer class, by Keras class name (keras_graph_builder.cc).
const std::map<std::string, LayerFn>& LayerBuilders();

// Builds a model's layers in call order (keras_model_walker.cc).
class ModelWalker {
 public:
  ModelWalker(const KerasH5File& file, const KerasGraphOptions& options, KerasGraph* out)
      : file_(file), out_(out), emit_(&out->graph, options.weights_as_variables, &out->variables) {}

  Status Build(const Json& model);

  // The file being built from (its assets, for lookup layers).
  const KerasH5File& file() const { return file_; }

  // Every layer class (nested models and wrappers included) without a builder.
  void FindUnsupported(const Json& layer, std::vector<std::string>* bad) const;

  // `bound`: the inputs of a nested model, or null for the top-level one (which gets
  // Placeholders, and Identity nodes for its outputs).
  Status BuildModel(const Json& model, const std::string& scope, const std::vector<Value>* bound,
                    const WeightMap& weights, std::vector<Value>* outputs);
  Status CallLayer(const Json& layer, const std::string& scope, std::vector<Value> inputs,
                   const Json* kwargs, WeightCursor* weights, std::vector<Value>* outputs,
                   std::map<std::string, Value> tensor_kwargs = {});

 private:
  const KerasH5File& file_;
  KerasGraph* out_;
  Emitter emit_;
  WeightMap top_weights_;
};

// Pieces several families use.

// Keras activation `name` applied to `x`; `x` itself for "linear" or "". An error naming
// `layer` for an activation graphrt does not have.
StatusOr<std::string> Activate(Emitter& emit, const std::string& scope, const std::string& name,
                               const std::string& x, const std::string& layer);
StatusOr<Value> ActivateValue(Emitter& emit, const std::string& scope, const std::string& name,
                              const Value& x, const std::string& layer);
// Softmax over `axis` of a rank-`rank` tensor (axis < 0: the last).
std::string Softmax(Emitter& emit, const std::string& name, const std::string& x, int axis,
                    int rank);
// `v` cast to float, or `v` itself when it is float.
std::string ToFloat(Emitter& emit, const std::string& scope, const Value& v);
// The output length of a convolution or pooling window ("valid" or "same"); -1 for -1.
int64_t ConvOut(int64_t in, int64_t k, int64_t stride, int64_t dilation, const std::string& pad);
// Spatial sizes, strides or dilations as TensorFlow's channels-last attribute: [1, v..., 1].
std::vector<int64_t> WindowAttr(const std::vector<int64_t>& v);
// The layer's data_format: an error naming the layer for a value Keras does not have, or for
// channels_first on a layer whose builder does not honour it (keras_layers_conv.cc).
Status CheckDataFormat(const LayerCall& c);
// Whether the layer's data_format is channels_first.
bool ChannelsFirst(const LayerCall& c);
// `x` [B, C, ...] as [B, ..., C].
Value ToChannelsLast(Emitter& emit, const std::string& name, const Value& x);
// `fn`, the builder of the channels_last layer, on the layer's first input moved to channels_last
// when the layer is channels_first, with its outputs moved back; `fn` itself otherwise.
Status ChannelsLastCall(LayerCall& c, LayerFn fn, std::vector<Value>* out);

// The layers, by file.

// keras_layers_core.cc
Status Input(LayerCall& c, std::vector<Value>* out);
Status IdentityLayer(LayerCall& c, std::vector<Value>* out);
Status Dense(LayerCall& c, std::vector<Value>* out);
Status Embedding(LayerCall& c, std::vector<Value>* out);
Status MaskingLayer(LayerCall& c, std::vector<Value>* out);

// keras_layers_activation.cc
Status ActivationLayer(LayerCall& c, std::vector<Value>* out);
Status ReLULayer(LayerCall& c, std::vector<Value>* out);
Status LeakyReLULayer(LayerCall& c, std::vector<Value>* out);
Status PReLULayer(LayerCall& c, std::vector<Value>* out);
Status ELULayer(LayerCall& c, std::vector<Value>* out);
Status ThresholdedReLULayer(LayerCall& c, std::vector<Value>* out);
Status SoftmaxLayer(LayerCall& c, std::vector<Value>* out);

// keras_layers_reshaping.cc
Status Flatten(LayerCall& c, std::vector<Value>* out);
Status ReshapeLayer(LayerCall& c, std::vector<Value>* out);
Status Permute(LayerCall& c, std::vector<Value>* out);
Status RepeatVector(LayerCall& c, std::vector<Value>* out);
Status ZeroPadding(LayerCall& c, std::vector<Value>* out);
Status Cropping(LayerCall& c, std::vector<Value>* out);
Status UpSampling(LayerCall& c, std::vector<Value>* out);

// keras_layers_conv.cc
Status Conv(LayerCall& c, std::vector<Value>* out);

// keras_layers_pooling.cc
Status Pooling(LayerCall& c, std::vector<Value>* out);
Status GlobalPooling(LayerCall& c, std::vector<Value>* out);

// keras_layers_normalization.cc
Status BatchNorm(LayerCall& c, std::vector<Value>* out);
Status LayerNorm(LayerCall& c, std::vector<Value>* out);

// keras_layers_normalization.cc (cont.)
Status GroupNorm(LayerCall& c, std::vector<Value>* out);
Status UnitNorm(LayerCall& c, std::vector<Value>* out);

// keras_layers_attention.cc
Status MultiHeadAttention(LayerCall& c, std::vector<Value>* out);
Status EinsumDenseLayer(LayerCall& c, std::vector<Value>* out);
Status DenseAttention(LayerCall& c, std::vector<Value>* out);
// A bool [batch, time] mask as float 0/1, with `trailing` axes of size 1 appended.
std::string MaskAsFloat(Emitter& emit, const std::string& name, const std::string& mask,
                        int trailing);

// keras_layers_merge.cc
Status Merge(LayerCall& c, std::vector<Value>* out);
Status ConcatenateLayer(LayerCall& c, std::vector<Value>* out);
Status DotLayer(LayerCall& c, std::vector<Value>* out);

// keras_layers_misc.cc
Status LocallyConnected(LayerCall& c, std::vector<Value>* out);
Status SpectralNormalization(LayerCall& c, std::vector<Value>* out);
Status RandomFourierFeatures(LayerCall& c, std::vector<Value>* out);
Status HashedCrossing(LayerCall& c, std::vector<Value>* out);
// DenseFeatures of numeric columns; other feature columns and SequenceFeatures refused.
Status FeatureColumnLayer(LayerCall& c, std::vector<Value>* out);

// keras_rnn.cc
Status Recurrent(LayerCall& c, std::vector<Value>* out);
Status BidirectionalLayer(LayerCall& c, std::vector<Value>* out);

// keras_layers_image_preprocessing.cc
Status ResizingLayer(LayerCall& c, std::vector<Value>* out);
Status CropLayer(LayerCall& c, std::vector<Value>* out);

// keras_layers_preprocessing.cc
Status CategoryEncodingLayer(LayerCall& c, std::vector<Value>* out);
Status HashingLayer(LayerCall& c, std::vector<Value>* out);
Status DiscretizationLayer(LayerCall& c, std::vector<Value>* out);
Status LookupLayer(LayerCall& c, std::vector<Value>* out);
Status TextVectorizationLayer(LayerCall& c, std::vector<Value>* out);

// keras_layers_tfop.cc: TFOpLambda and SlicingOpLambda replay the recorded tf function call.
constexpr char kInputRef[] = "__input__";
Status OpLambda(LayerCall& c, std::vector<Value>* out);
// Why graphrt cannot replay tf function `function` ("math.add", ...); "" when it can.
std::string OpLambdaUnsupported(const std::string& function);

// keras_layers_rescaling.cc
Status Rescaling(LayerCall& c, std::vector<Value>* out);
Status Normalization(LayerCall& c, std::vector<Value>* out);

// keras_layers_wrappers.cc
Status TimeDistributed(LayerCall& c, std::vector<Value>* out);
Status NestedModel(LayerCall& c, std::vector<Value>* out);

}  // namespace internal
}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_BUILDER_INTERNAL_H_
