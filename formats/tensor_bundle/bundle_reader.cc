#include "formats/tensor_bundle/bundle_reader.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "formats/file_util.h"
#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/coding.h"
#include "formats/tensor_bundle/crc32c.h"
#include "runtime/core/exception_barrier.h"
#include "saved_tensor_slice.pb.h"

namespace graphrt {

using ::tensorflow::BundleEntryProto;
using ::tensorflow::BundleHeaderProto;

struct BundleReader::DataRef {
  const MappedFile* file = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;
  int64_t num_elements = 0;
};

struct BundleReader::StoredSlice {
  TensorSlice slice;
  std::string key;
  BundleEntryProto entry;
};

namespace {

// Bytes checksummed per read when a file is read with pread rather than mapped.
constexpr size_t kVerifyChunkBytes = 8 << 20;
// Bytes copied and then checksummed at a time when reading a tensor (fits in L2).
constexpr size_t kCopyChunkBytes = 256 << 10;

// Whether `path` is a table whose header record is a V1 checkpoint's SavedTensorSlices.
bool IsV1Table(const std::string& path) {
  StatusOr<table::Table> t = table::Table::Open(path);
  if (!t.ok()) return false;
  const std::string* header = t->Find("");
  ::tensorflow::SavedTensorSlices sts;
  return header != nullptr && sts.ParseFromString(*header) && sts.has_meta();
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The first shard of a sharded V1 checkpoint, "PREFIX-00000-of-NNNNN", or "".
std::string FindV1Shard(const std::string& prefix) {
  const std::string dir = Dirname(prefix);
  const std::string want = Basename(prefix) + "-00000-of-";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return "";
  std::string found;
  while (const struct dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, want.c_str(), want.size()) == 0) {
      found = dir + "/" + e->d_name;
      break;
    }
  }
  ::closedir(d);
  return found;
}

Status V1Unimplemented(const std::string& path) {
  return Unimplemented(
      path,
      " is a V1 checkpoint (SavedTensorSlices), which graphrt does not read; restore it in "
      "TensorFlow and save it again in the V2 format (tf.compat.v1.train.Saver(write_version="
      "tf.compat.v1.train.SaverDef.V2))");
}

Status MissingIndex(const std::string& prefix) {
  const std::string index = bundle::IndexFilename(prefix);
  if (FileExists(prefix) && !IsDirectory(prefix)) {
    if (IsV1Table(prefix)) return V1Unimplemented(prefix);
    return NotFound("no checkpoint at ", prefix, ": ", index,
                    " does not exist, and the file at the prefix is not a V1 checkpoint");
  }
  const std::string v1_shard = FindV1Shard(prefix);
  if (!v1_shard.empty() && IsV1Table(v1_shard)) return V1Unimplemented(v1_shard);
  if (IsDirectory(prefix)) {
    return NotFound("no checkpoint at ", prefix, ": it is a directory (a checkpoint prefix names ",
                    "files: PREFIX.index and PREFIX.data-*; a SavedModel's is ",
                    "variables/variables)");
  }
  return NotFound("no checkpoint at ", prefix, ": ", index, " does not exist");
}

bool IsStorableType(DataType dtype) {
  return bundle::IsRawStoredType(dtype) || dtype == ::tensorflow::DT_STRING ||
         dtype == ::tensorflow::DT_VARIANT;
}

// Copies the elements that `src` (holding `src_slice` of a tensor of `full_shape`) shares with
// `*dst` (holding `dst_slice`).
void CopyIntersection(const Tensor& src, const TensorSlice& src_slice, Tensor* dst,
                      const TensorSlice& dst_slice, const TensorShape& full_shape) {
  const int rank = full_shape.dims();
  const bool is_string = src.dtype() == ::tensorflow::DT_STRING;
  const size_t elem = is_string ? 0 : static_cast<size_t>(DataTypeSize(src.dtype()));
  auto copy = [&](int64_t src_index, int64_t dst_index, int64_t count) {
    if (is_string) {
      const std::string* from = src.data<std::string>() + src_index;
      std::copy(from, from + count, dst->data<std::string>() + dst_index);
    } else {
      std::memcpy(static_cast<char*>(dst->raw_data()) + dst_index * elem,
                  static_cast<const char*>(src.raw_data()) + src_index * elem, count * elem);
    }
  };
  if (rank == 0) {
    copy(0, 0, 1);
    return;
  }
  std::vector<int64_t> lo(rank), hi(rank), src_stride(rank), dst_stride(rank);
  for (int d = 0; d < rank; ++d) {
    lo[d] = std::max(src_slice.start(d), dst_slice.start(d));
    hi[d] = std::min(src_slice.end(d, full_shape), dst_slice.end(d, full_shape));
    if (lo[d] >= hi[d]) return;
  }
  const TensorShape src_shape = src_slice.SliceShape(full_shape);
  const TensorShape dst_shape = dst_slice.SliceShape(full_shape);
  src_stride[rank - 1] = dst_stride[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) {
    src_stride[d] = src_stride[d + 1] * src_shape.dim_size(d + 1);
    dst_stride[d] = dst_stride[d + 1] * dst_shape.dim_size(d + 1);
  }
  // Walk the intersection's rows (all dims but the last) like an odometer.
  std::vector<int64_t> index(lo);
  const int64_t run = hi[rank - 1] - lo[rank - 1];
  while (true) {
    int64_t src_index = 0, dst_index = 0;
    for (int d = 0; d < rank; ++d) {
      src_index += (index[d] - src_slice.start(d)) * src_stride[d];
      dst_index += (index[d] - dst_slice.start(d)) * dst_stride[d];
    }
    copy(src_index, dst_index, run);
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < hi[d]) break;
      index[d] = lo[d];
    }
    if (d < 0) return;
  }
}

