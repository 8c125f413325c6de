// Whole-file I/O with errors that name the file.
#ifndef GRAPHRT_FORMATS_FILE_UTIL_H_
#define GRAPHRT_FORMATS_FILE_UTIL_H_

#include <string>

#include "runtime/core/status.h"

namespace graphrt {

// NOT_FOUND when the file is missing, INVALID_ARGUMENT for a directory, and the OS error
// otherwise.
StatusOr<std::string> ReadFileToString(const std::string& path);
// Writes `path.tmp.<pid>` then renames it over `path`, so readers never see half a file.
Status WriteStringToFile(const std::string& path, const std::string& contents);
bool FileExists(const std::string& path);
bool IsDirectory(const std::string& path);

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_FILE_UTIL_H_
