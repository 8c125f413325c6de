// A device as Session::ListDevices reports it.
#ifndef GRAPHRT_DEVICE_ATTRIBUTES_H_
#define GRAPHRT_DEVICE_ATTRIBUTES_H_

#include <cstdint>
#include <string>

namespace graphrt {

// What ListDevices reports, with the fields of TensorFlow's DeviceAttributes.
struct DeviceAttributes {
  std::string name;
  std::string device_type;
  int64_t memory_limit = 0;
  uint64_t incarnation = 0;
  std::string physical_device_desc;
};

}  // namespace graphrt

#endif  // GRAPHRT_DEVICE_ATTRIBUTES_H_
