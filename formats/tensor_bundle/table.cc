#include "formats/tensor_bundle/table.h"

#include <snappy.h>

#include <algorithm>
#include <cassert>

#include "formats/file_util.h"
#include "formats/tensor_bundle/coding.h"
#include "formats/tensor_bundle/crc32c.h"

namespace graphrt {
namespace table {

// ---- Handles --------------------------------------------------------------------------------

void BlockHandle::EncodeTo(std::string* dst) const {
  bundle::PutVarint64(dst, offset);
  bundle::PutVarint64(dst, size);
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  return bundle::GetVarint64(input, &offset) && bundle::GetVarint64(input, &size);
}

// ---- Writing --------------------------------------------------------------------------------

BlockBuilder::BlockBuilder(int restart_interval)
    : restart_interval_(std::max(restart_interval, 1)) {
  restarts_.push_back(0);
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  finished_ = false;
  last_key_.clear();
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  return buffer_.size() + restarts_.size() * sizeof(uint32_t) + sizeof(uint32_t);
}

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  const size_t unshared = key.size() - shared;
  bundle::PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  bundle::PutVarint32(&buffer_, static_cast<uint32_t>(unshared));
  bundle::PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, unshared);
  buffer_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
}

std::string_view BlockBuilder::Finish() {
  for (uint32_t r : restarts_) bundle::PutFixed32(&buffer_, r);
  bundle::PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
  finished_ = true;
  return buffer_;
}

namespace {

// Shortens `*start` to a key k with start <= k < limit, where that is possible.
void ShortestSeparator(std::string* start, std::string_view limit) {
  const size_t min_length = std::min(start->size(), limit.size());
  size_t diff = 0;
  while (diff < min_length && (*start)[diff] == limit[diff]) ++diff;
  if (diff >= min_length) return;  // one is a prefix of the other
  const uint8_t byte = static_cast<uint8_t>((*start)[diff]);
  if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[diff])) {
    (*start)[diff] = static_cast<char>(byte + 1);
    start->resize(diff + 1);
  }
}

// Shortens `*key` to a short key >= it.
void ShortSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const uint8_t byte = static_cast<uint8_t>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
}

}  // namespace

TableBuilder::TableBuilder(const Options& options)
    : options_(options),
      data_block_(options.block_restart_interval),
      index_block_(/*restart_interval=*/1) {}

void TableBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  if (num_entries_ > 0) {
    assert(key > std::string_view(last_key_));
    // An entry of two blocks' worth starts a block of its own.
    if (key.size() + value.size() >= 2 * options_.block_size) Flush();
  }
  if (pending_index_entry_) {
    ShortestSeparator(&last_key_, key);
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  last_key_.assign(key.data(), key.size());
  ++num_entries_;
  data_block_.Add(key, value);
  if (data_block_.CurrentSizeEstimate() >= options_.block_size) Flush();
}

void TableBuilder::Flush() {
  if (data_block_.empty()) return;
  WriteBlock(&data_block_, &pending_handle_);
  pending_index_entry_ = true;
}

void TableBuilder::WriteBlock(BlockBuilder* block, BlockHandle* handle) {
  std::string_view raw = block->Finish();
  if (options_.compression == kSnappyCompression) {
    std::string compressed;
    snappy::Compress(raw.data(), raw.size(), &compressed);
    if (compressed.size() < raw.size() - raw.size() / 8) {
      WriteRawBlock(compressed, kSnappyCompression, handle);
      block->Reset();
      return;
    }
  }
  WriteRawBlock(raw, kNoCompression, handle);
  block->Reset();
}

void TableBuilder::WriteRawBlock(std::string_view contents, CompressionType type,
                                 BlockHandle* handle) {
  handle->offset = out_.size();
  handle->size = contents.size();
  out_.append(contents.data(), contents.size());
  const char type_byte = static_cast<char>(type);
  uint32_t crc = crc32c::Value(contents.data(), contents.size());
  crc = crc32c::Extend(crc, &type_byte, 1);
  out_.push_back(type_byte);
  bundle::PutFixed32(&out_, crc32c::Mask(crc));
}

