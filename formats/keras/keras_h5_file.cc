#include "formats/keras/keras_h5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>

#include "formats/keras/keras_h5_internal.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

std::mutex& Hdf5Mutex() {
  static std::mutex* mu = new std::mutex;  // never destroyed: may be used at exit
  return *mu;
}

void SilenceHdf5Errors() {
  static const bool silenced = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)silenced;
}

}  // namespace internal

namespace {

using internal::WeightBuffer;

// Past these a file is damaged or hostile whatever the byte limits say: Keras writes weights
// of rank <= 5 and a handful of filters, and h5py never splits a string attribute into more
// than a few thousand strings.
constexpr int kMaxWeightRank = 8;
constexpr int kMaxFilters = 8;
constexpr hssize_t kMaxAttributeStrings = hssize_t{1} << 22;
// No real dimension comes near this; it keeps products of dimensions far from overflowing.
constexpr hsize_t kMaxDimension = hsize_t{1} << 40;

// Owns one HDF5 identifier and closes it with the matching H5*close.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// What the weights read so far have used of the file's budget.
struct Budget {
  int64_t file_size = 0;
  int64_t weight_bytes = 0;  // float32 bytes allocated
  int64_t stored_bytes = 0;  // uncompressed bytes on disk
};

// H5Aexists and H5Lexists fail (< 0) when HDF5 cannot read what they look at: an error, not
// "absent" (a model_config HDF5 could not load would otherwise read as a weights-only file).
StatusOr<bool> HasAttribute(hid_t object, const std::string& name, const std::string& where) {
  htri_t exists = H5Aexists(object, name.c_str());
  if (exists < 0) return DataLoss("cannot look up attribute '", name, "' of ", where);
  return exists > 0;
}

StatusOr<bool> HasLink(hid_t group, const std::string& name, const std::string& where) {
  htri_t exists = H5Lexists(group, name.c_str(), H5P_DEFAULT);
  if (exists < 0) return DataLoss("cannot look up '", name, "' in ", where);
  return exists > 0;
}

// Reads a string attribute of any shape (scalar or 1-D), fixed or variable length.
Status ReadStrings(hid_t object, const std::string& name, const std::string& where,
                   const KerasH5ReadOptions& options, std::vector<std::string>* out) {
  Handle attr(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return DataLoss("cannot open attribute '", name, "' of ", where);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  Handle space(H5Aget_space(attr.get()), H5Sclose);
  if (!type.valid() || !space.valid()) {
    return DataLoss("cannot read the type of attribute '", name, "' of ", where);
  }
  hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) return DataLoss("attribute '", name, "' of ", where, " has no extent");
  // h5py writes an empty list (weight_names of a layer without weights) as an empty float array.
  if (count == 0) return Status::OK();
  if (H5Tget_class(type.get()) != H5T_STRING) {
    return InvalidArgument("attribute '", name, "' of ", where, " is not a string");
  }
  if (count > kMaxAttributeStrings) {
    return DataLoss("attribute '", name, "' of ", where, " claims ", count, " strings");
  }
  H5T_cset_t cset = H5Tget_cset(type.get());
  if (cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8) {
    return DataLoss("attribute '", name, "' of ", where, " has an unknown character set");
  }
  const size_t max_bytes = static_cast<size_t>(options.max_attribute_bytes);
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), cset);
    std::vector<char*> ptrs(static_cast<size_t>(count), nullptr);
    if (H5Aread(attr.get(), mem.get(), ptrs.data()) < 0) {
      return DataLoss("cannot read attribute '", name, "' of ", where);
    }
    // The lengths are known only once HDF5 has read the strings: checked after the fact.
    size_t total = 0;
    for (char* p : ptrs) {
      if (p != nullptr) total += std::strlen(p);
      if (total > max_bytes) break;
      out->push_back(p != nullptr ? std::string(p) : std::string());
    }
    H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, ptrs.data());
    if (total > max_bytes) {
      return DataLoss("attribute '", name, "' of ", where, " holds more than ", max_bytes,
                      " bytes of strings (KerasH5ReadOptions::max_attribute_bytes)");
    }
    return Status::OK();
  }
  size_t size = H5Tget_size(type.get());
  if (size == 0) return DataLoss("attribute '", name, "' of ", where, " has zero-size strings");
  if (size > max_bytes / static_cast<size_t>(count)) {
    return DataLoss("attribute '", name, "' of ", where, " claims ", count, " strings of ", size,
                    " bytes, more than ", max_bytes,
                    " bytes (KerasH5ReadOptions::max_attribute_bytes)");
  }
  H5T_str_t pad = H5Tget_strpad(type.get());
  if (pad != H5T_STR_NULLTERM && pad != H5T_STR_NULLPAD && pad != H5T_STR_SPACEPAD) {
    return DataLoss("attribute '", name, "' of ", where, " has an unknown string padding");
  }
  std::string buffer(size * static_cast<size_t>(count), '\0');
  if (H5Aread(attr.get(), type.get(), buffer.data()) < 0) {
    return DataLoss("cannot read attribute '", name, "' of ", where);
  }
  for (hssize_t i = 0; i < count; ++i) {
    std::string s = buffer.substr(static_cast<size_t>(i) * size, size);
    // NULLTERM and NULLPAD strings end at the first NUL; SPACEPAD ones are padded with spaces.
    size_t end = s.find('\0');
    if (end != std::string::npos) s.resize(end);
    if (pad == H5T_STR_SPACEPAD) {
      while (!s.empty() && s.back() == ' ') s.pop_back();
    }
    out->push_back(s);
  }
  return Status::OK();
}

