// The sorted string table of a checkpoint's `.index` file (LevelDB's table format, as
// TensorFlow's core/lib/io writes it):
//
//   file    = data_block* metaindex_block index_block footer
//   block   = contents | type: u8 (0 none, 1 snappy) | masked crc32c(contents ‖ type): fixed32
//   contents (uncompressed) = entry* | restart: fixed32 * num_restarts | num_restarts: fixed32
//   entry   = shared: varint32 | unshared: varint32 | value_size: varint32 |
//             key[shared, shared + unshared) | value
//             (the key shares its first `shared` bytes with the previous key; 0 at restarts)
//   index block: for each data block, a key >= its last key and < the next block's first key,
//             mapped to the block's handle; restart interval 1
//   metaindex block: always empty in TensorFlow's files
//   handle  = offset: varint64 | size: varint64          (size excludes the 5-byte trailer)
//   footer  = metaindex handle | index handle | zeros to 40 bytes | magic: fixed64
//             0xdb4775248b80fb57                          (48 bytes)
//
// Keys compare as unsigned bytes. TensorFlow writes 256 KiB blocks, restarts every 16 keys,
// no compression (older releases wrote Snappy blocks; both are read).
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_TABLE_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/status.h"

namespace graphrt {
namespace table {

enum CompressionType : uint8_t { kNoCompression = 0, kSnappyCompression = 1 };

inline constexpr size_t kBlockTrailerSize = 5;
inline constexpr size_t kMaxBlockHandleLength = 20;  // two varint64s
inline constexpr size_t kFooterSize = 2 * kMaxBlockHandleLength + 8;
inline constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;

struct Options {
  // Uncompressed bytes of entries after which a data block is closed.
  size_t block_size = 256 * 1024;
  int block_restart_interval = 16;
  // A Snappy block is kept only when it saves at least 1/8 of the bytes.
  CompressionType compression = kNoCompression;
};

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;

  void EncodeTo(std::string* dst) const;
  // Reads a handle from the front of `*input`; false if it is not one.
  bool DecodeFrom(std::string_view* input);
};

// The contents of one block, without the trailer.
class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval);

  // REQUIRES: key > every key added since the last Reset(); Finish() not called since.
  void Add(std::string_view key, std::string_view value);
  // Appends the restart array; the result stays valid until Reset().
  std::string_view Finish();
  void Reset();
  size_t CurrentSizeEstimate() const;
  bool empty() const { return buffer_.empty(); }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;
  bool finished_ = false;
  std::string last_key_;
};

// Builds a table in memory, block for block as TensorFlow's TableBuilder does, so the same
// entries and options give the same bytes.
class TableBuilder {
 public:
  explicit TableBuilder(const Options& options = Options());

  // REQUIRES: key > every key added before; Finish() not called.
  void Add(std::string_view key, std::string_view value);
  // The whole file. REQUIRES: not called before.
  std::string Finish();
  int64_t num_entries() const { return num_entries_; }

 private:
  void Flush();
  void WriteBlock(BlockBuilder* block, BlockHandle* handle);
  void WriteRawBlock(std::string_view contents, CompressionType type, BlockHandle* handle);

  Options options_;
  std::string out_;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  std::string last_key_;
  int64_t num_entries_ = 0;
  bool finished_ = false;
  // The index entry of a finished data block waits for the next key, so that its key can be a
  // short separator between the two blocks.
  bool pending_index_entry_ = false;
  BlockHandle pending_handle_;
};

// A whole table, read and checked when opened: every block's checksum, every block's entries
// and restart array, keys strictly increasing across blocks and consistent with the index.
// Errors are DATA_LOSS (NOT_FOUND for a missing file) and name the file.
class Table {
 public:
  using Entry = std::pair<std::string, std::string>;

  static StatusOr<Table> Open(const std::string& path);
  // `filename` names the table in errors.
  static StatusOr<Table> Parse(std::string_view contents, const std::string& filename);

  // Sorted by key.
  const std::vector<Entry>& entries() const { return entries_; }
  // The value of `key`, or null.
  const std::string* Find(std::string_view key) const;
  // Number of data blocks, and how many of them were Snappy-compressed.
  int num_data_blocks() const { return num_data_blocks_; }
  int num_compressed_blocks() const { return num_compressed_blocks_; }

 private:
  std::vector<Entry> entries_;
  int num_data_blocks_ = 0;
  int num_compressed_blocks_ = 0;
};

}  // namespace table
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_TABLE_H_