int64_t IntersectionSize(const TensorSlice& a, const TensorSlice& b, const TensorShape& shape) {
  int64_t n = 1;
  for (int d = 0; d < shape.dims(); ++d) {
    const int64_t lo = std::max(a.start(d), b.start(d));
    const int64_t hi = std::min(a.end(d, shape), b.end(d, shape));
    if (lo >= hi) return 0;
    n *= hi - lo;
  }
  return n;
}

}  // namespace

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(const std::string& prefix) {
  return Open(prefix, Options());
}

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(const std::string& prefix,
                                                           const Options& options) {
  return StatusFromExceptions(
      "BundleReader::Open", [&]() -> StatusOr<std::unique_ptr<BundleReader>> {
        const std::string index_path = bundle::IndexFilename(prefix);
        if (!FileExists(index_path)) return MissingIndex(prefix);
        std::unique_ptr<BundleReader> reader(new BundleReader());
        reader->prefix_ = prefix;
        reader->options_ = options;
        GRT_ASSIGN_OR_RETURN(reader->index_, table::Table::Open(index_path));

        const std::string* header = reader->index_.Find(bundle::kHeaderEntryKey);
        if (header == nullptr) {
          return DataLoss(index_path,
                          ": no header entry (the empty key); not a V2 checkpoint index");
        }
        BundleHeaderProto& h = reader->header_;
        const bool parsed = h.ParseFromString(*header);
        ::tensorflow::SavedTensorSlices v1;
        if ((!parsed || h.num_shards() == 0) && v1.ParseFromString(*header) && v1.has_meta()) {
          return V1Unimplemented(index_path);
        }
        if (!parsed) return DataLoss(index_path, ": the header entry does not parse");
        if (h.num_shards() <= 0) {
          return DataLoss(index_path, ": the header gives ", h.num_shards(), " data shards");
        }
        if (h.endianness() != BundleHeaderProto::LITTLE &&
            h.endianness() != BundleHeaderProto::BIG) {
          return DataLoss(index_path, ": the header gives an unknown byte order (",
                          static_cast<int>(h.endianness()), ")");
        }
        reader->swap_bytes_ =
            (h.endianness() == BundleHeaderProto::BIG) == bundle::HostIsLittleEndian();
        const auto& version = h.version();
        if (version.producer() < bundle::kTensorBundleMinProducer) {
          return InvalidArgument(index_path, ": checkpoint producer version ", version.producer(),
                                 " is below the minimum supported, ",
                                 bundle::kTensorBundleMinProducer);
        }
        if (version.min_consumer() > bundle::kTensorBundleVersion) {
          return InvalidArgument(index_path, ": the checkpoint needs a reader of version ",
                                 version.min_consumer(), " or newer; graphrt reads version ",
                                 bundle::kTensorBundleVersion);
        }
        for (int bad : version.bad_consumers()) {
          if (bad == bundle::kTensorBundleVersion) {
            return InvalidArgument(index_path, ": the checkpoint disallows readers of version ",
                                   bundle::kTensorBundleVersion);
          }
        }
        return reader;
      });
}