StatusOr<std::string> ReadString(hid_t object, const std::string& name, const std::string& where,
                                 const KerasH5ReadOptions& options) {
  std::vector<std::string> values;
  GRT_RETURN_IF_ERROR(ReadStrings(object, name, where, options, &values));
  if (values.size() != 1) {
    return InvalidArgument("attribute '", name, "' of ", where, " holds ", values.size(),
                           " strings, not one");
  }
  return values[0];
}

// A string-array attribute that h5py may have split into name0, name1, ... when it was too big.
Status ReadStringList(hid_t object, const std::string& name, const std::string& where,
                      const KerasH5ReadOptions& options, std::vector<std::string>* out) {
  GRT_ASSIGN_OR_RETURN(bool whole, HasAttribute(object, name, where));
  if (whole) return ReadStrings(object, name, where, options, out);
  for (int chunk = 0;; ++chunk) {
    GRT_ASSIGN_OR_RETURN(bool exists, HasAttribute(object, StrCat(name, chunk), where));
    if (!exists && chunk == 0) return NotFound("no attribute '", name, "' on ", where);
    if (!exists) return Status::OK();
    GRT_RETURN_IF_ERROR(ReadStrings(object, StrCat(name, chunk), where, options, out));
  }
}

// Checks how the dataset is stored before HDF5 reads it: what it decodes to must be in
// proportion to what the file holds, and only the layouts and filters h5py writes are read.
// `stored` is the dataset's uncompressed size in its on-disk type.
Status CheckStorage(hid_t dataset, const std::string& what, int rank, int64_t stored,
                    size_t type_size, const KerasH5ReadOptions& options, const Budget& budget) {
  Handle plist(H5Dget_create_plist(dataset), H5Pclose);
  if (!plist.valid()) return DataLoss("cannot read the storage properties of ", what);
  // External raw data lives in other files, named by the file: never followed.
  if (H5Pget_external_count(plist.get()) != 0) {
    return Unimplemented(what, " keeps its data in external files, which Keras never writes");
  }
  const std::string too_big =
      StrCat(what, " claims ", stored, " bytes, more than the file holds (truncated or corrupt)");
  H5D_layout_t layout = H5Pget_layout(plist.get());
  if (layout == H5D_CONTIGUOUS || layout == H5D_COMPACT) {
    if (stored > budget.file_size) return DataLoss(too_big);
    return Status::OK();
  }
  if (layout != H5D_CHUNKED) {
    return Unimplemented(what, " has HDF5 storage layout ", static_cast<int>(layout),
                         " (virtual or unknown), which Keras never writes");
  }
  hsize_t chunk[H5S_MAX_RANK];
  int chunk_rank = H5Pget_chunk(plist.get(), H5S_MAX_RANK, chunk);
  if (chunk_rank != rank) {
    return DataLoss(what, " has chunks of rank ", chunk_rank, " for data of rank ", rank);
  }
  int64_t chunk_bytes = static_cast<int64_t>(type_size);
  for (int i = 0; i < chunk_rank; ++i) {
    if (chunk[i] == 0 || chunk[i] > kMaxDimension ||
        static_cast<int64_t>(chunk[i]) > options.max_chunk_bytes / chunk_bytes) {
      return DataLoss(what, " has chunks of more than ", options.max_chunk_bytes,
                      " bytes (KerasH5ReadOptions::max_chunk_bytes)");
    }
    chunk_bytes *= static_cast<int64_t>(chunk[i]);
  }
  int filters = H5Pget_nfilters(plist.get());
  if (filters < 0 || filters > kMaxFilters) {
    return DataLoss(what, " has ", filters, " filters in its pipeline");
  }
  bool compressed = false;
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0, filter_config = 0;
    unsigned cd_values[16];
    size_t cd_count = sizeof(cd_values) / sizeof(cd_values[0]);
    char filter_name[64] = {0};
    H5Z_filter_t id = H5Pget_filter2(plist.get(), static_cast<unsigned>(i), &flags, &cd_count,
                                     cd_values, sizeof(filter_name), filter_name, &filter_config);
    if (id == H5Z_FILTER_DEFLATE) {
      compressed = true;
    } else if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32) {
      filter_name[sizeof(filter_name) - 1] = '\0';
      return Unimplemented(what, " uses HDF5 filter ", id, " (", filter_name,
                           "); graphrt reads the deflate (gzip), shuffle and fletcher32 filters");
    }
  }
  if (!compressed) {
    if (stored > budget.file_size) return DataLoss(too_big);
    return Status::OK();
  }
  // What the chunks take on disk; a crafted index may claim more than the file has.
  int64_t on_disk =
      std::min<int64_t>(static_cast<int64_t>(H5Dget_storage_size(dataset)), budget.file_size);
  if (on_disk < 0) on_disk = budget.file_size;
  if (stored / options.max_compression_ratio > on_disk) {
    return DataLoss(what, " decompresses to ", stored, " bytes from ", on_disk,
                    " stored bytes, more than the ", options.max_compression_ratio,
                    ":1 KerasH5ReadOptions::max_compression_ratio allows (a decompression bomb)");
  }
  return Status::OK();
}

