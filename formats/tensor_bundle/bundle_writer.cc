#include "formats/tensor_bundle/bundle_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/crc32c.h"
#include "formats/tensor_bundle/table.h"
#include "formats/tensor_bundle/tensor_slice.h"
#include "runtime/core/exception_barrier.h"

namespace graphrt {

using ::tensorflow::BundleEntryProto;

namespace {

constexpr size_t kWriteBufferBytes = 4 << 20;

std::string TemporarySuffix() {
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   (static_cast<uint64_t>(::getpid()) << 32));
  return StrCat(".tempstate", rng());
}

Status IoError(const std::string& what, const std::string& path) {
  return Status(Code::kUnknown, StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

// Creates `dir` and its missing parents.
Status CreateDirectories(const std::string& dir) {
  if (dir.empty() || dir == "." || dir == "/") return Status::OK();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::OK();
    return FailedPrecondition("not a directory: ", dir);
  }
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    GRT_RETURN_IF_ERROR(CreateDirectories(dir.substr(0, slash)));
  }
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) return IoError("create directory", dir);
  return Status::OK();
}

}  // namespace

// One output file, written under a temporary name until Commit renames it.
class BundleWriter::ShardFile {
 public:
  explicit ShardFile(std::string path)
      : path_(std::move(path)), temp_path_(path_ + TemporarySuffix()) {}
  ~ShardFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Open() {
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) return IoError("create", temp_path_);
    return Status::OK();
  }

  Status Append(std::string_view data) {
    if (buffer_.size() + data.size() > kWriteBufferBytes) {
      GRT_RETURN_IF_ERROR(FlushBuffer());
      if (data.size() > kWriteBufferBytes) {
        GRT_RETURN_IF_ERROR(WriteAll(data));
        size_ += data.size();
        return Status::OK();
      }
    }
    buffer_.append(data.data(), data.size());
    size_ += data.size();
    return Status::OK();
  }

  // Flushes, syncs and closes the temporary file.
  Status Close() {
    GRT_RETURN_IF_ERROR(FlushBuffer());
    if (::fsync(fd_) != 0) return IoError("sync", temp_path_);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return IoError("close", temp_path_);
    return Status::OK();
  }

  Status Commit() {
    if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      return IoError(StrCat("rename ", temp_path_, " to"), path_);
    }
    committed_ = true;
    return Status::OK();
  }

  // Removes whatever this file left on disk.
  void Remove() {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    std::remove(committed_ ? path_.c_str() : temp_path_.c_str());
    committed_ = false;
  }

  uint64_t size() const { return size_; }
  bool committed() const { return committed_; }

 private:
  Status WriteAll(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return IoError("write", temp_path_);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return Status::OK();
  }
  Status FlushBuffer() {
    Status s = WriteAll(buffer_);
    buffer_.clear();
    return s;
  }

  const std::string path_;
  const std::string temp_path_;
  int fd_ = -1;
  std::string buffer_;
  uint64_t size_ = 0;
  bool committed_ = false;
};

BundleWriter::BundleWriter(std::string prefix, Options options)
    : prefix_(std::move(prefix)), options_(options) {
  if (options_.num_shards < 1) {
    status_ =
        InvalidArgument("a checkpoint needs at least one data shard, got ", options_.num_shards);
  }
}

BundleWriter::~BundleWriter() {
  if (!finished_) RemoveTemporaryFiles();
}

void BundleWriter::RemoveTemporaryFiles() {
  for (auto& shard : shards_) shard->Remove();
}

Status BundleWriter::OpenShards() {
  if (!shards_.empty() || !status_.ok()) return status_;
  const size_t slash = prefix_.find_last_of('/');
  if (slash != std::string::npos) status_ = CreateDirectories(prefix_.substr(0, slash));
  for (int i = 0; status_.ok() && i < options_.num_shards; ++i) {
    shards_.push_back(
        std::make_unique<ShardFile>(bundle::DataFilename(prefix_, i, options_.num_shards)));
    status_ = shards_.back()->Open();
  }
  return status_;
}

Status BundleWriter::Add(const std::string& key, const Tensor& tensor) {
  return StatusFromExceptions("BundleWriter::Add", [&]() -> Status {
    if (finished_) return FailedPrecondition("BundleWriter for ", prefix_, " is finished");
    GRT_RETURN_IF_ERROR(status_);
    if (key.empty()) return InvalidArgument("the empty key is reserved for the checkpoint header");
    if (entries_.count(key) != 0) {
      return InvalidArgument("tensor '", key, "' is already in checkpoint ", prefix_);
    }
    const DataType dtype = tensor.dtype();
    if (!bundle::IsRawStoredType(dtype) && dtype != ::tensorflow::DT_STRING) {
      return InvalidArgument("tensor '", key, "' has dtype ", DataTypeString(dtype),
                             ", which graphrt cannot save in a checkpoint");
    }
    GRT_RETURN_IF_ERROR(OpenShards());

    ShardFile* shard = shards_[0].get();
    int shard_id = 0;
    for (int i = 1; i < static_cast<int>(shards_.size()); ++i) {
      if (shards_[i]->size() < shard->size()) {
        shard = shards_[i].get();
        shard_id = i;
      }
    }
    BundleEntryProto entry;
    entry.set_dtype(dtype);
    tensor.shape().AsProto(entry.mutable_shape());
    entry.set_shard_id(shard_id);
    entry.set_offset(static_cast<int64_t>(shard->size()));
    uint32_t crc;
    if (dtype == ::tensorflow::DT_STRING) {
      std::string bytes;
      crc = bundle::EncodeStringTensor(tensor.data<std::string>(), tensor.NumElements(), &bytes);
      entry.set_size(static_cast<int64_t>(bytes.size()));
      status_ = shard->Append(bytes);
    } else {
      const std::string_view bytes(static_cast<const char*>(tensor.raw_data()),
                                   tensor.TotalBytes());
      crc = crc32c::Value(bytes.data(), bytes.size());
      entry.set_size(static_cast<int64_t>(bytes.size()));
      status_ = shard->Append(bytes);
    }
    GRT_RETURN_IF_ERROR(status_);
    entry.set_crc32c(crc32c::Mask(crc));
    entries_[key] = std::move(entry);
    return Status::OK();
  });
}

