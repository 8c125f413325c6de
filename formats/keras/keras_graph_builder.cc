#include "formats/keras/keras_graph_builder.h"

#include <exception>
#include <map>
#include <string>

#include "formats/keras/keras3_config.h"
#include "formats/keras/keras_builder_internal.h"

namespace graphrt {
namespace keras {
namespace internal {

// The one table: a class missing here is unsupported, and BuildKerasGraph names every layer of
// such a class before it builds anything.
const std::map<std::string, LayerFn>& LayerBuilders() {
  static const auto* table = new std::map<std::string, LayerFn>{
      {"InputLayer", &Input},
      {"Dense", &Dense},
      {"Activation", &ActivationLayer},
      {"Dropout", &IdentityLayer},
      {"SpatialDropout1D", &IdentityLayer},
      {"SpatialDropout2D", &IdentityLayer},
      {"SpatialDropout3D", &IdentityLayer},
      {"GaussianNoise", &IdentityLayer},
      {"GaussianDropout", &IdentityLayer},
      {"AlphaDropout", &IdentityLayer},
      {"ActivityRegularization", &IdentityLayer},
      {"Flatten", &Flatten},
      {"Reshape", &ReshapeLayer},
      {"Permute", &Permute},
      {"RepeatVector", &RepeatVector},
      {"Conv1D", &Conv},
      {"Conv2D", &Conv},
      {"Convolution1D", &Conv},
      {"Convolution2D", &Conv},
      {"DepthwiseConv2D", &Conv},
      {"SeparableConv1D", &Conv},
      {"SeparableConv2D", &Conv},
      {"SeparableConvolution1D", &Conv},
      {"SeparableConvolution2D", &Conv},
      {"Conv2DTranspose", &Conv},
      {"Convolution2DTranspose", &Conv},
      {"Conv3D", &Conv},
      {"Convolution3D", &Conv},
      {"Conv1DTranspose", &Conv},
      {"Convolution1DTranspose", &Conv},
      {"Conv3DTranspose", &Conv},
      {"Convolution3DTranspose", &Conv},
      {"DepthwiseConv1D", &Conv},
      {"MaxPooling3D", &Pooling},
      {"AveragePooling3D", &Pooling},
      {"MaxPool3D", &Pooling},
      {"AvgPool3D", &Pooling},
      {"GlobalMaxPooling3D", &GlobalPooling},
      {"GlobalAveragePooling3D", &GlobalPooling},
      {"GlobalMaxPool3D", &GlobalPooling},
      {"GlobalAvgPool3D", &GlobalPooling},
      {"ZeroPadding3D", &ZeroPadding},
      {"Cropping3D", &Cropping},
      {"UpSampling3D", &UpSampling},
      {"MaxPooling1D", &Pooling},
      {"MaxPooling2D", &Pooling},
      {"AveragePooling1D", &Pooling},
      {"AveragePooling2D", &Pooling},
      {"MaxPool1D", &Pooling},
      {"MaxPool2D", &Pooling},
      {"AvgPool1D", &Pooling},
      {"AvgPool2D", &Pooling},
      {"GlobalMaxPooling1D", &GlobalPooling},
      {"GlobalMaxPooling2D", &GlobalPooling},
      {"GlobalAveragePooling1D", &GlobalPooling},
      {"GlobalAveragePooling2D", &GlobalPooling},
      {"GlobalMaxPool1D", &GlobalPooling},
      {"GlobalMaxPool2D", &GlobalPooling},
      {"GlobalAvgPool1D", &GlobalPooling},
      {"GlobalAvgPool2D", &GlobalPooling},
      {"ZeroPadding1D", &ZeroPadding},
      {"ZeroPadding2D", &ZeroPadding},
      {"Cropping1D", &Cropping},
      {"Cropping2D", &Cropping},
      {"UpSampling1D", &UpSampling},
      {"UpSampling2D", &UpSampling},
      {"BatchNormalization", &BatchNorm},
      {"LayerNormalization", &LayerNorm},
      {"Embedding", &Embedding},
      {"Masking", &MaskingLayer},
      {"ReLU", &ReLULayer},
      {"LeakyReLU", &LeakyReLULayer},
      {"PReLU", &PReLULayer},
      {"ELU", &ELULayer},
      {"ThresholdedReLU", &ThresholdedReLULayer},
      {"Softmax", &SoftmaxLayer},
      {"Add", &Merge},
      {"Subtract", &Merge},
      {"Multiply", &Merge},
      {"Average", &Merge},
      {"Maximum", &Merge},
      {"Minimum", &Merge},
      {"Concatenate", &ConcatenateLayer},
      {"Dot", &DotLayer},
      {"SimpleRNN", &Recurrent},
      {"LSTM", &Recurrent},
      {"GRU", &Recurrent},
      {"CuDNNLSTM", &Recurrent},
      {"CuDNNGRU", &Recurrent},
      {"RNN", &Recurrent},
      {"ConvLSTM1D", &Recurrent},
      {"ConvLSTM2D", &Recurrent},
      {"ConvLSTM3D", &Recurrent},
      {"Bidirectional", &BidirectionalLayer},
      {"TimeDistributed", &TimeDistributed},
      {"TFOpLambda", &OpLambda},
      {"SlicingOpLambda", &OpLambda},
      {"Rescaling", &Rescaling},
      {"Normalization", &Normalization},
      {"MultiHeadAttention", &MultiHeadAttention},
      {"EinsumDense", &EinsumDenseLayer},
      {"Attention", &DenseAttention},
      {"AdditiveAttention", &DenseAttention},
      {"GroupNormalization", &GroupNorm},
      {"UnitNormalization", &UnitNorm},
      {"Identity", &IdentityLayer},
      {"AddLoss", &IdentityLayer},  // model.add_loss: nothing at inference
      {"AddMetric", &IdentityLayer},
      {"SyncBatchNormalization", &BatchNorm},
      {"LocallyConnected1D", &LocallyConnected},
      {"LocallyConnected2D", &LocallyConnected},
      {"SpectralNormalization", &SpectralNormalization},
      {"RandomFourierFeatures", &RandomFourierFeatures},
      {"HashedCrossing", &HashedCrossing},
      {"DenseFeatures", &FeatureColumnLayer},
      {"SequenceFeatures", &FeatureColumnLayer},
      {"Resizing", &ResizingLayer},
      {"CenterCrop", &CropLayer},
      {"RandomCrop", &CropLayer},
      {"RandomFlip", &IdentityLayer},
      {"RandomRotation", &IdentityLayer},
      {"RandomZoom", &IdentityLayer},
      {"RandomTranslation", &IdentityLayer},
      {"RandomContrast", &IdentityLayer},
      {"RandomBrightness", &IdentityLayer},
      {"RandomHeight", &IdentityLayer},
      {"RandomWidth", &IdentityLayer},
      {"CategoryEncoding", &CategoryEncodingLayer},
      {"Hashing", &HashingLayer},
      {"Discretization", &DiscretizationLayer},
      {"StringLookup", &LookupLayer},
      {"IntegerLookup", &LookupLayer},
      {"TextVectorization", &TextVectorizationLayer},
      {"Sequential", &NestedModel},
      {"Model", &NestedModel},
      {"Functional", &NestedModel},
  };
  return *table;
}

}  // namespace internal

StatusOr<KerasGraph> BuildKerasGraph(const std::string& model_config, const KerasH5File& file,
                                     const KerasGraphOptions& options) {
  internal::Json model = internal::Json::parse(model_config, nullptr, false);
  if (model.is_discarded() || !model.is_object() || !model.contains("config")) {
    return InvalidArgument("model_config of ", file.path, " is not a Keras model JSON");
  }
  if (internal::JsonDepth(model) > internal::kMaxConfigDepth) {
    return InvalidArgument("model_config of ", file.path, " nests more than ",
                           internal::kMaxConfigDepth, " levels deep");
  }
  KerasGraph graph;
  // Keras 3 weights are named after the architecture once it is read.
  KerasH5File mapped;
  const KerasH5File* weights = &file;
  try {
    GRT_RETURN_IF_ERROR(internal::NormalizeKerasConfig(
        &model, internal::IsKeras3Config(model, file.keras_version), file.path));
    if (file.layout == KerasWeightsLayout::kKeras3Raw) {
      GRT_ASSIGN_OR_RETURN(mapped, internal::MapKeras3Weights(model, file));
      weights = &mapped;
    }
  } catch (const std::exception& e) {
    return InvalidArgument("malformed model_config in ", file.path, ": ", e.what());
  }
  internal::ModelWalker walker(*weights, options, &graph);
  try {
    GRT_RETURN_IF_ERROR(walker.Build(model));
  } catch (const std::exception& e) {
    // A value of the wrong JSON type somewhere outside a layer's own config (see Get).
    return InvalidArgument("malformed model_config in ", file.path, ": ", e.what());
  }
  return graph;
}

}  // namespace keras
}  // namespace graphrt