Status ReadWeight(hid_t group, const std::string& name, const std::string& where,
                  const KerasH5ReadOptions& options, const WeightBuffer& buffer, Budget* budget,
                  KerasWeight* weight) {
  if (H5Lexists(group, name.c_str(), H5P_DEFAULT) <= 0) {
    // H5Lexists on "a/b" fails when "a" is missing; either way the weight is absent.
    return NotFound("weight '", name, "' listed in weight_names is missing from ", where);
  }
  const std::string what = StrCat("weight '", name, "' in ", where);
  Handle dataset(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) return DataLoss("cannot open ", what);
  Handle type(H5Dget_type(dataset.get()), H5Tclose);
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  if (!type.valid() || !space.valid()) return DataLoss("cannot read the type of ", what);
  H5T_class_t cls = H5Tget_class(type.get());
  size_t type_size = H5Tget_size(type.get());
  if (cls == H5T_FLOAT) {
    if (type_size != 2 && type_size != 4 && type_size != 8) {
      return Unimplemented(what, " holds ", type_size, "-byte floats");
    }
  } else if (cls == H5T_INTEGER) {
    if (type_size != 1 && type_size != 2 && type_size != 4 && type_size != 8) {
      return Unimplemented(what, " holds ", type_size, "-byte integers");
    }
  } else {
    return Unimplemented(what, " is neither float nor integer");
  }
  H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
  if (space_class != H5S_SCALAR && space_class != H5S_SIMPLE) {
    return DataLoss(what, " has no dataspace");
  }
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > kMaxWeightRank) return DataLoss(what, " has rank ", rank);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) != rank) {
    return DataLoss("cannot read the shape of ", what);
  }
  // Elements bounded by the weight budget, checked per dimension so the product cannot overflow.
  const int64_t max_elements = options.max_weight_bytes / 4 + 1;
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (hsize_t d : dims) {
    if (d > kMaxDimension || (d != 0 && elements > max_elements / static_cast<int64_t>(d))) {
      return ResourceExhausted(what, " has shape [", StrJoin(dims, ","), "], more than the ",
                               options.max_weight_bytes,
                               " bytes of KerasH5ReadOptions::max_weight_bytes");
    }
    shape.push_back(static_cast<int64_t>(d));
    elements *= static_cast<int64_t>(d);
  }
  const int64_t bytes = elements * 4;
  const int64_t stored = elements * static_cast<int64_t>(type_size);
  GRT_RETURN_IF_ERROR(CheckStorage(dataset.get(), what, rank, stored, type_size, options, *budget));
  if (bytes > options.max_weight_bytes - budget->weight_bytes) {
    return ResourceExhausted(what, " takes the weights of the file past ", options.max_weight_bytes,
                             " bytes (KerasH5ReadOptions::max_weight_bytes)");
  }
  budget->weight_bytes += bytes;
  budget->stored_bytes += stored;
  if (budget->stored_bytes / options.max_compression_ratio > budget->file_size) {
    return DataLoss(what, " takes the weights of the file past ", options.max_compression_ratio,
                    " times its size of ", budget->file_size,
                    " bytes (KerasH5ReadOptions::max_compression_ratio)");
  }
  GRT_ASSIGN_OR_RETURN(float* values, buffer(weight, shape, elements));
  if (elements > 0 &&
      H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
    return DataLoss("cannot read ", what, " (truncated or corrupt data)");
  }
  return Status::OK();
}