std::string BundleReader::index_path() const { return bundle::IndexFilename(prefix_); }

std::string BundleReader::DisplayKey(const std::string& key) {
  std::string name;
  TensorSlice slice;
  if (!key.empty() && key[0] == '\0' && DecodeTensorNameSlice(key, &name, &slice)) {
    return StrCat(name, "[", slice.DebugString(), "]");
  }
  return key;
}

std::vector<std::string> BundleReader::Keys() const {
  std::vector<std::string> keys;
  std::string name;
  TensorSlice slice;
  for (const auto& [key, value] : index_.entries()) {
    if (key.empty()) continue;
    if (key[0] == '\0' && DecodeTensorNameSlice(key, &name, &slice)) continue;
    keys.push_back(key);
  }
  return keys;
}

StatusOr<BundleEntryProto> BundleReader::Entry(const std::string& key) const {
  const std::string* value = key.empty() ? nullptr : index_.Find(key);
  if (value == nullptr) {
    return NotFound("tensor '", DisplayKey(key), "' not found in checkpoint ", prefix_);
  }
  BundleEntryProto entry;
  if (!entry.ParseFromString(*value)) {
    return DataLoss(index_path(), ": the entry of tensor '", DisplayKey(key), "' does not parse");
  }
  if (!IsStorableType(entry.dtype())) {
    return DataLoss(index_path(), ": tensor '", DisplayKey(key), "' has dtype ",
                    DataTypeString(entry.dtype()), ", which a checkpoint cannot hold");
  }
  StatusOr<TensorShape> shape = TensorShape::FromProto(entry.shape());
  if (!shape.ok()) {
    return DataLoss(index_path(), ": tensor '", DisplayKey(key),
                    "' has a bad shape: ", shape.status().message());
  }
  for (const auto& proto : entry.slices()) {
    StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
    Status s = slice.ok() ? slice->CheckFits(*shape) : slice.status();
    if (!s.ok()) {
      return DataLoss(index_path(), ": partitioned tensor '", DisplayKey(key),
                      "' has a bad slice: ", s.message());
    }
  }
  return entry;
}

StatusOr<const MappedFile*> BundleReader::Shard(int shard_id, const std::string& key) {
  std::lock_guard<std::mutex> lock(shards_mu_);
  auto it = shards_.find(shard_id);
  if (it != shards_.end()) return it->second.get();
  const std::string path = bundle::DataFilename(prefix_, shard_id, num_shards());
  StatusOr<std::unique_ptr<MappedFile>> file = MappedFile::Open(path, options_.use_mmap);
  if (!file.ok()) {
    if (file.status().code() == Code::kNotFound) {
      return NotFound("data file ", path, " is missing (checkpoint ", prefix_,
                      "; needed for tensor '", DisplayKey(key), "')");
    }
    return file.status();
  }
  const MappedFile* result = file->get();
  shards_[shard_id] = std::move(file).value();
  return result;
}

