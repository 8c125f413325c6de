#include "formats/keras/keras_archive.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <system_error>

#include <nlohmann/json.hpp>

#include "formats/keras/zip_archive.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {

namespace {

constexpr char kConfig[] = "config.json";
constexpr char kMetadata[] = "metadata.json";
constexpr char kWeights[] = "model.weights.h5";
constexpr char kAssets[] = "assets/";

// A file in the temporary folder, removed when this goes.
class TempFile {
 public:
  ~TempFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  Status Write(const std::string& data, const std::string& what) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    std::string pattern = (dir / "graphrt-keras-XXXXXX").string();
    int fd = mkstemp(pattern.data());
    if (fd < 0) {
      return Internal("cannot make a temporary file for ", what, ": ", std::strerror(errno));
    }
    path_ = pattern;
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t n = write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        close(fd);
        return Internal("cannot write ", what, " to ", path_, ": ", std::strerror(err));
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    if (close(fd) != 0) return Internal("cannot write ", what, " to ", path_);
    return Status::OK();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `s` with every mention of the temporary file replaced by the archive member it holds.
Status Rename(const Status& s, const std::string& temp, const std::string& member) {
  std::string message = s.message();
  for (size_t at = message.find(temp); at != std::string::npos;
       at = message.find(temp, at + member.size())) {
    message.replace(at, temp.size(), member);
  }
  return Status(s.code(), message);
}

}  // namespace

StatusOr<KerasH5File> ReadKerasArchive(const std::string& path, const KerasH5ReadOptions& options,
                                       bool isolated) {
  if (options.max_weight_bytes < 0 || options.max_attribute_bytes < 1 ||
      options.max_compression_ratio < 1) {
    return InvalidArgument("KerasH5ReadOptions: negative or zero limits reading ", path);
  }
  ZipLimits limits;
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  limits.max_member_bytes = options.max_weight_bytes > (kMax - options.max_attribute_bytes) / 2
                                ? kMax
                                : 2 * options.max_weight_bytes + options.max_attribute_bytes;
  limits.max_compression_ratio = options.max_compression_ratio;
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<ZipArchive> zip, ZipArchive::Open(path, limits));
  auto member = [&](const char* name) -> StatusOr<const ZipMember*> {
    const ZipMember* m = zip->Find(name);
    if (m == nullptr) {
      return NotFound(path, ": member '", name, "' is missing (not a Keras .keras archive?)");
    }
    return m;
  };
  KerasH5File file;

  GRT_ASSIGN_OR_RETURN(const ZipMember* config_member, member(kConfig));
  if (config_member->size > static_cast<uint64_t>(options.max_attribute_bytes)) {
    return ResourceExhausted(path, ": member '", kConfig, "' declares ", config_member->size,
                             " bytes, more than KerasH5ReadOptions::max_attribute_bytes (",
                             options.max_attribute_bytes, ")");
  }
  GRT_ASSIGN_OR_RETURN(std::string config, zip->Read(*config_member));
  if (nlohmann::json::parse(config, nullptr, false).is_discarded()) {
    return InvalidArgument(path, ": member '", kConfig, "' is not JSON");
  }

  // metadata.json only says which Keras wrote the file; Keras always writes it.
  std::string keras_version;
  if (const ZipMember* m = zip->Find(kMetadata); m != nullptr) {
    if (m->size > static_cast<uint64_t>(options.max_attribute_bytes)) {
      return ResourceExhausted(path, ": member '", kMetadata, "' declares ", m->size, " bytes");
    }
    GRT_ASSIGN_OR_RETURN(std::string text, zip->Read(*m));
    nlohmann::json metadata = nlohmann::json::parse(text, nullptr, false);
    if (!metadata.is_object()) {
      return InvalidArgument(path, ": member '", kMetadata, "' is not a JSON object");
    }
    auto v = metadata.find("keras_version");
    if (v != metadata.end() && v->is_string()) keras_version = v->get<std::string>();
  }

  GRT_ASSIGN_OR_RETURN(const ZipMember* weights_member, member(kWeights));
  {
    StatusOr<std::string> bytes = zip->Read(*weights_member);
    if (!bytes.ok()) return bytes.status();
    TempFile temp;
    GRT_RETURN_IF_ERROR(temp.Write(*bytes, StrCat(path, ": member '", kWeights, "'")));
    bytes = std::string();
    StatusOr<KerasH5File> read = isolated ? ReadKerasH5FileIsolated(temp.path(), options)
                                          : ReadKerasH5File(temp.path(), options);
    const std::string name = StrCat(path, ":", kWeights);
    if (!read.ok()) return Rename(read.status(), temp.path(), name);
    file = std::move(*read);
    if (file.layout == KerasWeightsLayout::kLegacyH5 && !file.model_config.empty()) {
      return InvalidArgument(path, ": member '", kWeights,
                             "' is a whole Keras 2 model, not the weights of a .keras archive");
    }
  }
  file.path = path;
  file.model_config = std::move(config);
  if (!keras_version.empty()) file.keras_version = keras_version;

  int64_t asset_bytes = 0;
  for (const ZipMember& m : zip->members()) {
    if (m.name.rfind(kAssets, 0) != 0 || m.name.back() == '/') continue;
    asset_bytes += static_cast<int64_t>(std::min<uint64_t>(m.size, uint64_t{1} << 62));
    if (asset_bytes > limits.max_member_bytes) {
      return ResourceExhausted(path, ": the assets/ members together pass ",
                               limits.max_member_bytes, " bytes (at member '", m.name, "')");
    }
    GRT_ASSIGN_OR_RETURN(file.assets[m.name.substr(sizeof(kAssets) - 1)], zip->Read(m));
  }
  return file;
}

}  // namespace keras
}  // namespace graphrt
