#include "runtime/core/resource_handle.h"

#include "runtime/core/str_util.h"

namespace graphrt {

void ResourceHandle::FromProto(const ::tensorflow::ResourceHandleProto& proto) {
  device = proto.device();
  container = proto.container();
  name = proto.name();
  hash_code = proto.hash_code();
  maybe_type_name = proto.maybe_type_name();
  dtypes_and_shapes.clear();
  for (const auto& entry : proto.dtypes_and_shapes()) {
    dtypes_and_shapes.push_back(entry.SerializeAsString());
  }
}

void ResourceHandle::AsProto(::tensorflow::ResourceHandleProto* proto) const {
  proto->set_device(device);
  proto->set_container(container);
  proto->set_name(name);
  proto->set_hash_code(hash_code);
  proto->set_maybe_type_name(maybe_type_name);
  proto->clear_dtypes_and_shapes();
  for (const std::string& bytes : dtypes_and_shapes) {
    proto->add_dtypes_and_shapes()->ParseFromString(bytes);
  }
}

std::string ResourceHandle::DebugString() const {
  return StrCat("ResourceHandle(name=\"", name, "\", device=\"", device, "\", container=\"",
                container, "\", type=\"", maybe_type_name, "\")");
}

}  // namespace graphrt
