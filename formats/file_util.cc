#include "formats/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/core/str_util.h"

namespace graphrt {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

StatusOr<std::string> ReadFileToString(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return NotFound("no such file: ", path);
    return Status(Code::kPermissionDenied,
                  StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) return InvalidArgument("is a directory, not a file: ", path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status(Code::kPermissionDenied,
                  StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  // Straight into a string of the file's size (a stream would copy a frozen graph three times);
  // the size is only a hint, so a file that changes meanwhile is read to its end.
  std::string bytes(static_cast<size_t>(std::max<off_t>(st.st_size, 0)), '\0');
  size_t done = 0;
  char more[65536];
  for (;;) {
    // Past the expected size, a small buffer finds the end without growing the string.
    const bool past = done == bytes.size();
    const ssize_t n =
        past ? ::read(fd, more, sizeof(more)) : ::read(fd, &bytes[done], bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return DataLoss("error reading ", path, ": ", std::strerror(error));
    }
    if (n == 0) break;
    if (past) bytes.append(more, static_cast<size_t>(n));
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

Status WriteStringToFile(const std::string& path, const std::string& contents,
                         const WriteFileOptions& options) {
  if (!options.overwrite && FileExists(path)) return AlreadyExists("output exists: ", path);
  const std::string tmp = StrCat(path, ".tmp.", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    return Status(Code::kPermissionDenied,
                  StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  int error = 0;
  for (size_t done = 0; error == 0 && done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      error = n == 0 ? EIO : errno;
    }
  }
  if (error == 0 && options.sync && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    std::remove(tmp.c_str());
    return Status(Code::kResourceExhausted,
                  StrCat("cannot write ", path, ": ", std::strerror(error)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(tmp.c_str());
    return Status(Code::kPermissionDenied,
                  StrCat("cannot rename into ", path, ": ", std::strerror(rename_errno)));
  }
  return Status::OK();
}

}  // namespace graphrt
