// Whole-file I/O with errors that name the file.
#ifndef GRAPHRT_FORMATS_FILE_UTIL_H_
#define GRAPHRT_FORMATS_FILE_UTIL_H_

#include <string>

#include "runtime/core/status.h"

namespace graphrt {

// NOT_FOUND when the file is missing, INVALID_ARGUMENT for a directory, and the OS error
// otherwise.
StatusOr<std::string> ReadFileToString(const std::string& path);
struct WriteFileOptions {
  // fsync the temporary file before the rename, so that after a crash `path` holds the old or the
  // new contents, never an empty file (delayed allocation on ext4 and XFS).
  bool sync = false;
  // When false, an existing `path` is ALREADY_EXISTS and is left as it is.
  bool overwrite = true;
};
// Writes `path.tmp.<pid>` beside `path`, then renames it over `path`, so readers never see half a
// file; a failed write leaves `path` as it was and removes the temporary file.
Status WriteStringToFile(const std::string& path, const std::string& contents,
                         const WriteFileOptions& options = {});
bool FileExists(const std::string& path);
bool IsDirectory(const std::string& path);

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_FILE_UTIL_H_
