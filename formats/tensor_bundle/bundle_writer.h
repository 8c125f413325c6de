// Writes a TensorFlow V2 checkpoint (format: bundle_format.h) that TensorFlow reads, byte for
// byte as TensorFlow's BundleWriter writes it when there is one shard.
//
//   BundleWriter writer("/tmp/run/model.ckpt-1", {/*num_shards=*/2});
//   GRT_RETURN_IF_ERROR(writer.Add("dense/kernel", kernel));
//   GRT_RETURN_IF_ERROR(writer.Finish());
//
// Tensors are appended to the data shard that holds the fewest bytes so far (the lowest shard
// on ties), in the order they are added; the index lists them sorted. Everything is written to
// "<name>.tempstate<random>" files that Finish renames: the data shards first, then the index,
// so a reader never sees an index whose data is missing. When Finish fails, or the writer is
// destroyed without it, the temporary files are removed and nothing is left behind.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_WRITER_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_WRITER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "tensor_bundle.pb.h"
#include "tensor_slice.pb.h"

namespace graphrt {

struct BundleWriterOptions {
  // Data files the tensors are spread over: PREFIX.data-0000K-of-0000N.
  int num_shards = 1;
};

class BundleWriter {
 public:
  using Options = BundleWriterOptions;

  explicit BundleWriter(std::string prefix, Options options = Options());
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Adds a whole tensor of any numeric type, bool or string. INVALID_ARGUMENT for an empty or
  // repeated key or a dtype a checkpoint cannot hold; such a call changes nothing. I/O errors
  // are returned by this and every later call.
  Status Add(const std::string& key, const Tensor& tensor);
  // Adds one slice of partitioned tensor `full_name` (what SaveV2 does for a shape_and_slice
  // spec). A slice that covers the whole shape is an ordinary Add. Slices of one name must agree
  // on dtype and full shape and must not overlap.
  Status AddSlice(const std::string& full_name, const TensorShape& full_shape,
                  const ::tensorflow::TensorSliceProto& slice, const Tensor& slice_tensor);
  // Writes the index and renames every file into place. Called once.
  Status Finish();

 private:
  class ShardFile;

  Status OpenShards();
  void RemoveTemporaryFiles();

  const std::string prefix_;
  const Options options_;
  Status status_;  // the first I/O error, returned from then on
  bool finished_ = false;
  std::vector<std::unique_ptr<ShardFile>> shards_;
  std::map<std::string, ::tensorflow::BundleEntryProto> entries_;
};

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_WRITER_H_
