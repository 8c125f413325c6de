// Reads a TensorFlow V2 checkpoint (format: bundle_format.h) without TensorFlow.
//
//   GRT_ASSIGN_OR_RETURN(auto reader, BundleReader::Open("/models/run1/model.ckpt-1000"));
//   for (const std::string& name : reader->Keys()) {
//     GRT_ASSIGN_OR_RETURN(Tensor t, reader->Read(name));
//   }
//
// Open reads the whole .index and checks every block's checksum; Read checks the tensor's
// checksum. Data files are mapped into memory (or read with pread) when first needed.
// Errors name the file and the tensor: NOT_FOUND for a missing key or data file, DATA_LOSS for
// corrupt or truncated files, UNIMPLEMENTED for a V1 checkpoint or variant tensors. Read,
// ReadSlice and VerifyAll may be called from several threads at once.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_READER_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_READER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "formats/tensor_bundle/mapped_file.h"
#include "formats/tensor_bundle/table.h"
#include "formats/tensor_bundle/tensor_slice.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "tensor_bundle.pb.h"

namespace graphrt {

class BundleReader {
 public:
  struct Options {
    // Map data files into memory; otherwise read them with pread.
    bool use_mmap = true;
  };

  // `prefix` is the checkpoint path without ".index" (e.g. "variables/variables").
  static StatusOr<std::unique_ptr<BundleReader>> Open(const std::string& prefix);
  static StatusOr<std::unique_ptr<BundleReader>> Open(const std::string& prefix,
                                                      const Options& options);

  const std::string& prefix() const { return prefix_; }
  const ::tensorflow::BundleHeaderProto& header() const { return header_; }
  int num_shards() const { return header_.num_shards(); }
  // Whether the data is in the other byte order and is swapped as it is read.
  bool swaps_bytes() const { return swap_bytes_; }
  const table::Table& index() const { return index_; }

  // The tensors' names, sorted: every key but the header and the keys of slices of
  // partitioned tensors (whose full names are listed), as tf.train.list_variables shows them.
  std::vector<std::string> Keys() const;
  bool Contains(const std::string& key) const { return index_.Find(key) != nullptr; }
  // The parsed index entry of `key`, shape and dtype checked.
  StatusOr<::tensorflow::BundleEntryProto> Entry(const std::string& key) const;

  // The whole tensor; a partitioned tensor is assembled from its slices.
  StatusOr<Tensor> Read(const std::string& key);
  // Part of the tensor. INVALID_ARGUMENT when `slice` does not fit the tensor's shape or the
  // stored slices do not cover it.
  StatusOr<Tensor> ReadSlice(const std::string& key, const TensorSlice& slice);

  // Checks every tensor's bytes against its checksum (the index's blocks were checked by Open)
  // and every partitioned tensor's slices, without keeping the values. On error, names the
  // tensor in `*failing_tensor` (may be null; "" when no tensor is to blame).
  Status VerifyAll(std::string* failing_tensor);

  // A key as people read it: a slice key becomes "name[start,length:-]".
  static std::string DisplayKey(const std::string& key);

 private:
  struct DataRef;  // where one stored tensor's bytes are
  BundleReader() = default;

  std::string index_path() const;
  StatusOr<const MappedFile*> Shard(int shard_id, const std::string& key);
  // Checks an unpartitioned entry against the header and the data file's size.
  StatusOr<DataRef> Locate(const std::string& key, const ::tensorflow::BundleEntryProto& entry);
  StatusOr<Tensor> ReadStored(const std::string& key, const ::tensorflow::BundleEntryProto& entry);
  Status VerifyStored(const std::string& key, const ::tensorflow::BundleEntryProto& entry);
  // The stored slices of partitioned tensor `key` that intersect `want`, checked.
  struct StoredSlice;
  StatusOr<std::vector<StoredSlice>> SlicesFor(const std::string& key,
                                               const ::tensorflow::BundleEntryProto& entry,
                                               const TensorSlice& want, bool reading_all);

  std::string prefix_;
  Options options_;
  table::Table index_;
  ::tensorflow::BundleHeaderProto header_;
  bool swap_bytes_ = false;

  std::mutex shards_mu_;
  std::map<int, std::unique_ptr<MappedFile>> shards_;  // opened on first use
};

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_READER_H_