// Groups Keras 3 nests at most a few levels (model, nested model, wrapper, cell); a crafted file
// may nest without end.
constexpr int kMaxKeras3Depth = 32;
constexpr size_t kMaxGroupMembers = size_t{1} << 20;

// The links of `group` by name, at most kMaxGroupMembers.
Status ListGroup(hid_t group, const std::string& where, std::vector<std::string>* names) {
  struct Listing {
    std::vector<std::string>* names;
    bool too_many = false;
  } listing{names};
  auto visit = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    auto* l = static_cast<Listing*>(data);
    if (l->names->size() >= kMaxGroupMembers) {
      l->too_many = true;
      return 1;
    }
    l->names->push_back(name);
    return 0;
  };
  hsize_t index = 0;
  if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &index, visit, &listing) < 0) {
    return DataLoss("cannot list the members of ", where);
  }
  if (listing.too_many) return DataLoss(where, " has more than ", kMaxGroupMembers, " members");
  return Status::OK();
}

// Where a sublayer attribute comes in its layer's weights (Keras's layer.weights order, which
// the builders take); the rest follow by name. tf-keras spells private attributes with '_'.
int SublayerRank(const std::string& attr) {
  static const std::map<std::string, int>* order = new std::map<std::string, int>{
      {"forward_layer", 0}, {"backward_layer", 1}, {"query_dense", 0},
      {"key_dense", 1},     {"value_dense", 2},    {"output_dense", 3},
  };
  auto it = order->find(attr.size() > 1 && attr[0] == '_' ? attr.substr(1) : attr);
  return it == order->end() ? 1000 : it->second;
}

// The weights under one Keras 3 layer group: its vars/<i> in index order, then its sublayers'.
Status ReadKeras3Group(hid_t group, const std::string& prefix, const std::string& where, int depth,
                       const KerasH5ReadOptions& options, const WeightBuffer& buffer,
                       Budget* budget, KerasLayerWeights* entry) {
  if (depth > kMaxKeras3Depth) {
    return DataLoss(where, " nests more than ", kMaxKeras3Depth, " groups deep");
  }
  std::vector<std::string> names;
  GRT_RETURN_IF_ERROR(ListGroup(group, where, &names));
  std::vector<std::string> children;
  for (const std::string& name : names) {
    if (name != "vars") children.push_back(name);
  }
  std::stable_sort(
      children.begin(), children.end(),
      [](const std::string& a, const std::string& b) { return SublayerRank(a) < SublayerRank(b); });
  if (std::find(names.begin(), names.end(), "vars") != names.end()) {
    const std::string vars_where = where + "/vars";
    Handle vars(H5Gopen2(group, "vars", H5P_DEFAULT), H5Gclose);
    if (!vars.valid()) return DataLoss("cannot open group ", vars_where);
    std::vector<std::string> var_names;
    GRT_RETURN_IF_ERROR(ListGroup(vars.get(), vars_where, &var_names));
    std::vector<std::pair<int64_t, std::string>> indexed;
    for (const std::string& v : var_names) {
      if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) {
        return DataLoss(vars_where, " holds '", v, "', not a variable index");
      }
      indexed.emplace_back(std::stoll(v), v);
    }
    std::sort(indexed.begin(), indexed.end());
    for (size_t i = 0; i < indexed.size(); ++i) {
      if (indexed[i].first != static_cast<int64_t>(i)) {
        return DataLoss(vars_where, " has no variable ", i, " (it holds ", indexed.size(),
                        " numbered from 0)");
      }
      KerasWeight& weight = entry->weights.emplace_back();
      weight.name = StrCat(prefix, "vars/", indexed[i].second);
      GRT_RETURN_IF_ERROR(
          ReadWeight(vars.get(), indexed[i].second, vars_where, options, buffer, budget, &weight));
    }
  }
  for (const std::string& child : children) {
    const std::string child_where = StrCat(where, "/", child);
    Handle sub(H5Gopen2(group, child.c_str(), H5P_DEFAULT), H5Gclose);
    if (!sub.valid()) return DataLoss("cannot open group ", child_where, " (not a group?)");
    GRT_RETURN_IF_ERROR(ReadKeras3Group(sub.get(), StrCat(prefix, child, "/"), child_where,
                                        depth + 1, options, buffer, budget, entry));
  }
  return Status::OK();
}

