#include "formats/keras/zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <system_error>

#include "formats/tensor_bundle/coding.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {

namespace {

using bundle::DecodeFixed32;
using bundle::DecodeFixed64;

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kZip64EndSize = 56;
constexpr uint64_t kMaxComment = 0xffff;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;

uint16_t DecodeFixed16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | (static_cast<uint8_t>(p[1]) << 8));
}

// A member name that could escape the folder it is extracted to, or that names no file.
bool UnsafeName(const std::string& name) {
  if (name.empty() || name[0] == '/' || name[0] == '\\' || name.find('\0') != std::string::npos) {
    return true;
  }
  if (name.size() >= 2 && name[1] == ':') return true;  // "C:..."
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("/\\", start);
    if (end == std::string::npos) end = name.size();
    if (name.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

// Replaces the 0xffffffff fields of a central header with the zip64 extra field's values, which
// come in this order, each present only when its field is saturated.
Status ApplyZip64Extra(const std::string& extra, ZipMember* m, const std::string& where) {
  size_t pos = 0;
  while (pos + 4 <= extra.size()) {
    uint16_t id = DecodeFixed16(extra.data() + pos);
    uint16_t size = DecodeFixed16(extra.data() + pos + 2);
    if (pos + 4 + size > extra.size()) break;
    if (id == kZip64ExtraId) {
      const char* p = extra.data() + pos + 4;
      size_t left = size;
      for (uint64_t* field : {&m->size, &m->compressed_size, &m->local_header_offset}) {
        if (*field != 0xffffffffu) continue;
        if (left < 8) return DataLoss(where, ": truncated zip64 extra field");
        *field = DecodeFixed64(p);
        p += 8;
        left -= 8;
      }
      return Status::OK();
    }
    pos += 4 + size;
  }
  if (m->size == 0xffffffffu || m->compressed_size == 0xffffffffu ||
      m->local_header_offset == 0xffffffffu) {
    return DataLoss(where, ": saturated sizes but no zip64 extra field");
  }
  return Status::OK();
}

}  // namespace

bool LooksLikeZip(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4];
  return in.read(magic, 4) && DecodeFixed32(magic) == kLocalHeaderSignature;
}

