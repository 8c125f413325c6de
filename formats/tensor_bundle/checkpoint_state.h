// The `checkpoint` file that tf.train.Saver and tf.train.CheckpointManager keep beside their
// checkpoints: a text-format CheckpointState naming the newest checkpoint prefix and the ones
// kept, oldest first, e.g.
//
//   model_checkpoint_path: "model.ckpt-2000"
//   all_model_checkpoint_paths: "model.ckpt-1000"
//   all_model_checkpoint_paths: "model.ckpt-2000"
//
// Paths are relative to the file's directory, or absolute.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_CHECKPOINT_STATE_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_CHECKPOINT_STATE_H_

#include <string>

#include <graphrt/checkpoint.h>

#include "checkpoint_state.pb.h"
#include "runtime/core/status.h"

namespace graphrt {

// Reads DIR/`filename` as written. NOT_FOUND when it is missing, DATA_LOSS when it does not
// parse.
StatusOr<::tensorflow::CheckpointState> ReadCheckpointState(
    const std::string& dir, const std::string& filename = kCheckpointStateFilename);
// Writes DIR/`filename` through a temporary file and a rename.
Status WriteCheckpointState(const std::string& dir, const ::tensorflow::CheckpointState& state,
                            const std::string& filename = kCheckpointStateFilename);

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_CHECKPOINT_STATE_H_