// A Keras 3 .weights.h5: one entry per group under /layers (see KerasWeightsLayout::kKeras3Raw).
Status ReadKeras3Layout(hid_t root, const std::string& path, const KerasH5ReadOptions& options,
                        const WeightBuffer& buffer, Budget* budget, KerasH5File* result) {
  result->layout = KerasWeightsLayout::kKeras3Raw;
  std::vector<std::string> top;
  GRT_RETURN_IF_ERROR(ListGroup(root, path, &top));
  for (const std::string& name : top) {
    if (name == "optimizer") {
      result->has_optimizer_weights = true;
    } else if (name == "vars") {
      // The model's own variables: Sequential and Functional have none.
      Handle vars(H5Gopen2(root, "vars", H5P_DEFAULT), H5Gclose);
      std::vector<std::string> own;
      if (vars.valid()) GRT_RETURN_IF_ERROR(ListGroup(vars.get(), path + ":/vars", &own));
      if (!own.empty()) {
        return Unimplemented(path, ":/vars holds ", own.size(),
                             " variables of the model itself (a subclassed model?)");
      }
    }
  }
  GRT_ASSIGN_OR_RETURN(bool has_layers, HasLink(root, "layers", path));
  if (!has_layers) return Status::OK();
  const std::string layers_where = path + ":/layers";
  Handle layers(H5Gopen2(root, "layers", H5P_DEFAULT), H5Gclose);
  if (!layers.valid()) return DataLoss("cannot open group ", layers_where);
  std::vector<std::string> keys;
  GRT_RETURN_IF_ERROR(ListGroup(layers.get(), layers_where, &keys));
  for (const std::string& key : keys) {
    const std::string where = StrCat(layers_where, "/", key);
    Handle group(H5Gopen2(layers.get(), key.c_str(), H5P_DEFAULT), H5Gclose);
    if (!group.valid()) return DataLoss("cannot open group ", where, " (not a group?)");
    KerasLayerWeights& entry = result->layers.emplace_back();
    entry.layer = key;
    GRT_RETURN_IF_ERROR(
        ReadKeras3Group(group.get(), "", where, 0, options, buffer, budget, &entry));
  }
  return Status::OK();
}

}  // namespace