StatusOr<std::unique_ptr<ZipArchive>> ZipArchive::Open(const std::string& path,
                                                       const ZipLimits& limits) {
  if (limits.max_member_bytes < 0 || limits.max_compression_ratio < 1 || limits.max_members < 0) {
    return InvalidArgument("ZipLimits: negative or zero limits reading ", path);
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("no such file: ", path);
  if (!std::filesystem::is_regular_file(path, ec)) {
    return InvalidArgument("not a regular file: ", path);
  }
  std::unique_ptr<ZipArchive> zip(new ZipArchive(path, limits));
  zip->file_size_ = std::filesystem::file_size(path, ec);
  if (ec) return InvalidArgument("cannot read the size of ", path, ": ", ec.message());
  zip->file_.open(path, std::ios::binary);
  if (!zip->file_) return NotFound("cannot open ", path);
  GRT_RETURN_IF_ERROR(zip->ReadCentralDirectory());
  return zip;
}

Status ZipArchive::ReadAt(uint64_t offset, uint64_t size, std::string* out,
                          const std::string& what) {
  if (offset > file_size_ || size > file_size_ - offset) {
    return DataLoss(path_, ": ", what, " lies past the end of the file (offset ", offset, ", ",
                    size, " bytes, file of ", file_size_, " bytes): truncated or corrupt zip");
  }
  out->resize(static_cast<size_t>(size));
  file_.clear();
  file_.seekg(static_cast<std::streamoff>(offset));
  if (size > 0 && !file_.read(out->data(), static_cast<std::streamsize>(size))) {
    return DataLoss(path_, ": cannot read ", what);
  }
  return Status::OK();
}

Status ZipArchive::ReadCentralDirectory() {
  // The end record sits in the last 22 + 65535 bytes; the last signature whose comment length
  // reaches exactly the end of the file is it.
  const uint64_t tail_size = std::min<uint64_t>(file_size_, kEndSize + kMaxComment);
  if (file_size_ < kEndSize) {
    return DataLoss(path_, ": not a zip archive (", file_size_, " bytes, no end record)");
  }
  std::string tail;
  GRT_RETURN_IF_ERROR(ReadAt(file_size_ - tail_size, tail_size, &tail, "the end record"));
  int64_t found = -1;
  for (int64_t i = static_cast<int64_t>(tail.size() - kEndSize); i >= 0; --i) {
    const char* p = tail.data() + i;
    if (DecodeFixed32(p) == kEndSignature &&
        static_cast<uint64_t>(i) + kEndSize + DecodeFixed16(p + 20) == tail.size()) {
      found = i;
      break;
    }
  }
  if (found < 0) {
    return DataLoss(path_, ": no zip end-of-central-directory record (truncated or not a zip)");
  }
  const char* end = tail.data() + found;
  const uint64_t end_offset = file_size_ - tail_size + static_cast<uint64_t>(found);
  uint64_t disk = DecodeFixed16(end + 4), cd_disk = DecodeFixed16(end + 6);
  uint64_t count = DecodeFixed16(end + 10);
  uint64_t cd_size = DecodeFixed32(end + 12), cd_offset = DecodeFixed32(end + 16);
  if (count == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
    if (end_offset < kZip64LocatorSize) return DataLoss(path_, ": no zip64 locator");
    std::string locator;
    GRT_RETURN_IF_ERROR(
        ReadAt(end_offset - kZip64LocatorSize, kZip64LocatorSize, &locator, "the zip64 locator"));
    if (DecodeFixed32(locator.data()) != kZip64LocatorSignature) {
      return DataLoss(path_, ": no zip64 locator before the end record");
    }
    std::string end64;
    GRT_RETURN_IF_ERROR(
        ReadAt(DecodeFixed64(locator.data() + 8), kZip64EndSize, &end64, "the zip64 end record"));
    if (DecodeFixed32(end64.data()) != kZip64EndSignature) {
      return DataLoss(path_, ": bad zip64 end record signature");
    }
    disk = DecodeFixed32(end64.data() + 16);
    cd_disk = DecodeFixed32(end64.data() + 20);
    count = DecodeFixed64(end64.data() + 32);
    cd_size = DecodeFixed64(end64.data() + 40);
    cd_offset = DecodeFixed64(end64.data() + 48);
  }
  if (disk != 0 || cd_disk != 0) {
    return Unimplemented(path_, ": a multi-disk (split) zip archive");
  }
  if (count > static_cast<uint64_t>(limits_.max_members)) {
    return ResourceExhausted(path_, ": the zip claims ", count, " members, more than ",
                             limits_.max_members, " (ZipLimits::max_members)");
  }
  // Each entry takes at least 46 bytes: a count the directory cannot hold is corrupt.
  if (count > cd_size / kCentralHeaderSize + 1) {
    return DataLoss(path_, ": the zip claims ", count, " members in a central directory of ",
                    cd_size, " bytes");
  }
  std::string cd;
  GRT_RETURN_IF_ERROR(ReadAt(cd_offset, cd_size, &cd, "the central directory"));
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string where = StrCat(path_, ": central directory entry ", i);
    if (pos + kCentralHeaderSize > cd.size()) return DataLoss(where, " is truncated");
    const char* p = cd.data() + pos;
    if (DecodeFixed32(p) != kCentralHeaderSignature) {
      return DataLoss(where, " has a bad signature (corrupt zip)");
    }
    ZipMember m;
    m.flags = DecodeFixed16(p + 8);
    m.method = DecodeFixed16(p + 10);
    m.crc32 = DecodeFixed32(p + 16);
    m.compressed_size = DecodeFixed32(p + 20);
    m.size = DecodeFixed32(p + 24);
    const size_t name_len = DecodeFixed16(p + 28);
    const size_t extra_len = DecodeFixed16(p + 30);
    const size_t comment_len = DecodeFixed16(p + 32);
    m.local_header_offset = DecodeFixed32(p + 42);
    const size_t entry_size = kCentralHeaderSize + name_len + extra_len + comment_len;
    if (pos + entry_size > cd.size()) return DataLoss(where, " runs past the central directory");
    m.name.assign(p + kCentralHeaderSize, name_len);
    GRT_RETURN_IF_ERROR(ApplyZip64Extra(cd.substr(pos + kCentralHeaderSize + name_len, extra_len),
                                        &m, StrCat(path_, ": member '", m.name, "'")));
    if (UnsafeName(m.name)) {
      return InvalidArgument(path_, ": member '", m.name,
                             "' has an unsafe path (absolute, or with '..')");
    }
    members_.push_back(std::move(m));
    pos += entry_size;
  }
  return Status::OK();
}

