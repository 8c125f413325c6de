#include "formats/tensor_bundle/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace graphrt {

StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path, bool use_mmap) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("no such file: ", path);
    return Status(errno == EACCES ? Code::kPermissionDenied : Code::kUnknown,
                  StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->fd_ = fd;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return Status(Code::kPermissionDenied,
                  StrCat("cannot stat ", path, ": ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) return InvalidArgument("is a directory, not a file: ", path);
  file->size_ = static_cast<uint64_t>(st.st_size);
  if (use_mmap && file->size_ > 0 && file->size_ <= SIZE_MAX) {
    void* p = ::mmap(nullptr, static_cast<size_t>(file->size_), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) file->mapping_ = static_cast<const char*>(p);
  }
  return file;
}

MappedFile::~MappedFile() {
  if (mapping_ != nullptr) ::munmap(const_cast<char*>(mapping_), static_cast<size_t>(size_));
  if (fd_ >= 0) ::close(fd_);
}

Status MappedFile::CheckRange(uint64_t offset, size_t n) const {
  if (offset > size_ || n > size_ - offset) {
    return DataLoss(path_, " is too short: bytes [", offset, ", ", offset + n,
                    ") are needed but the file has ", size_);
  }
  return Status::OK();
}

Status MappedFile::ReadInto(uint64_t offset, size_t n, char* dst) const {
  GRT_RETURN_IF_ERROR(CheckRange(offset, n));
  if (mapping_ != nullptr) {
    if (n > 0) std::memcpy(dst, mapping_ + offset, n);
    return Status::OK();
  }
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return DataLoss("error reading ", path_, ": ", std::strerror(errno));
    }
    if (got == 0) return DataLoss(path_, " ended early (was it truncated while open?)");
    done += static_cast<size_t>(got);
  }
  return Status::OK();
}

StatusOr<std::string_view> MappedFile::Read(uint64_t offset, size_t n, std::string* scratch) const {
  GRT_RETURN_IF_ERROR(CheckRange(offset, n));
  if (mapping_ != nullptr) return std::string_view(mapping_ + offset, n);
  scratch->resize(n);
  GRT_RETURN_IF_ERROR(ReadInto(offset, n, scratch->data()));
  return std::string_view(*scratch);
}

}  // namespace graphrt