StatusOr<BundleReader::DataRef> BundleReader::Locate(const std::string& key,
                                                     const BundleEntryProto& entry) {
  const std::string name = DisplayKey(key);
  if (entry.shard_id() < 0 || entry.shard_id() >= num_shards()) {
    return DataLoss(index_path(), ": tensor '", name, "' is in shard ", entry.shard_id(), " of ",
                    num_shards());
  }
  if (entry.offset() < 0 || entry.size() < 0) {
    return DataLoss(index_path(), ": tensor '", name, "' has offset ", entry.offset(), " and size ",
                    entry.size());
  }
  DataRef ref;
  ref.offset = static_cast<uint64_t>(entry.offset());
  ref.size = static_cast<uint64_t>(entry.size());
  ref.num_elements = TensorShape::FromProto(entry.shape())->num_elements();  // checked by Entry
  const uint64_t n = static_cast<uint64_t>(ref.num_elements);
  const DataType dtype = entry.dtype();
  if (bundle::IsRawStoredType(dtype)) {
    const uint64_t elem = static_cast<uint64_t>(DataTypeSize(dtype));
    if (n > std::numeric_limits<uint64_t>::max() / elem || n * elem != ref.size) {
      return DataLoss(index_path(), ": tensor '", name, "' has ", ref.size, " bytes, but ",
                      DataTypeString(dtype), TensorShape::FromProto(entry.shape())->DebugString(),
                      " needs ", n, " x ", elem);
    }
  } else if (!(n == 0 && ref.size == 0)) {
    // Strings need at least a 1-byte length each and the 4-byte length checksum; variants a
    // 1-byte length and a 4-byte checksum each.
    const uint64_t per_element = dtype == ::tensorflow::DT_STRING ? 1 : 5;
    const uint64_t fixed = dtype == ::tensorflow::DT_STRING ? 4 : 0;
    if (ref.size < fixed || (ref.size - fixed) / per_element < n) {
      return DataLoss(index_path(), ": tensor '", name, "' has ", ref.size, " bytes, too few for ",
                      n, " ", DataTypeString(dtype), " elements");
    }
  }
  GRT_ASSIGN_OR_RETURN(ref.file, Shard(entry.shard_id(), key));
  if (ref.offset > ref.file->size() || ref.size > ref.file->size() - ref.offset) {
    return DataLoss(ref.file->path(), ": tensor '", name, "' needs bytes [", ref.offset, ", ",
                    ref.offset + ref.size, ") but the file has ", ref.file->size(),
                    " (truncated?)");
  }
  return ref;
}

StatusOr<Tensor> BundleReader::ReadStored(const std::string& key, const BundleEntryProto& entry) {
  GRT_ASSIGN_OR_RETURN(DataRef ref, Locate(key, entry));
  const DataType dtype = entry.dtype();
  if (dtype == ::tensorflow::DT_VARIANT) {
    return Unimplemented("tensor '", DisplayKey(key), "' in checkpoint ", prefix_,
                         " is a variant tensor, which graphrt does not read");
  }
  GRT_ASSIGN_OR_RETURN(Tensor tensor,
                       Tensor::Allocate(dtype, *TensorShape::FromProto(entry.shape())));
  uint32_t crc;
  if (dtype == ::tensorflow::DT_STRING) {
    std::string scratch;
    GRT_ASSIGN_OR_RETURN(std::string_view bytes, ref.file->Read(ref.offset, ref.size, &scratch));
    Status s = bundle::DecodeStringTensor(bytes, ref.num_elements, swap_bytes_,
                                          tensor.data<std::string>(), &crc);
    if (!s.ok()) {
      return Status(s.code(),
                    StrCat(ref.file->path(), ": tensor '", DisplayKey(key), "': ", s.message()));
    }
  } else {
    char* data = static_cast<char*>(tensor.raw_data());
    // The checksum is of the bytes as stored, so it is taken before any swap, and of the copy,
    // so that what is checked is what is returned; chunk by chunk, while the chunk is in cache.
    crc = 0;
    for (uint64_t done = 0; done < ref.size;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kCopyChunkBytes, ref.size - done));
      GRT_RETURN_IF_ERROR(ref.file->ReadInto(ref.offset + done, n, data + done));
      crc = crc32c::Extend(crc, data + done, n);
      done += n;
    }
    if (swap_bytes_) bundle::ByteSwap(data, ref.size, bundle::ByteSwapUnit(dtype));
  }
  if (crc != crc32c::Unmask(entry.crc32c())) {
    return DataLoss(ref.file->path(), ": checksum mismatch for tensor '", DisplayKey(key),
                    "' (bytes [", ref.offset, ", ", ref.offset + ref.size, "): stored ",
                    crc32c::Unmask(entry.crc32c()), ", computed ", crc, ")");
  }
  return tensor;
}