const ZipMember* ZipArchive::Find(const std::string& name) const {
  for (const ZipMember& m : members_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

StatusOr<std::string> ZipArchive::Read(const ZipMember& m) {
  const std::string where = StrCat(path_, ": member '", m.name, "'");
  if ((m.flags & kFlagEncrypted) != 0) return Unimplemented(where, " is encrypted");
  if (m.method != kMethodStored && m.method != kMethodDeflate) {
    return Unimplemented(where, " uses compression method ", m.method,
                         "; graphrt reads stored (0) and deflate (8)");
  }
  if (m.size > static_cast<uint64_t>(limits_.max_member_bytes)) {
    return ResourceExhausted(where, " declares ", m.size, " bytes, more than the ",
                             limits_.max_member_bytes, " bytes ZipLimits::max_member_bytes allows");
  }
  if (m.method == kMethodStored && m.compressed_size != m.size) {
    return DataLoss(where, " is stored but its sizes differ (", m.compressed_size, " and ", m.size,
                    ")");
  }
  if (m.method == kMethodDeflate &&
      m.size / static_cast<uint64_t>(limits_.max_compression_ratio) > m.compressed_size) {
    return ResourceExhausted(where, " inflates ", m.compressed_size, " bytes to ", m.size,
                             ", more than the ", limits_.max_compression_ratio,
                             ":1 ZipLimits::max_compression_ratio allows (a zip bomb?)");
  }
  std::string header;
  GRT_RETURN_IF_ERROR(ReadAt(m.local_header_offset, kLocalHeaderSize, &header,
                             StrCat("the local header of member '", m.name, "'")));
  if (DecodeFixed32(header.data()) != kLocalHeaderSignature) {
    return DataLoss(where, ": bad local header signature (corrupt zip)");
  }
  const uint64_t data_offset = m.local_header_offset + kLocalHeaderSize +
                               DecodeFixed16(header.data() + 26) +
                               DecodeFixed16(header.data() + 28);
  std::string stored;
  GRT_RETURN_IF_ERROR(
      ReadAt(data_offset, m.compressed_size, &stored, StrCat("the data of member '", m.name, "'")));
  std::string data;
  if (m.method == kMethodStored) {
    data = std::move(stored);
  } else {
    // The output buffer is the declared size, checked above; inflate never writes past it, and a
    // stream that wants more than that is an error, not a reallocation.
    data.resize(static_cast<size_t>(m.size));
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return Internal(where, ": inflateInit2 failed");
    Bytef* const in = reinterpret_cast<Bytef*>(stored.data());
    Bytef* const out = reinterpret_cast<Bytef*>(data.data());
    uint64_t in_done = 0, out_done = 0;
    static Bytef empty;  // zlib wants a non-null next_out even with avail_out 0
    int rc = Z_OK;
    bool overflow = false;
    while (rc == Z_OK) {
      const uInt in_chunk =
          static_cast<uInt>(std::min<uint64_t>(stored.size() - in_done, 1u << 30));
      const uInt out_chunk =
          static_cast<uInt>(std::min<uint64_t>(data.size() - out_done, 1u << 30));
      z.next_in = in_chunk > 0 ? in + in_done : &empty;
      z.avail_in = in_chunk;
      z.next_out = out_chunk > 0 ? out + out_done : &empty;
      z.avail_out = out_chunk;
      rc = inflate(&z, Z_NO_FLUSH);
      const uInt consumed = in_chunk - z.avail_in, produced = out_chunk - z.avail_out;
      in_done += consumed;
      out_done += produced;
      if (rc == Z_BUF_ERROR || (rc == Z_OK && consumed == 0 && produced == 0)) {
        // No progress: the input ran out, or the output is full and the stream goes on.
        overflow = out_done == data.size() && in_done < stored.size();
        break;
      }
    }
    const std::string zlib_message = z.msg != nullptr ? StrCat(": ", z.msg) : std::string();
    inflateEnd(&z);
    if (overflow) {
      return DataLoss(where, " inflates past its declared size of ", m.size, " bytes");
    }
    if (rc != Z_STREAM_END) {
      return DataLoss(where, " does not inflate (truncated or corrupt deflate data", zlib_message,
                      ")");
    }
    if (out_done != m.size) {
      return DataLoss(where, " inflates to ", out_done, " bytes, not the declared ", m.size);
    }
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t done = 0;
  while (done < data.size()) {
    uInt chunk = static_cast<uInt>(std::min<size_t>(data.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + done), chunk);
    done += chunk;
  }
  if (static_cast<uint32_t>(crc) != m.crc32) {
    return DataLoss(where, " fails its CRC-32 check (corrupt zip)");
  }
  return data;
}

}  // namespace keras
}  // namespace graphrt
