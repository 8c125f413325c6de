// A read-only file for random access: mapped into memory where mmap works (so large tensors are
// checksummed and copied straight from the page cache), read with pread otherwise.
//
// The file must not shrink while it is open: a read of a mapped page past the new end raises
// SIGBUS. Checkpoints are written under temporary names and renamed, so a live one never does.
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_MAPPED_FILE_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/core/status.h"

namespace graphrt {

class MappedFile {
 public:
  // NOT_FOUND when the file is missing. With `use_mmap` false, or where mmap fails, reads go
  // through pread.
  static StatusOr<std::unique_ptr<MappedFile>> Open(const std::string& path, bool use_mmap = true);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  bool is_mapped() const { return mapping_ != nullptr; }

  // Bytes [offset, offset + n): a view of the mapping, or of `*scratch` after reading into it.
  // DATA_LOSS when the range is not inside the file.
  StatusOr<std::string_view> Read(uint64_t offset, size_t n, std::string* scratch) const;
  // Copies bytes [offset, offset + n) to `dst`.
  Status ReadInto(uint64_t offset, size_t n, char* dst) const;

 private:
  MappedFile() = default;
  Status CheckRange(uint64_t offset, size_t n) const;

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  const char* mapping_ = nullptr;
};

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_MAPPED_FILE_H_
