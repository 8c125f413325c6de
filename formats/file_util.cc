#include "formats/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

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
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(Code::kPermissionDenied,
                  StrCat("cannot open ", path, ": ", std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return DataLoss("error reading ", path);
  return buffer.str();
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
