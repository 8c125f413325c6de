// Tensor: a typed, shaped, reference-counted view of an aligned buffer. Copying a Tensor shares
// the buffer (as TensorFlow's does); DeepCopy makes a new one. Eigen views of a Tensor are in
// graphrt's kernels (runtime/kernels/eigen_util.h), not here, so that this header stays cheap
// to include.
#ifndef GRAPHRT_TENSOR_H_
#define GRAPHRT_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <graphrt/export.h>
#include <graphrt/resource_handle.h>
#include <graphrt/status.h>
#include <graphrt/tensor_shape.h>
#include <graphrt/types.h>

#include "tensor.pb.h"

namespace graphrt {

// Every buffer starts on this boundary, enough for AVX-512 loads.
inline constexpr size_t kTensorAlignment = 64;

// Owns the elements of one or more Tensors. Non-POD elements (string, resource, variant) are
// constructed on allocation and destroyed with the buffer.
class GRAPHRT_EXPORT TensorBuffer {
 public:
  // Returns null when `bytes` cannot be allocated.
  static std::shared_ptr<TensorBuffer> Allocate(DataType dtype, int64_t num_elements);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  TensorBuffer() = default;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t capacity_ = 0;  // bytes actually allocated
  DataType dtype_ = ::tensorflow::DT_INVALID;
  int64_t num_elements_ = 0;
};

// Memory that belongs to a device other than the host (an OpenCL buffer). A Tensor held in it
// has no host pointer: raw_data() is null, and only that device's kernels and copies read it.
class GRAPHRT_EXPORT DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual size_t size() const = 0;
  // The device's own handle (a cl_mem for OpenCL).
  virtual void* handle() const = 0;
  // A new buffer on the same device holding bytes [offset, offset + bytes) of this one.
  virtual StatusOr<std::shared_ptr<DeviceBuffer>> CopyRange(size_t offset, size_t bytes) const = 0;
};

class GRAPHRT_EXPORT Tensor {
 public:
  // An empty, uninitialized tensor (dtype DT_INVALID).
  Tensor() = default;
  // Allocates a tensor. POD elements are left uninitialized; strings are empty. Throws
  // std::bad_alloc where Allocate fails: only for sizes the code itself chose. A size that comes
  // from a file, a feed or an input value goes through Allocate.
  Tensor(DataType dtype, const TensorShape& shape);
  // As above, with failure reported: RESOURCE_EXHAUSTED (naming the dtype, shape and bytes) when
  // the byte count overflows, exceeds MaxTensorBytes() or cannot be allocated.
  static StatusOr<Tensor> Allocate(DataType dtype, const TensorShape& shape);

  // A tensor whose elements live in device memory. REQUIRES: buffer holds the elements.
  static Tensor InDeviceMemory(DataType dtype, const TensorShape& shape,
                               std::shared_ptr<DeviceBuffer> buffer);

  template <typename T>
  static Tensor Scalar(const T& value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    *t.data<T>() = value;
    return t;
  }
  // A rank-1 tensor holding `values`.
  template <typename T>
  static Tensor Vector(const std::vector<T>& values) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape({static_cast<int64_t>(values.size())}));
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return t;
  }

  // Decodes a TensorProto (tensor_content or the typed *_val fields, TensorFlow's "repeat the
  // last value" rule included). Validates sizes, so hostile protos give INVALID_ARGUMENT.
  static StatusOr<Tensor> FromProto(const ::tensorflow::TensorProto& proto);
  // Encodes into tensor_content (POD types) or string_val / resource_handle_val.
  void AsProtoTensorContent(::tensorflow::TensorProto* proto) const;
  // Encodes into the typed *_val fields, as TensorFlow's AsProtoField.
  void AsProtoField(::tensorflow::TensorProto* proto) const;

  bool IsInitialized() const { return dtype_ != ::tensorflow::DT_INVALID; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return num_elements_; }
  // Bytes of the elements; for non-POD types, elements times sizeof the element object.
  size_t TotalBytes() const;

  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(raw_data());
  }
  template <typename T>
  T& scalar() {
    return *data<T>();
  }
  template <typename T>
  const T& scalar() const {
    return *data<T>();
  }
  void* raw_data() const {
    return buffer_ ? static_cast<char*>(buffer_->data()) + offset_ : nullptr;
  }

  // Device-memory tensors: the buffer and the byte offset of element 0 in it.
  bool in_device_memory() const { return device_buffer_ != nullptr; }
  DeviceBuffer* device_buffer() const { return device_buffer_.get(); }
  size_t device_offset() const { return offset_; }

  // A tensor of `shape` sharing this buffer. REQUIRES: same number of elements.
  Tensor Reshaped(const TensorShape& shape) const;
  // Rows [begin, end) of dim 0, sharing this buffer. REQUIRES: dims() >= 1, 0<=begin<=end<=dim0.
  Tensor Slice(int64_t begin, int64_t end) const;
  // A new buffer with the same contents.
  Tensor DeepCopy() const;
  // Whether this tensor is the only owner of its buffer, so a kernel may write its output
  // into it.
  bool BufferIsExclusive() const {
    return (buffer_ != nullptr && buffer_.use_count() == 1) ||
           (device_buffer_ != nullptr && device_buffer_.use_count() == 1);
  }
  bool SharesBufferWith(const Tensor& other) const {
    return (buffer_ != nullptr && buffer_ == other.buffer_) ||
           (device_buffer_ != nullptr && device_buffer_ == other.device_buffer_);
  }

  // "float[2,3] [1, 2, 3, 4, 5, 6]", at most `max_entries` values.
  std::string DebugString(int max_entries = 16) const;
  // The value of element i as text (shortest round-trip form for floats).
  std::string ElementString(int64_t i) const;

 private:
  DataType dtype_ = ::tensorflow::DT_INVALID;
  TensorShape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
  std::shared_ptr<DeviceBuffer> device_buffer_;  // set instead of buffer_ for device memory
  size_t offset_ = 0;                            // bytes from the buffer's start
};

// The most bytes one tensor may take, so that a hostile shape in a file or a feed gives an error
// instead of exhausting the machine. Default: half the physical memory, at most 8 GiB; the
// environment variable GRAPHRT_MAX_TENSOR_BYTES (a byte count, read once at first use) or
// SetMaxTensorBytes overrides it.
GRAPHRT_EXPORT int64_t MaxTensorBytes();
// Sets the cap for the whole process; `bytes` <= 0 restores the default. Thread-safe.
GRAPHRT_EXPORT void SetMaxTensorBytes(int64_t bytes);

}  // namespace graphrt

#endif  // GRAPHRT_TENSOR_H_
