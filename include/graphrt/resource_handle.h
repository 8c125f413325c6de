// The element type of DT_RESOURCE tensors and of DT_VARIANT tensors.
#ifndef GRAPHRT_RESOURCE_HANDLE_H_
#define GRAPHRT_RESOURCE_HANDLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <graphrt/export.h>

#include "resource_handle.pb.h"

namespace graphrt {

// Names a resource (a variable, a table, a TensorArray) held by a ResourceMgr: the same fields
// as TensorFlow's ResourceHandleProto.
class GRAPHRT_EXPORT ResourceHandle {
 public:
  std::string device;
  std::string container;
  std::string name;
  uint64_t hash_code = 0;
  std::string maybe_type_name;
  // Serialized DtypeAndShape entries, kept so a handle round-trips unchanged.
  std::vector<std::string> dtypes_and_shapes;

  void FromProto(const ::tensorflow::ResourceHandleProto& proto);
  void AsProto(::tensorflow::ResourceHandleProto* proto) const;
  std::string DebugString() const;
};

// A value held in a DT_VARIANT tensor (a TensorList, for instance).
class GRAPHRT_EXPORT VariantValue {
 public:
  virtual ~VariantValue() = default;
  virtual std::string TypeName() const = 0;
};

class GRAPHRT_EXPORT Variant {
 public:
  Variant() = default;
  explicit Variant(std::shared_ptr<const VariantValue> value) : value_(std::move(value)) {}
  bool empty() const { return value_ == nullptr; }
  std::string TypeName() const { return value_ ? value_->TypeName() : ""; }
  // The held value as T, or null when it holds something else.
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(value_.get());
  }
  const std::shared_ptr<const VariantValue>& shared() const { return value_; }

 private:
  std::shared_ptr<const VariantValue> value_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RESOURCE_HANDLE_H_