namespace internal {

Status ReadKerasH5Contents(const std::string& path, const KerasH5ReadOptions& options,
                           const WeightBuffer& buffer, KerasH5File* out) {
  if (options.max_weight_bytes < 0 || options.max_compression_ratio < 1 ||
      options.max_chunk_bytes < 1 || options.max_attribute_bytes < 1) {
    return InvalidArgument("KerasH5ReadOptions: negative or zero limits reading ", path);
  }
  SilenceHdf5Errors();
  // The size bounds every claim the file makes; a FIFO or device would also block or never end.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("no such file: ", path);
  if (!std::filesystem::is_regular_file(path, ec)) {
    return InvalidArgument("not a regular file: ", path);
  }
  Budget budget;
  budget.file_size = static_cast<int64_t>(std::filesystem::file_size(path, ec));
  if (ec) return InvalidArgument("cannot read the size of ", path, ": ", ec.message());
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    return InvalidArgument("not an HDF5 file (no HDF5 signature): ", path);
  }
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) return DataLoss("cannot open HDF5 file (corrupt or truncated): ", path);
  Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose);
  if (!root.valid()) return DataLoss("cannot open the root group of ", path);

  KerasH5File& result = *out;
  result = KerasH5File();
  result.path = path;
  for (auto [name, field] : {std::make_pair("keras_version", &result.keras_version),
                             std::make_pair("backend", &result.backend),
                             std::make_pair("model_config", &result.model_config),
                             std::make_pair("training_config", &result.training_config)}) {
    GRT_ASSIGN_OR_RETURN(bool exists, HasAttribute(root.get(), name, path));
    if (exists) {
      GRT_ASSIGN_OR_RETURN(*field, ReadString(root.get(), name, path, options));
    }
  }
  GRT_ASSIGN_OR_RETURN(result.has_optimizer_weights,
                       HasLink(root.get(), "optimizer_weights", path));

  // A full model keeps its weights in /model_weights; a weights-only file on the root.
  std::string weights_path = "/";
  GRT_ASSIGN_OR_RETURN(bool full_model, HasLink(root.get(), "model_weights", path));
  GRT_ASSIGN_OR_RETURN(bool has_layer_names, HasAttribute(root.get(), "layer_names", path));
  GRT_ASSIGN_OR_RETURN(bool has_layer_names0, HasAttribute(root.get(), "layer_names0", path));
  if (full_model) {
    weights_path = "/model_weights";
  } else if (!has_layer_names && !has_layer_names0) {
    GRT_ASSIGN_OR_RETURN(bool keras3_layers, HasLink(root.get(), "layers", path));
    GRT_ASSIGN_OR_RETURN(bool keras3_vars, HasLink(root.get(), "vars", path));
    if (keras3_layers || keras3_vars) {
      return ReadKeras3Layout(root.get(), path, options, buffer, &budget, &result);
    }
    return InvalidArgument("not a Keras HDF5 file (no model_weights group and no layer_names): ",
                           path);
  }
  Handle weights(H5Gopen2(file.get(), weights_path.c_str(), H5P_DEFAULT), H5Gclose);
  if (!weights.valid()) return DataLoss("cannot open group ", weights_path, " in ", path);
  std::string weights_where = StrCat(path, ":", weights_path);
  for (auto [name, field] : {std::make_pair("keras_version", &result.keras_version),
                             std::make_pair("backend", &result.backend)}) {
    if (!field->empty()) continue;
    GRT_ASSIGN_OR_RETURN(bool exists, HasAttribute(weights.get(), name, weights_where));
    if (exists) {
      GRT_ASSIGN_OR_RETURN(*field, ReadString(weights.get(), name, weights_where, options));
    }
  }
  std::vector<std::string> layer_names;
  GRT_RETURN_IF_ERROR(
      ReadStringList(weights.get(), "layer_names", weights_where, options, &layer_names));
  for (const std::string& layer : layer_names) {
    std::string where = StrCat(path, ":", weights_path == "/" ? "" : weights_path, "/", layer);
    GRT_ASSIGN_OR_RETURN(bool exists, HasLink(weights.get(), layer, weights_where));
    if (!exists) {
      return NotFound("layer '", layer, "' listed in layer_names has no group: ", where);
    }
    Handle group(H5Gopen2(weights.get(), layer.c_str(), H5P_DEFAULT), H5Gclose);
    if (!group.valid()) return DataLoss("cannot open the group of layer '", layer, "': ", where);
    KerasLayerWeights& entry = result.layers.emplace_back();
    entry.layer = layer;
    std::vector<std::string> weight_names;
    GRT_RETURN_IF_ERROR(ReadStringList(group.get(), "weight_names", where, options, &weight_names));
    for (const std::string& name : weight_names) {
      KerasWeight& weight = entry.weights.emplace_back();
      weight.name = name;
      GRT_RETURN_IF_ERROR(ReadWeight(group.get(), name, where, options, buffer, &budget, &weight));
    }
  }
  return Status::OK();
}

}  // namespace internal

StatusOr<KerasH5File> ReadKerasH5File(const std::string& path, const KerasH5ReadOptions& options) {
  std::lock_guard<std::mutex> lock(internal::Hdf5Mutex());
  KerasH5File file;
  GRT_RETURN_IF_ERROR(internal::ReadKerasH5Contents(
      path, options,
      [](KerasWeight* weight, const std::vector<int64_t>& shape, int64_t) -> StatusOr<float*> {
        GRT_ASSIGN_OR_RETURN(weight->value,
                             Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape(shape)));
        return weight->value.data<float>();
      },
      &file));
  return file;
}

}  // namespace keras
}  // namespace graphrt