Status BundleReader::VerifyStored(const std::string& key, const BundleEntryProto& entry) {
  GRT_ASSIGN_OR_RETURN(DataRef ref, Locate(key, entry));
  const DataType dtype = entry.dtype();
  uint32_t crc = 0;
  std::string scratch;
  auto fail = [&](const Status& s) {
    return Status(s.code(),
                  StrCat(ref.file->path(), ": tensor '", DisplayKey(key), "': ", s.message()));
  };
  if (dtype == ::tensorflow::DT_STRING) {
    GRT_ASSIGN_OR_RETURN(std::string_view bytes, ref.file->Read(ref.offset, ref.size, &scratch));
    Status s = bundle::DecodeStringTensor(bytes, ref.num_elements, swap_bytes_, nullptr, &crc);
    if (!s.ok()) return fail(s);
  } else if (dtype == ::tensorflow::DT_VARIANT) {
    // Per element: varint64 length | bytes | fixed32 masked running crc (the running crc takes
    // the length as a fixed64 and each earlier checksum's 4 bytes).
    GRT_ASSIGN_OR_RETURN(std::string_view rest, ref.file->Read(ref.offset, ref.size, &scratch));
    const bool big_endian = bundle::HostIsLittleEndian() == swap_bytes_;
    for (int64_t i = 0; i < ref.num_elements; ++i) {
      uint64_t length;
      if (!bundle::GetVarint64(&rest, &length) || length > rest.size() ||
          rest.size() - length < 4) {
        return fail(DataLoss("variant element ", i, " overruns the entry"));
      }
      char len_bytes[8];
      for (int b = 0; b < 8; ++b) {
        len_bytes[b] = static_cast<char>(length >> (8 * (big_endian ? 7 - b : b)));
      }
      crc = crc32c::Extend(crc, len_bytes, 8);
      crc = crc32c::Extend(crc, rest.data(), length);
      rest.remove_prefix(length);
      uint32_t stored = 0;
      for (int b = 0; b < 4; ++b) {
        stored |= static_cast<uint32_t>(static_cast<uint8_t>(rest[b]))
                  << (8 * (big_endian ? 3 - b : b));
      }
      if (crc32c::Unmask(stored) != crc) {
        return fail(DataLoss("checksum mismatch after variant element ", i));
      }
      crc = crc32c::Extend(crc, rest.data(), 4);
      rest.remove_prefix(4);
    }
    if (!rest.empty()) return fail(DataLoss(rest.size(), " bytes follow the last variant"));
  } else {
    for (uint64_t done = 0; done < ref.size;) {
      const size_t n =
          ref.file->is_mapped()
              ? static_cast<size_t>(ref.size)
              : static_cast<size_t>(std::min<uint64_t>(kVerifyChunkBytes, ref.size - done));
      GRT_ASSIGN_OR_RETURN(std::string_view bytes, ref.file->Read(ref.offset + done, n, &scratch));
      crc = crc32c::Extend(crc, bytes.data(), bytes.size());
      done += n;
    }
  }
  if (crc != crc32c::Unmask(entry.crc32c())) {
    return DataLoss(ref.file->path(), ": checksum mismatch for tensor '", DisplayKey(key),
                    "' (bytes [", ref.offset, ", ", ref.offset + ref.size, "): stored ",
                    crc32c::Unmask(entry.crc32c()), ", computed ", crc, ")");
  }
  return Status::OK();
}

StatusOr<std::vector<BundleReader::StoredSlice>> BundleReader::SlicesFor(
    const std::string& key, const BundleEntryProto& entry, const TensorSlice& want,
    bool reading_all) {
  const TensorShape full_shape = *TensorShape::FromProto(entry.shape());
  std::vector<TensorSlice> stored;
  for (const auto& proto : entry.slices()) stored.push_back(*TensorSlice::FromProto(proto));
  for (size_t i = 0; i < stored.size(); ++i) {
    for (size_t j = i + 1; j < stored.size(); ++j) {
      if (stored[i].Overlaps(stored[j], full_shape)) {
        return DataLoss(index_path(), ": slices ", stored[i].DebugString(), " and ",
                        stored[j].DebugString(), " of partitioned tensor '", key, "' overlap");
      }
    }
  }
  std::vector<StoredSlice> result;
  int64_t covered = 0;
  for (const TensorSlice& slice : stored) {
    const int64_t shared = IntersectionSize(slice, want, full_shape);
    if (shared == 0) continue;
    StoredSlice s;
    s.slice = slice;
    s.key = EncodeTensorNameSlice(key, slice);
    StatusOr<BundleEntryProto> slice_entry = Entry(s.key);
    if (!slice_entry.ok()) {
      if (slice_entry.status().code() != Code::kNotFound) return slice_entry.status();
      return DataLoss(index_path(), ": slice ", slice.DebugString(), " of partitioned tensor '",
                      key, "' has no entry");
    }
    s.entry = std::move(slice_entry).value();
    const TensorShape slice_shape = slice.SliceShape(full_shape);
    if (s.entry.slices_size() > 0 || s.entry.dtype() != entry.dtype() ||
        *TensorShape::FromProto(s.entry.shape()) != slice_shape) {
      return DataLoss(index_path(), ": the entry of slice ", slice.DebugString(),
                      " of partitioned tensor '", key, "' is not a ", DataTypeString(entry.dtype()),
                      slice_shape.DebugString(), " tensor");
    }
    // Checks that the bytes exist before anything is allocated for them.
    GRT_RETURN_IF_ERROR(Locate(s.key, s.entry).status());
    covered += shared;
    result.push_back(std::move(s));
  }
  const int64_t needed = want.SliceShape(full_shape).num_elements();
  if (covered != needed) {
    if (reading_all) {
      return DataLoss(index_path(), ": the slices of partitioned tensor '", key, "' cover ",
                      covered, " of its ", needed, " elements");
    }
    return InvalidArgument("the slices of partitioned tensor '", key, "' in checkpoint ", prefix_,
                           " do not cover slice ", want.DebugString());
  }
  return result;
}

