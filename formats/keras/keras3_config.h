// Keras 3 files: their config spellings, rewritten into the Keras 2 spelling the model walker
// reads (one parsing path), and their weights, named after the architecture.
//
// Keras 3 (keras 3.x, the default Keras of TensorFlow >= 2.16) writes, where Keras 2 wrote:
//   InputLayer  "batch_shape": [null, 8]                 "batch_input_shape": [null, 8]
//   dtype       {"class_name": "DTypePolicy", "config": {"name": "float32"}}      "float32"
//   inbound     [{"args": [{"class_name": "__keras_tensor__", "config": {"keras_history":
//   nodes         ["dense", 0, 0]}}], "kwargs": {...}}]  [[["dense", 0, 0, {...}]]]
//   model       "input_layers": ["x", 0, 0] (one input)  [["x", 0, 0]]
//   Sequential  no node of its own when called          node 0 is the model's own
//   first layer of a Sequential without InputLayer: "build_config": {"input_shape": ...}
//               "batch_input_shape" on the layer
//   activation  "hard_sigmoid" = relu6(x + 3) / 6        clip(0.2 x + 0.5, 0, 1)
// and adds `module` / `registered_name` / `build_config` keys, which say whether a class is
// Keras's own. tf-keras 2.12-2.15 `.keras` archives keep the Keras 2 spellings.
#ifndef GRAPHRT_FORMATS_KERAS_KERAS3_CONFIG_H_
#define GRAPHRT_FORMATS_KERAS_KERAS3_CONFIG_H_

#include <string>

#include "formats/keras/keras_config.h"
#include "formats/keras/keras_h5_file.h"
#include "runtime/core/status.h"

namespace graphrt {
namespace keras {
namespace internal {

// The name Keras 3's saving gives a layer's weights group: the class name in snake_case
// ("Conv2D" -> "conv2d", "ReLU" -> "re_lu"), numbered per class ("dense", "dense_1").
std::string KerasSnakeCase(const std::string& class_name);

// True when `model` is in Keras 3's spelling: `keras_version` (from metadata.json) says 3.x, or
// the config has dtype policies, InputLayer batch_shape or inbound nodes with "args".
bool IsKeras3Config(const Json& model, const std::string& keras_version);

// Refuses layers that cannot run outside their framework or are not Keras's own (naming each,
// before anything runs), then, when `keras3`, rewrites `model` into the Keras 2 spelling.
// `path` names the file in errors. May throw on JSON of the wrong type (BuildKerasGraph turns
// that into a Status).
Status NormalizeKerasConfig(Json* model, bool keras3, const std::string& path);

// Renames the weights of a KerasWeightsLayout::kKeras3Raw file after `model` (already
// normalized): each /layers/<key> group goes to the layer of that class and rank, weights of
// nested models to their inner layers; assets/ paths likewise ("layers/<key>/vocabulary.txt"
// becomes "layers/<layer name>/vocabulary.txt", a nested model's "layers/<model name>/layers/
// <layer name>/..."). An error names the group no layer takes.
StatusOr<KerasH5File> MapKeras3Weights(const Json& model, const KerasH5File& raw);

}  // namespace internal
}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS3_CONFIG_H_
