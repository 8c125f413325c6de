// TensorFlow V2 checkpoints (PREFIX.index + PREFIX.data-NNNNN-of-NNNNN), read and written
// without TensorFlow.
//
//   GRT_ASSIGN_OR_RETURN(std::unique_ptr<graphrt::CheckpointReader> reader,
//                        graphrt::CheckpointReader::Open("/models/run1/model.ckpt-1000"));
//   for (const graphrt::CheckpointTensorInfo& info : reader->List()) { ... }
//   GRT_ASSIGN_OR_RETURN(graphrt::Tensor kernel, reader->Read("dense/kernel"));
//
//   graphrt::CheckpointWriter writer("/tmp/out/model.ckpt");
//   GRT_RETURN_IF_ERROR(writer.Add("dense/kernel", kernel));
//   GRT_RETURN_IF_ERROR(writer.Finish());
//
// Errors name the file and the tensor: NOT_FOUND for a missing key or data file, DATA_LOSS for
// corrupt or truncated files, UNIMPLEMENTED for a V1 checkpoint or variant tensors.
#ifndef GRAPHRT_CHECKPOINT_H_
#define GRAPHRT_CHECKPOINT_H_

#include <memory>
#include <string>
#include <vector>

#include <graphrt/export.h>
#include <graphrt/status.h>
#include <graphrt/tensor.h>
#include <graphrt/tensor_shape.h>
#include <graphrt/types.h>

namespace graphrt {

class BundleReader;
class BundleWriter;

// A stored tensor, as tf.train.list_variables shows it (a partitioned tensor by its full name
// and shape).
struct CheckpointTensorInfo {
  std::string name;
  DataType dtype = ::tensorflow::DT_INVALID;
  TensorShape shape;
};

class GRAPHRT_EXPORT CheckpointReader {
 public:
  // `prefix` is the checkpoint path without ".index" (e.g. "variables/variables"). Reads the
  // whole index and checks its checksums; data files are opened when first read.
  static StatusOr<std::unique_ptr<CheckpointReader>> Open(const std::string& prefix);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& prefix() const;
  // The tensors' names, sorted.
  std::vector<std::string> Keys() const;
  bool Contains(const std::string& key) const;
  // Dtype and shape from the index, without reading the data.
  StatusOr<CheckpointTensorInfo> Info(const std::string& key) const;
  // Every tensor's Info, sorted by name.
  StatusOr<std::vector<CheckpointTensorInfo>> List() const;
  // The whole tensor, its checksum checked; a partitioned tensor is assembled from its slices.
  // Safe to call from several threads at once.
  StatusOr<Tensor> Read(const std::string& key);

 private:
  explicit CheckpointReader(std::unique_ptr<BundleReader> reader);
  std::unique_ptr<BundleReader> reader_;
};

// Writes a checkpoint that TensorFlow reads. Everything goes to temporary files that Finish
// renames (the data first, then the index); a writer destroyed without a successful Finish
// leaves nothing behind.
class GRAPHRT_EXPORT CheckpointWriter {
 public:
  // Tensors are spread over `num_shards` data files.
  explicit CheckpointWriter(const std::string& prefix, int num_shards = 1);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // A whole tensor of any numeric type, bool or string. INVALID_ARGUMENT for an empty or
  // repeated key or a dtype a checkpoint cannot hold.
  Status Add(const std::string& key, const Tensor& tensor);
  // Writes the index and renames every file into place. Called once.
  Status Finish();

 private:
  std::unique_ptr<BundleWriter> writer_;
};

inline constexpr char kCheckpointStateFilename[] = "checkpoint";

// The prefix of the newest checkpoint in `dir`, as tf.train.latest_checkpoint finds it: the
// state's model_checkpoint_path, joined to `dir` when relative. One step further than
// TensorFlow: an absolute path that no longer exists (the directory was moved) falls back to
// its base name inside `dir`. NOT_FOUND when there is no state file, or when neither
// PREFIX.index (V2) nor a file at PREFIX (V1) exists.
GRAPHRT_EXPORT StatusOr<std::string> LatestCheckpoint(
    const std::string& dir, const std::string& filename = kCheckpointStateFilename);

}  // namespace graphrt

#endif  // GRAPHRT_CHECKPOINT_H_