StatusOr<Tensor> BundleReader::Read(const std::string& key) {
  return StatusFromExceptions("BundleReader::Read", [&]() -> StatusOr<Tensor> {
    GRT_ASSIGN_OR_RETURN(BundleEntryProto entry, Entry(key));
    if (entry.slices_size() == 0) return ReadStored(key, entry);
    return ReadSlice(key, TensorSlice(entry.shape().dim_size()));
  });
}

StatusOr<Tensor> BundleReader::ReadSlice(const std::string& key, const TensorSlice& want) {
  return StatusFromExceptions("BundleReader::ReadSlice", [&]() -> StatusOr<Tensor> {
    GRT_ASSIGN_OR_RETURN(BundleEntryProto entry, Entry(key));
    const TensorShape full_shape = *TensorShape::FromProto(entry.shape());
    Status fits = want.CheckFits(full_shape);
    if (!fits.ok()) {
      return InvalidArgument("reading tensor '", key, "' of checkpoint ", prefix_, ": ",
                             fits.message());
    }
    if (entry.slices_size() == 0) {
      GRT_ASSIGN_OR_RETURN(Tensor full, ReadStored(key, entry));
      if (want.CoversAll(full_shape)) return full;
      GRT_ASSIGN_OR_RETURN(Tensor part,
                           Tensor::Allocate(entry.dtype(), want.SliceShape(full_shape)));
      if (part.NumElements() > 0) {
        CopyIntersection(full, TensorSlice(full_shape.dims()), &part, want, full_shape);
      }
      return part;
    }
    GRT_ASSIGN_OR_RETURN(std::vector<StoredSlice> slices,
                         SlicesFor(key, entry, want, /*reading_all=*/want.CoversAll(full_shape)));
    GRT_ASSIGN_OR_RETURN(Tensor result,
                         Tensor::Allocate(entry.dtype(), want.SliceShape(full_shape)));
    for (const StoredSlice& s : slices) {
      GRT_ASSIGN_OR_RETURN(Tensor part, ReadStored(s.key, s.entry));
      CopyIntersection(part, s.slice, &result, want, full_shape);
    }
    return result;
  });
}

Status BundleReader::VerifyAll(std::string* failing_tensor) {
  return StatusFromExceptions("BundleReader::VerifyAll", [&]() -> Status {
    if (failing_tensor != nullptr) failing_tensor->clear();
    for (const auto& [key, value] : index_.entries()) {
      if (key.empty()) continue;
      Status s;
      StatusOr<BundleEntryProto> entry = Entry(key);
      if (!entry.ok()) {
        s = entry.status();
      } else if (entry->slices_size() > 0) {
        s = SlicesFor(key, *entry, TensorSlice(entry->shape().dim_size()), /*reading_all=*/true)
                .status();
      } else {
        s = VerifyStored(key, *entry);
      }
      if (!s.ok()) {
        if (failing_tensor != nullptr) *failing_tensor = DisplayKey(key);
        return s;
      }
    }
    return Status::OK();
  });
}

}  // namespace graphrt