std::string TableBuilder::Finish() {
  assert(!finished_);
  Flush();
  finished_ = true;
  BlockHandle metaindex_handle, index_handle;
  BlockBuilder metaindex(options_.block_restart_interval);
  WriteBlock(&metaindex, &metaindex_handle);
  if (pending_index_entry_) {
    ShortSuccessor(&last_key_);
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  WriteBlock(&index_block_, &index_handle);
  std::string footer;
  metaindex_handle.EncodeTo(&footer);
  index_handle.EncodeTo(&footer);
  footer.resize(2 * kMaxBlockHandleLength, '\0');
  bundle::PutFixed64(&footer, kTableMagicNumber);
  out_ += footer;
  return std::move(out_);
}

// ---- Reading --------------------------------------------------------------------------------

namespace {

class TableParser {
 public:
  TableParser(std::string_view file, const std::string& filename)
      : file_(file), filename_(filename) {}

  Status Parse(std::vector<Table::Entry>* entries, int* num_data_blocks,
               int* num_compressed_blocks);

 private:
  template <typename... Args>
  Status Corrupt(const Args&... args) const {
    return DataLoss(filename_, ": corrupt table: ", args...);
  }
  // Reads, checks and (if compressed) decompresses the block at `handle`.
  Status ReadBlock(const BlockHandle& handle, const char* what, std::string* contents,
                   bool* compressed);
  // Decodes a block's entries and checks its restart array.
  Status DecodeBlock(std::string_view contents, const BlockHandle& handle, const char* what,
                     std::vector<Table::Entry>* entries);

  std::string_view file_;
  const std::string& filename_;
};

Status TableParser::ReadBlock(const BlockHandle& handle, const char* what, std::string* contents,
                              bool* compressed) {
  // Blocks lie before the footer.
  const uint64_t limit = file_.size() - kFooterSize;
  if (handle.offset > limit || handle.size > limit - handle.offset ||
      kBlockTrailerSize > limit - handle.offset - handle.size) {
    return Corrupt(what, " block [", handle.offset, ", +", handle.size,
                   " bytes + trailer) lies outside the file's ", limit, " bytes of blocks");
  }
  const char* data = file_.data() + handle.offset;
  const size_t n = static_cast<size_t>(handle.size);
  const uint32_t stored = crc32c::Unmask(bundle::DecodeFixed32(data + n + 1));
  const uint32_t actual = crc32c::Value(data, n + 1);  // contents and type byte
  if (stored != actual) {
    return Corrupt("checksum mismatch in ", what, " block at offset ", handle.offset);
  }
  switch (static_cast<uint8_t>(data[n])) {
    case kNoCompression:
      contents->assign(data, n);
      *compressed = false;
      return Status::OK();
    case kSnappyCompression: {
      size_t length = 0;
      // Validating first means a hostile length header never drives the allocation.
      if (!snappy::IsValidCompressedBuffer(data, n) ||
          !snappy::GetUncompressedLength(data, n, &length)) {
        return Corrupt("bad Snappy data in ", what, " block at offset ", handle.offset);
      }
      contents->resize(length);
      if (!snappy::RawUncompress(data, n, contents->data())) {
        return Corrupt("bad Snappy data in ", what, " block at offset ", handle.offset);
      }
      *compressed = true;
      return Status::OK();
    }
    default:
      return Corrupt("unknown compression type ", static_cast<int>(static_cast<uint8_t>(data[n])),
                     " of ", what, " block at offset ", handle.offset);
  }
}

Status TableParser::DecodeBlock(std::string_view contents, const BlockHandle& handle,
                                const char* what, std::vector<Table::Entry>* entries) {
  auto bad = [&](const auto&... detail) {
    return Corrupt(what, " block at offset ", handle.offset, ": ", detail...);
  };
  if (contents.size() < sizeof(uint32_t)) return bad("shorter than its restart count");
  const uint64_t num_restarts = bundle::DecodeFixed32(contents.data() + contents.size() - 4);
  if (num_restarts > (contents.size() - 4) / 4) return bad(num_restarts, " restarts do not fit");
  const size_t restarts_at = contents.size() - 4 - 4 * num_restarts;

  std::string_view rest = contents.substr(0, restarts_at);
  std::string key;
  std::vector<uint32_t> restart_points;  // offsets of entries that share nothing
  const size_t first = entries->size();
  while (!rest.empty()) {
    const size_t entry_offset = restarts_at - rest.size();
    uint32_t shared, unshared, value_size;
    if (!bundle::GetVarint32(&rest, &shared) || !bundle::GetVarint32(&rest, &unshared) ||
        !bundle::GetVarint32(&rest, &value_size)) {
      return bad("bad entry header at ", entry_offset);
    }
    if (shared > key.size() || unshared > rest.size() || value_size > rest.size() - unshared) {
      return bad("entry at ", entry_offset, " overruns the block");
    }
    if (shared == 0) restart_points.push_back(static_cast<uint32_t>(entry_offset));
    key.resize(shared);
    key.append(rest.data(), unshared);
    if (entries->size() > first && !(key > entries->back().first)) {
      return bad("keys out of order at ", entry_offset);
    }
    entries->emplace_back(key, std::string(rest.substr(unshared, value_size)));
    rest.remove_prefix(unshared + value_size);
  }

  // Each restart names an entry that shares no bytes, in increasing order, the first one 0.
  const bool has_entries = entries->size() > first;
  if (has_entries && num_restarts == 0) return bad("entries but no restart points");
  uint32_t previous = 0;
  for (uint64_t i = 0; i < num_restarts; ++i) {
    const uint32_t r = bundle::DecodeFixed32(contents.data() + restarts_at + 4 * i);
    bool valid;
    if (!has_entries) {
      valid = r == 0;
    } else {
      valid = std::binary_search(restart_points.begin(), restart_points.end(), r) &&
              (i == 0 ? r == 0 : r > previous);
    }
    if (!valid) return bad("bad restart point ", r);
    previous = r;
  }
  return Status::OK();
}

Status TableParser::Parse(std::vector<Table::Entry>* entries, int* num_data_blocks,
                          int* num_compressed_blocks) {
  if (file_.size() < kFooterSize) {
    return DataLoss(filename_, ": too short to be a table (", file_.size(), " bytes, need ",
                    kFooterSize, ")");
  }
  const char* footer = file_.data() + file_.size() - kFooterSize;
  if (bundle::DecodeFixed64(footer + 2 * kMaxBlockHandleLength) != kTableMagicNumber) {
    return DataLoss(filename_, ": not a table (bad magic number)");
  }
  std::string_view handles(footer, 2 * kMaxBlockHandleLength);
  BlockHandle metaindex_handle, index_handle;
  if (!metaindex_handle.DecodeFrom(&handles) || !index_handle.DecodeFrom(&handles)) {
    return Corrupt("bad block handle in the footer");
  }
  // Writers encode varints minimally; accepting only that form means every footer byte is
  // either part of a handle or padding.
  std::string canonical;
  metaindex_handle.EncodeTo(&canonical);
  index_handle.EncodeTo(&canonical);
  if (std::string_view(footer, canonical.size()) != canonical) {
    return Corrupt("non-minimal block handle encoding in the footer");
  }

  // The metaindex holds nothing TensorFlow uses, but it is checked like every other block.
  std::string contents;
  bool compressed;
  std::vector<Table::Entry> index;
  GRT_RETURN_IF_ERROR(ReadBlock(metaindex_handle, "metaindex", &contents, &compressed));
  GRT_RETURN_IF_ERROR(DecodeBlock(contents, metaindex_handle, "metaindex", &index));
  index.clear();
  GRT_RETURN_IF_ERROR(ReadBlock(index_handle, "index", &contents, &compressed));
  GRT_RETURN_IF_ERROR(DecodeBlock(contents, index_handle, "index", &index));

  *num_data_blocks = 0;
  *num_compressed_blocks = 0;
  for (size_t b = 0; b < index.size(); ++b) {
    BlockHandle handle;
    std::string_view value = index[b].second;
    if (!handle.DecodeFrom(&value) || !value.empty()) {
      return Corrupt("bad block handle for index key #", b);
    }
    GRT_RETURN_IF_ERROR(ReadBlock(handle, "data", &contents, &compressed));
    const size_t before = entries->size();
    GRT_RETURN_IF_ERROR(DecodeBlock(contents, handle, "data", entries));
    ++*num_data_blocks;
    if (compressed) ++*num_compressed_blocks;
    if (entries->size() == before) return Corrupt("empty data block at offset ", handle.offset);
    // The block's keys lie after the previous block's and at or below its index key.
    if (before > 0 && !((*entries)[before].first > (*entries)[before - 1].first)) {
      return Corrupt("data block at offset ", handle.offset, " is out of order");
    }
    if (entries->back().first > index[b].first) {
      return Corrupt("data block at offset ", handle.offset, " has keys beyond its index key");
    }
    if (b > 0 && !((*entries)[before].first > index[b - 1].first)) {
      return Corrupt("data block at offset ", handle.offset,
                     " has keys before the previous index key");
    }
  }
  return Status::OK();
}

}  // namespace

StatusOr<Table> Table::Parse(std::string_view contents, const std::string& filename) {
  Table table;
  TableParser parser(contents, filename);
  GRT_RETURN_IF_ERROR(
      parser.Parse(&table.entries_, &table.num_data_blocks_, &table.num_compressed_blocks_));
  return table;
}

StatusOr<Table> Table::Open(const std::string& path) {
  GRT_ASSIGN_OR_RETURN(std::string contents, ReadFileToString(path));
  return Parse(contents, path);
}

const std::string* Table::Find(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, std::string_view k) { return e.first < k; });
  if (it == entries_.end() || it->first != key) return nullptr;
  return &it->second;
}

}  // namespace table
}  // namespace graphrt
