// Makes a mutated checkpoint consistent with its own checksums, so that the fuzzer's mutations
// reach the code behind them (entry parsing, shapes, slices, tensor decoding) instead of
// stopping at "checksum mismatch". Used by the tensor_bundle and saved_model targets.
#ifndef GRAPHRT_TESTS_FUZZ_BUNDLE_FIXUP_H_
#define GRAPHRT_TESTS_FUZZ_BUNDLE_FIXUP_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/coding.h"
#include "formats/tensor_bundle/crc32c.h"
#include "formats/tensor_bundle/table.h"
#include "tensor_bundle.pb.h"

namespace graphrt {
namespace fuzzing {

// Rewrites the trailer crc of the block at `handle` when the block lies inside `file`.
inline void FixBlockChecksum(const table::BlockHandle& handle, std::string* file) {
  if (handle.offset > file->size() || handle.size > file->size() - handle.offset ||
      file->size() - handle.offset - handle.size < table::kBlockTrailerSize) {
    return;
  }
  char* block = file->data() + handle.offset;
  const uint32_t crc = crc32c::Value(block, handle.size + 1);  // contents and type byte
  bundle::EncodeFixed32(block + handle.size + 1, crc32c::Mask(crc));
}

// Recomputes the checksums of the index block, the metaindex block and every data block the
// index block points at (table.h's layout), leaving everything else as the fuzzer made it.
inline void FixTableChecksums(std::string* file) {
  if (file->size() < table::kFooterSize) return;
  std::string_view footer(file->data() + file->size() - table::kFooterSize, table::kFooterSize);
  table::BlockHandle metaindex, index;
  if (!metaindex.DecodeFrom(&footer) || !index.DecodeFrom(&footer)) return;
  FixBlockChecksum(metaindex, file);
  FixBlockChecksum(index, file);
  if (index.offset > file->size() || index.size > file->size() - index.offset || index.size < 4) {
    return;
  }
  // The index block's entries map keys to data block handles; restart interval 1, so no key
  // prefix sharing matters here: only the values are read.
  std::string_view block(file->data() + index.offset, index.size);
  const uint32_t num_restarts = bundle::DecodeFixed32(block.data() + block.size() - 4);
  if (num_restarts > (block.size() - 4) / 4) return;
  std::string_view entries = block.substr(0, block.size() - 4 - 4 * num_restarts);
  while (!entries.empty()) {
    uint32_t shared, unshared, value_size;
    if (!bundle::GetVarint32(&entries, &shared) || !bundle::GetVarint32(&entries, &unshared) ||
        !bundle::GetVarint32(&entries, &value_size) || unshared > entries.size() ||
        value_size > entries.size() - unshared) {
      return;
    }
    std::string_view value = entries.substr(unshared, value_size);
    entries.remove_prefix(unshared + value_size);
    table::BlockHandle data_block;
    if (data_block.DecodeFrom(&value)) FixBlockChecksum(data_block, file);
  }
}

// The entry's crc32c recomputed from the shard bytes it points at (numeric and string tensors
// of shard 0 whose bytes lie inside `shard`); false when nothing was changed.
inline bool FixEntryChecksum(const std::string& shard, ::tensorflow::BundleEntryProto* entry) {
  if (entry->shard_id() != 0 || entry->slices_size() > 0 || entry->offset() < 0 ||
      entry->size() < 0 || static_cast<uint64_t>(entry->offset()) > shard.size() ||
      static_cast<uint64_t>(entry->size()) > shard.size() - entry->offset()) {
    return false;
  }
  std::string_view bytes(shard.data() + entry->offset(), entry->size());
  uint32_t crc = 0;
  if (entry->dtype() == ::tensorflow::DT_STRING) {
    int64_t n = 1;
    for (const auto& dim : entry->shape().dim()) {
      if (dim.size() < 0 || dim.size() > (1 << 20) || n * dim.size() > (1 << 20)) return false;
      n *= dim.size();
    }
    if (!bundle::DecodeStringTensor(bytes, n, false, nullptr, &crc).ok()) return false;
  } else {
    crc = crc32c::Value(bytes.data(), bytes.size());
  }
  entry->set_crc32c(crc32c::Mask(crc));
  return true;
}

// FixTableChecksums, then, when the table parses, every entry's data checksum (FixEntryChecksum)
// and the table rebuilt around the fixed entries.
inline void FixCheckpoint(const std::string& shard, std::string* index) {
  FixTableChecksums(index);
  StatusOr<table::Table> parsed = table::Table::Parse(*index, "fuzz.index");
  if (!parsed.ok()) return;
  table::TableBuilder builder;
  for (const auto& [key, value] : parsed.value().entries()) {
    ::tensorflow::BundleEntryProto entry;
    if (!key.empty() && entry.ParseFromString(value) && FixEntryChecksum(shard, &entry)) {
      builder.Add(key, entry.SerializeAsString());
    } else {
      builder.Add(key, value);
    }
  }
  *index = builder.Finish();
}

}  // namespace fuzzing
}  // namespace graphrt

#endif  // GRAPHRT_TESTS_FUZZ_BUNDLE_FIXUP_H_
