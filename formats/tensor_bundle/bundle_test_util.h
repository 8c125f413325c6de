// Helpers for the tensor_bundle tests (header-only, so that nothing test-only lands in the
// library, which takes every .cc under formats/).
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_TEST_UTIL_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_TEST_UTIL_H_

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/core/str_util.h"
#include "runtime/core/tensor.h"

namespace graphrt {
namespace bundle_testing {

// Names in `dir`, sorted, without "." and "..".
inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const struct dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it at destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base ? base : "/tmp") + "/graphrt_bundle_test_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~TempDir() {
    if (!path_.empty()) RemoveTree(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

  static void RemoveTree(const std::string& path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
      for (const std::string& name : ListDir(path)) RemoveTree(path + "/" + name);
      ::rmdir(path.c_str());
    } else {
      ::unlink(path.c_str());
    }
  }

 private:
  std::string path_;
};

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bool WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

inline bool CopyFile(const std::string& from, const std::string& to) {
  return WriteAll(to, ReadAll(from));
}

// "" when the tensors have the same dtype, shape and bits (strings: bytes); else what differs.
inline std::string DiffTensors(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) {
    return StrCat("dtype ", DataTypeString(got.dtype()), " != ", DataTypeString(want.dtype()));
  }
  if (got.shape() != want.shape()) {
    return StrCat("shape ", got.shape().DebugString(), " != ", want.shape().DebugString());
  }
  if (got.dtype() == ::tensorflow::DT_STRING) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      if (got.data<std::string>()[i] != want.data<std::string>()[i]) {
        return StrCat("string element ", i, " differs");
      }
    }
    return "";
  }
  if (std::memcmp(got.raw_data(), want.raw_data(), want.TotalBytes()) != 0) {
    return StrCat("values differ: got ", got.DebugString(), ", want ", want.DebugString());
  }
  return "";
}

// A tensor of `shape` whose element i is fn(i), converted to T.
template <typename T, typename Fn>
Tensor Fill(const TensorShape& shape, Fn fn) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(fn(i));
  return t;
}

inline Tensor Strings(const TensorShape& shape, const std::vector<std::string>& values) {
  Tensor t(::tensorflow::DT_STRING, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

}  // namespace bundle_testing
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_TEST_UTIL_H_