Status BundleWriter::AddSlice(const std::string& full_name, const TensorShape& full_shape,
                              const ::tensorflow::TensorSliceProto& slice_proto,
                              const Tensor& slice_tensor) {
  return StatusFromExceptions("BundleWriter::AddSlice", [&]() -> Status {
    if (finished_) return FailedPrecondition("BundleWriter for ", prefix_, " is finished");
    GRT_RETURN_IF_ERROR(status_);
    if (full_name.empty()) {
      return InvalidArgument("the empty key is reserved for the checkpoint header");
    }
    StatusOr<TensorSlice> parsed = TensorSlice::FromProto(slice_proto);
    Status fits = parsed.ok() ? parsed->CheckFits(full_shape) : parsed.status();
    if (!fits.ok()) return InvalidArgument("slice of tensor '", full_name, "': ", fits.message());
    const TensorSlice& slice = *parsed;
    const TensorShape slice_shape = slice.SliceShape(full_shape);
    if (slice_tensor.shape() != slice_shape) {
      return InvalidArgument("slice ", slice.DebugString(), " of tensor '", full_name, "' ",
                             full_shape.DebugString(), " has shape ", slice_shape.DebugString(),
                             ", but the tensor given has shape ",
                             slice_tensor.shape().DebugString());
    }
    if (slice.CoversAll(full_shape)) return Add(full_name, slice_tensor);

    auto existing = entries_.find(full_name);
    if (existing != entries_.end()) {
      const BundleEntryProto& full = existing->second;
      if (full.slices_size() == 0) {
        return InvalidArgument("tensor '", full_name, "' is already in checkpoint ", prefix_,
                               " as a whole tensor");
      }
      if (full.dtype() != slice_tensor.dtype() ||
          *TensorShape::FromProto(full.shape()) != full_shape) {
        return InvalidArgument("slices of tensor '", full_name,
                               "' disagree on dtype or shape: ", DataTypeString(full.dtype()),
                               TensorShape::FromProto(full.shape())->DebugString(), " vs ",
                               DataTypeString(slice_tensor.dtype()), full_shape.DebugString());
      }
      for (const auto& other : full.slices()) {
        const TensorSlice other_slice = *TensorSlice::FromProto(other);
        if (other_slice.Overlaps(slice, full_shape)) {
          return InvalidArgument("slice ", slice.DebugString(), " of tensor '", full_name,
                                 "' overlaps slice ", other_slice.DebugString());
        }
      }
    }
    GRT_RETURN_IF_ERROR(Add(EncodeTensorNameSlice(full_name, slice), slice_tensor));
    BundleEntryProto& full = entries_[full_name];
    full.set_dtype(slice_tensor.dtype());
    full_shape.AsProto(full.mutable_shape());
    slice.AsProto(full.add_slices());
    return Status::OK();
  });
}

Status BundleWriter::Finish() {
  return StatusFromExceptions("BundleWriter::Finish", [&]() -> Status {
    if (finished_) return FailedPrecondition("BundleWriter for ", prefix_, " is finished");
    finished_ = true;
    Status s = OpenShards();
    for (auto& shard : shards_) {
      if (s.ok()) s = shard->Close();
    }
    for (auto& shard : shards_) {
      if (s.ok()) s = shard->Commit();
    }
    if (s.ok()) {
      ::tensorflow::BundleHeaderProto header;
      header.set_num_shards(options_.num_shards);
      header.set_endianness(bundle::HostIsLittleEndian() ? ::tensorflow::BundleHeaderProto::LITTLE
                                                         : ::tensorflow::BundleHeaderProto::BIG);
      header.mutable_version()->set_producer(bundle::kTensorBundleVersion);
      header.mutable_version()->set_min_consumer(bundle::kTensorBundleMinConsumer);
      table::TableBuilder builder;
      builder.Add(bundle::kHeaderEntryKey, header.SerializeAsString());
      for (const auto& [key, entry] : entries_) builder.Add(key, entry.SerializeAsString());
      shards_.push_back(std::make_unique<ShardFile>(bundle::IndexFilename(prefix_)));
      ShardFile* index = shards_.back().get();
      s = index->Open();
      if (s.ok()) s = index->Append(builder.Finish());
      if (s.ok()) s = index->Close();
      if (s.ok()) s = index->Commit();
    }
    if (!s.ok()) {
      RemoveTemporaryFiles();
      status_ = s;
    }
    return s;
  });
}

}  // namespace graphrt
