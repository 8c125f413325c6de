#include "formats/file_util.h"

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

Status WriteStringToFile(const std::string& path, const std::string& contents) {
  std::string tmp = StrCat(path, ".tmp.", ::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return Status(Code::kPermissionDenied,
                  StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  size_t written = std::fwrite(contents.data(), 1, contents.size(), f);
  bool ok = written == contents.size() && std::fflush(f) == 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    return Status(Code::kResourceExhausted,
                  StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(Code::kPermissionDenied,
                  StrCat("cannot rename into ", path, ": ", std::strerror(errno)));
  }
  return Status::OK();
}

}  // namespace graphrt
