// Reads the members of a zip archive (PKWARE APPNOTE 6.3), as Python's zipfile writes them for a
// Keras `.keras` file:
//
//   [local header 30 B + name + extra][data] ...    one per member, data stored or deflated
//   [central directory header 46 B + name + extra + comment] ...
//   [zip64 end record, zip64 locator]                only past 65535 members or 4 GiB
//   [end of central directory 22 B + comment]        found by scanning back from the end
//
// The central directory is authoritative for sizes, CRC and offsets (a local header may hold
// zeros and a data descriptor instead); the local header gives only where the data starts. Every
// offset and length is checked against the file's size before it is used, declared sizes against
// ZipLimits before anything is allocated, and inflated data against its declared size and CRC-32.
// Errors name the archive and the member. Not supported (an error): encryption, multi-disk
// archives, methods other than stored (0) and deflate (8).
#ifndef GRAPHRT_FORMATS_KERAS_ZIP_ARCHIVE_H_
#define GRAPHRT_FORMATS_KERAS_ZIP_ARCHIVE_H_

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace graphrt {
namespace keras {

struct ZipLimits {
  // What one member may inflate to.
  int64_t max_member_bytes = int64_t{4} << 30;
  // Inflated size over stored size for one deflated member (deflate tops out near 1032:1).
  int64_t max_compression_ratio = 100;
  // Members in the central directory.
  int64_t max_members = 1 << 16;
};

struct ZipMember {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflate
  uint16_t flags = 0;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;  // uncompressed
  uint64_t local_header_offset = 0;
};

class ZipArchive {
 public:
  static StatusOr<std::unique_ptr<ZipArchive>> Open(const std::string& path,
                                                    const ZipLimits& limits = ZipLimits());

  const std::vector<ZipMember>& members() const { return members_; }
  // The member named `name`, or null.
  const ZipMember* Find(const std::string& name) const;
  // The member's bytes, inflated and checked against its size and CRC-32.
  StatusOr<std::string> Read(const ZipMember& member);
  const std::string& path() const { return path_; }

 private:
  ZipArchive(std::string path, ZipLimits limits) : path_(std::move(path)), limits_(limits) {}
  Status ReadCentralDirectory();
  // Reads `size` bytes at `offset`, which must lie inside the file.
  Status ReadAt(uint64_t offset, uint64_t size, std::string* out, const std::string& what);

  std::string path_;
  ZipLimits limits_;
  std::ifstream file_;
  uint64_t file_size_ = 0;
  std::vector<ZipMember> members_;
};

// True when the file starts with a zip local header ("PK\3\4"), as a .keras archive does.
bool LooksLikeZip(const std::string& path);

}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_ZIP_ARCHIVE_H_
