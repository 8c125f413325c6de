#include "runtime/core/tensor.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

namespace graphrt {

size_t ElementObjectSize(DataType dtype) {
  switch (BaseType(dtype)) {
    case ::tensorflow::DT_STRING:
      return sizeof(std::string);
    case ::tensorflow::DT_RESOURCE:
      return sizeof(ResourceHandle);
    case ::tensorflow::DT_VARIANT:
      return sizeof(Variant);
    default:
      return static_cast<size_t>(DataTypeSize(dtype));
  }
}

namespace {

template <typename T>
void ConstructAll(void* data, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) new (p + i) T();
}

template <typename T>
void DestroyAll(void* data, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i].~T();
}

// Large buffers are kept after use, by size, and handed out again: a steady-state Run then
// reuses memory that is already mapped instead of faulting in fresh pages for every
// intermediate tensor (glibc returns large blocks to the OS on free). A request takes the
// smallest kept buffer that holds it, up to half as large again as asked, so that tensors of
// different sizes share buffers and the cache stays near a Run's peak of live tensors.
class BufferCache {
 public:
  static constexpr size_t kMinCachedBytes = 64 << 10;
  static constexpr size_t kMaxCachedBytes = 256 << 20;

  static BufferCache* Get() {
    static BufferCache* cache = new BufferCache();  // never destroyed: used at exit
    return cache;
  }

  // `bytes` rounded the way the cache keys sizes.
  static size_t RoundUp(size_t bytes) {
    size_t unit = bytes >= kMinCachedBytes ? 4096 : kTensorAlignment;
    return bytes == 0 ? kTensorAlignment : (bytes + unit - 1) / unit * unit;
  }

  // A buffer of at least `rounded` bytes; *capacity says how many it has.
  void* Take(size_t rounded, size_t* capacity) {
    *capacity = rounded;
    if (rounded >= kMinCachedBytes) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.lower_bound(rounded);
      if (it != free_.end() && it->first <= rounded + rounded / 2) {
        void* p = it->second;
        *capacity = it->first;
        cached_ -= it->first;
        free_.erase(it);
        return p;
      }
    }
    return std::aligned_alloc(kTensorAlignment, rounded);
  }

  void Give(void* p, size_t capacity) {
    if (capacity >= kMinCachedBytes) {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ + capacity <= kMaxCachedBytes) {
        free_.emplace(capacity, p);
        cached_ += capacity;
        return;
      }
    }
    std::free(p);
  }

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> free_;
  size_t cached_ = 0;
};

}  // namespace

std::shared_ptr<TensorBuffer> TensorBuffer::Allocate(DataType dtype, int64_t num_elements) {
  size_t elem = ElementObjectSize(dtype);
  if (elem == 0 || num_elements < 0) return nullptr;
  if (num_elements > 0 && static_cast<uint64_t>(num_elements) > (SIZE_MAX / 2) / elem) {
    return nullptr;
  }
  size_t bytes = static_cast<size_t>(num_elements) * elem;
  size_t capacity = 0;
  void* data = BufferCache::Get()->Take(BufferCache::RoundUp(bytes), &capacity);
  if (data == nullptr) return nullptr;
  std::shared_ptr<TensorBuffer> buffer(new TensorBuffer());
  buffer->data_ = data;
  buffer->bytes_ = bytes;
  buffer->capacity_ = capacity;
  buffer->dtype_ = BaseType(dtype);
  buffer->num_elements_ = num_elements;
  switch (buffer->dtype_) {
    case ::tensorflow::DT_STRING:
      ConstructAll<std::string>(data, num_elements);
      break;
    case ::tensorflow::DT_RESOURCE:
      ConstructAll<ResourceHandle>(data, num_elements);
      break;
    case ::tensorflow::DT_VARIANT:
      ConstructAll<Variant>(data, num_elements);
      break;
    default:
      break;
  }
  return buffer;
}

TensorBuffer::~TensorBuffer() {
  switch (dtype_) {
    case ::tensorflow::DT_STRING:
      DestroyAll<std::string>(data_, num_elements_);
      break;
    case ::tensorflow::DT_RESOURCE:
      DestroyAll<ResourceHandle>(data_, num_elements_);
      break;
    case ::tensorflow::DT_VARIANT:
      DestroyAll<Variant>(data_, num_elements_);
      break;
    default:
      break;
  }
  BufferCache::Get()->Give(data_, capacity_);
}

namespace {

constexpr int64_t kDefaultMaxTensorBytes = int64_t{8} << 30;
constexpr char kMaxTensorBytesVariable[] = "GRAPHRT_MAX_TENSOR_BYTES";

int64_t DefaultMaxTensorBytes() {
  static const int64_t bytes = [] {
    if (const char* env = std::getenv(kMaxTensorBytesVariable); env != nullptr && *env != '\0') {
      long long value;
      if (ParseInt64(env, &value) && value > 0) return static_cast<int64_t>(value);
      std::fprintf(stderr, "graphrt: warning: ignoring %s=%s (want a positive byte count)\n",
                   kMaxTensorBytesVariable, env);
    }
    int64_t limit = kDefaultMaxTensorBytes;
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) {
      limit = std::min(limit, static_cast<int64_t>(pages) / 2 * page_size);
    }
    return limit;
  }();
  return bytes;
}

std::atomic<int64_t> max_tensor_bytes_override{0};

}  // namespace

int64_t MaxTensorBytes() {
  int64_t bytes = max_tensor_bytes_override.load(std::memory_order_relaxed);
  return bytes > 0 ? bytes : DefaultMaxTensorBytes();
}

void SetMaxTensorBytes(int64_t bytes) {
  max_tensor_bytes_override.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

Tensor::Tensor(DataType dtype, const TensorShape& shape) {
  StatusOr<Tensor> t = Allocate(dtype, shape);
  if (!t.ok()) throw std::bad_alloc();
  *this = std::move(t).value();
}

StatusOr<Tensor> Tensor::Allocate(DataType dtype, const TensorShape& shape) {
  dtype = BaseType(dtype);
  size_t elem = ElementObjectSize(dtype);
  if (elem == 0) {
    return InvalidArgument("cannot allocate a tensor of dtype ", DataTypeString(dtype));
  }
  // The shape may have been built from unchecked dims, so count again without overflow.
  int64_t n = 1;
  int64_t bytes = 0;
  for (int64_t d : shape.dim_sizes()) {
    if (d < 0) {
      return InvalidArgument("cannot allocate a tensor of shape ", shape.DebugString(),
                             ": negative dimension");
    }
    if (__builtin_mul_overflow(n, d, &n)) n = -1;
    if (n < 0) break;
  }
  if (n < 0 || __builtin_mul_overflow(n, static_cast<int64_t>(elem), &bytes)) {
    return ResourceExhausted("cannot allocate a ", DataTypeString(dtype), " tensor of shape ",
                             shape.DebugString(), ": its byte count overflows int64");
  }
  if (bytes > MaxTensorBytes()) {
    return ResourceExhausted("cannot allocate a ", DataTypeString(dtype), " tensor of shape ",
                             shape.DebugString(), ": ", bytes, " bytes is over the limit of ",
                             MaxTensorBytes(), " bytes for one tensor (", kMaxTensorBytesVariable,
                             ")");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.num_elements_ = n;
  t.buffer_ = TensorBuffer::Allocate(dtype, n);
  if (t.buffer_ == nullptr) {
    return ResourceExhausted("cannot allocate a ", DataTypeString(dtype), " tensor of shape ",
                             shape.DebugString(), ": out of memory for ", bytes, " bytes");
  }
  return t;
}

size_t Tensor::TotalBytes() const {
  return static_cast<size_t>(num_elements_) * ElementObjectSize(dtype_);
}

Tensor Tensor::Reshaped(const TensorShape& shape) const {
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  Tensor t = *this;
  int64_t row = dims() > 0 && shape_.dim_size(0) > 0 ? num_elements_ / shape_.dim_size(0) : 0;
  t.shape_.set_dim(0, end - begin);
  t.num_elements_ = row * (end - begin);
  t.offset_ = offset_ + static_cast<size_t>(begin * row) * ElementObjectSize(dtype_);
  return t;
}

Tensor Tensor::InDeviceMemory(DataType dtype, const TensorShape& shape,
                              std::shared_ptr<DeviceBuffer> buffer) {
  Tensor t;
  t.dtype_ = BaseType(dtype);
  t.shape_ = shape;
  t.num_elements_ = shape.num_elements();
  t.device_buffer_ = std::move(buffer);
  return t;
}

Tensor Tensor::DeepCopy() const {
  if (!IsInitialized()) return Tensor();
  if (in_device_memory()) {
    StatusOr<std::shared_ptr<DeviceBuffer>> copy = device_buffer_->CopyRange(offset_, TotalBytes());
    if (!copy.ok()) throw std::bad_alloc();  // as the host path does
    return InDeviceMemory(dtype_, shape_, std::move(copy).value());
  }
  Tensor t(dtype_, shape_);
  switch (dtype_) {
    case ::tensorflow::DT_STRING:
      for (int64_t i = 0; i < num_elements_; ++i) t.data<std::string>()[i] = data<std::string>()[i];
      break;
    case ::tensorflow::DT_RESOURCE:
      for (int64_t i = 0; i < num_elements_; ++i) {
        t.data<ResourceHandle>()[i] = data<ResourceHandle>()[i];
      }
      break;
    case ::tensorflow::DT_VARIANT:
      for (int64_t i = 0; i < num_elements_; ++i) t.data<Variant>()[i] = data<Variant>()[i];
      break;
    default:
      if (TotalBytes() > 0) std::memcpy(t.raw_data(), raw_data(), TotalBytes());
  }
  return t;
}

// ---- TensorProto decoding ----

namespace {

// Reads TensorFlow's string-list encoding of tensor_content: all varint32 lengths, then all
// bytes.
Status DecodeStringList(const std::string& src, int64_t n, std::string* out) {
  size_t pos = 0;
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t value = 0;
    int shift = 0;
    while (true) {
      if (pos >= src.size() || shift > 63) {
        return InvalidArgument("string tensor_content is truncated");
      }
      uint8_t byte = static_cast<uint8_t>(src[pos++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
      shift += 7;
    }
    lengths[i] = value;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (lengths[i] > src.size() - pos) return InvalidArgument("string tensor_content is truncated");
    out[i].assign(src, pos, lengths[i]);
    pos += lengths[i];
  }
  return Status::OK();
}

template <typename T, typename Field>
Status FillFromField(const Field& field, int64_t n, T* out, const char* field_name) {
  int64_t count = field.size();
  if (count > n) {
    return InvalidArgument("TensorProto has ", count, " values in ", field_name, " for ", n,
                           " elements");
  }
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(field.Get(static_cast<int>(i)));
  T fill = count > 0 ? out[count - 1] : T();
  for (int64_t i = count; i < n; ++i) out[i] = fill;
  return Status::OK();
}

template <typename T, typename Field>
Status FillFromBits(const Field& field, int64_t n, T* out, const char* field_name) {
  int64_t count = field.size();
  if (count > n) {
    return InvalidArgument("TensorProto has ", count, " values in ", field_name, " for ", n,
                           " elements");
  }
  for (int64_t i = 0; i < count; ++i) {
    out[i] = Eigen::numext::bit_cast<T>(static_cast<uint16_t>(field.Get(static_cast<int>(i))));
  }
  T fill = count > 0 ? out[count - 1] : T(0.0f);
  for (int64_t i = count; i < n; ++i) out[i] = fill;
  return Status::OK();
}

// scomplex_val and dcomplex_val interleave real and imaginary parts; like the other fields,
// a short list repeats its last complex value.
template <typename T, typename Field>
Status FillComplexFromField(const Field& field, int64_t n, std::complex<T>* out,
                            const char* field_name) {
  int64_t values = field.size();
  if (values % 2 != 0) {
    return InvalidArgument("TensorProto has an odd number of values (", values, ") in ",
                           field_name);
  }
  int64_t count = values / 2;
  if (count > n) {
    return InvalidArgument("TensorProto has ", count, " complex values in ", field_name, " for ", n,
                           " elements");
  }
  for (int64_t i = 0; i < count; ++i) {
    out[i] = std::complex<T>(static_cast<T>(field.Get(static_cast<int>(2 * i))),
                             static_cast<T>(field.Get(static_cast<int>(2 * i + 1))));
  }
  std::complex<T> fill = count > 0 ? out[count - 1] : std::complex<T>();
  for (int64_t i = count; i < n; ++i) out[i] = fill;
  return Status::OK();
}

}  // namespace

StatusOr<Tensor> Tensor::FromProto(const ::tensorflow::TensorProto& proto) {
  DataType dtype = proto.dtype();
  if (dtype == ::tensorflow::DT_INVALID || IsRefType(dtype) || ElementObjectSize(dtype) == 0) {
    return InvalidArgument("TensorProto has unsupported dtype ", DataTypeString(dtype));
  }
  GRT_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  int64_t n = shape.num_elements();
  const std::string& content = proto.tensor_content();
  if (!content.empty() && IsPodType(dtype)) {
    int64_t expected;
    if (__builtin_mul_overflow(n, static_cast<int64_t>(DataTypeSize(dtype)), &expected) ||
        content.size() != static_cast<uint64_t>(expected)) {
      return InvalidArgument("TensorProto tensor_content has ", content.size(), " bytes; a ",
                             DataTypeString(dtype), " tensor of shape ", shape.DebugString(),
                             " needs ", n, " elements of ", DataTypeSize(dtype), " bytes");
    }
  }
  // Every string in tensor_content has a length byte at least, so a count over the content's
  // size is a lie, and is refused before it is allocated.
  if (!content.empty() && dtype == ::tensorflow::DT_STRING &&
      static_cast<uint64_t>(n) > content.size()) {
    return InvalidArgument("string tensor_content is truncated: ", content.size(),
                           " bytes for a tensor of shape ", shape.DebugString());
  }
  GRT_ASSIGN_OR_RETURN(Tensor t, Allocate(dtype, shape));
  if (!content.empty()) {
    if (IsPodType(dtype)) {
      std::memcpy(t.raw_data(), content.data(), content.size());
      return t;
    }
    if (dtype == ::tensorflow::DT_STRING) {
      GRT_RETURN_IF_ERROR(DecodeStringList(content, n, t.data<std::string>()));
      return t;
    }
    return Unimplemented("tensor_content for dtype ", DataTypeString(dtype));
  }
  switch (dtype) {
    case ::tensorflow::DT_FLOAT:
      GRT_RETURN_IF_ERROR(FillFromField(proto.float_val(), n, t.data<float>(), "float_val"));
      break;
    case ::tensorflow::DT_DOUBLE:
      GRT_RETURN_IF_ERROR(FillFromField(proto.double_val(), n, t.data<double>(), "double_val"));
      break;
    case ::tensorflow::DT_INT32:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int_val(), n, t.data<int32_t>(), "int_val"));
      break;
    case ::tensorflow::DT_INT16:
    case ::tensorflow::DT_QINT16:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int_val(), n, t.data<int16_t>(), "int_val"));
      break;
    case ::tensorflow::DT_UINT16:
    case ::tensorflow::DT_QUINT16:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int_val(), n, t.data<uint16_t>(), "int_val"));
      break;
    case ::tensorflow::DT_INT8:
    case ::tensorflow::DT_QINT8:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int_val(), n, t.data<int8_t>(), "int_val"));
      break;
    case ::tensorflow::DT_UINT8:
    case ::tensorflow::DT_QUINT8:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int_val(), n, t.data<uint8_t>(), "int_val"));
      break;
    case ::tensorflow::DT_QINT32:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int_val(), n, t.data<int32_t>(), "int_val"));
      break;
    case ::tensorflow::DT_INT64:
      GRT_RETURN_IF_ERROR(FillFromField(proto.int64_val(), n, t.data<int64_t>(), "int64_val"));
      break;
    case ::tensorflow::DT_UINT32:
      GRT_RETURN_IF_ERROR(FillFromField(proto.uint32_val(), n, t.data<uint32_t>(), "uint32_val"));
      break;
    case ::tensorflow::DT_UINT64:
      GRT_RETURN_IF_ERROR(FillFromField(proto.uint64_val(), n, t.data<uint64_t>(), "uint64_val"));
      break;
    case ::tensorflow::DT_BOOL:
      GRT_RETURN_IF_ERROR(FillFromField(proto.bool_val(), n, t.data<bool>(), "bool_val"));
      break;
    case ::tensorflow::DT_HALF:
      GRT_RETURN_IF_ERROR(FillFromBits(proto.half_val(), n, t.data<half>(), "half_val"));
      break;
    case ::tensorflow::DT_BFLOAT16:
      GRT_RETURN_IF_ERROR(FillFromBits(proto.half_val(), n, t.data<bfloat16>(), "half_val"));
      break;
    case ::tensorflow::DT_COMPLEX64:
      GRT_RETURN_IF_ERROR(FillComplexFromField(proto.scomplex_val(), n,
                                               t.data<std::complex<float>>(), "scomplex_val"));
      break;
    case ::tensorflow::DT_COMPLEX128:
      GRT_RETURN_IF_ERROR(FillComplexFromField(proto.dcomplex_val(), n,
                                               t.data<std::complex<double>>(), "dcomplex_val"));
      break;
    case ::tensorflow::DT_STRING: {
      int64_t count = proto.string_val_size();
      if (count > n) return InvalidArgument("TensorProto has ", count, " strings for ", n);
      std::string* out = t.data<std::string>();
      for (int64_t i = 0; i < count; ++i) out[i] = proto.string_val(static_cast<int>(i));
      for (int64_t i = count; i < n && count > 0; ++i) out[i] = out[count - 1];
      break;
    }
    case ::tensorflow::DT_RESOURCE: {
      int64_t count = proto.resource_handle_val_size();
      if (count > n) return InvalidArgument("TensorProto has ", count, " handles for ", n);
      ResourceHandle* out = t.data<ResourceHandle>();
      for (int64_t i = 0; i < count; ++i) out[i].FromProto(proto.resource_handle_val(i));
      for (int64_t i = count; i < n && count > 0; ++i) out[i] = out[count - 1];
      break;
    }
    case ::tensorflow::DT_VARIANT:
      if (proto.variant_val_size() > 0) {
        return Unimplemented("decoding DT_VARIANT values from a TensorProto");
      }
      break;
    default:
      return Unimplemented("TensorProto dtype ", DataTypeString(dtype));
  }
  return t;
}

void Tensor::AsProtoTensorContent(::tensorflow::TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (IsPodType(dtype_)) {
    proto->set_tensor_content(std::string(static_cast<const char*>(raw_data()), TotalBytes()));
  } else {
    AsProtoField(proto);
  }
}

void Tensor::AsProtoField(::tensorflow::TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  int64_t n = num_elements_;
  switch (dtype_) {
    case ::tensorflow::DT_FLOAT:
      for (int64_t i = 0; i < n; ++i) proto->add_float_val(data<float>()[i]);
      break;
    case ::tensorflow::DT_DOUBLE:
      for (int64_t i = 0; i < n; ++i) proto->add_double_val(data<double>()[i]);
      break;
    case ::tensorflow::DT_INT32:
    case ::tensorflow::DT_QINT32:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(data<int32_t>()[i]);
      break;
    case ::tensorflow::DT_INT16:
    case ::tensorflow::DT_QINT16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(data<int16_t>()[i]);
      break;
    case ::tensorflow::DT_UINT16:
    case ::tensorflow::DT_QUINT16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(data<uint16_t>()[i]);
      break;
    case ::tensorflow::DT_INT8:
    case ::tensorflow::DT_QINT8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(data<int8_t>()[i]);
      break;
    case ::tensorflow::DT_UINT8:
    case ::tensorflow::DT_QUINT8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(data<uint8_t>()[i]);
      break;
    case ::tensorflow::DT_INT64:
      for (int64_t i = 0; i < n; ++i) proto->add_int64_val(data<int64_t>()[i]);
      break;
    case ::tensorflow::DT_UINT32:
      for (int64_t i = 0; i < n; ++i) proto->add_uint32_val(data<uint32_t>()[i]);
      break;
    case ::tensorflow::DT_UINT64:
      for (int64_t i = 0; i < n; ++i) proto->add_uint64_val(data<uint64_t>()[i]);
      break;
    case ::tensorflow::DT_BOOL:
      for (int64_t i = 0; i < n; ++i) proto->add_bool_val(data<bool>()[i]);
      break;
    case ::tensorflow::DT_HALF:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_half_val(Eigen::numext::bit_cast<uint16_t>(data<half>()[i]));
      }
      break;
    case ::tensorflow::DT_BFLOAT16:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_half_val(Eigen::numext::bit_cast<uint16_t>(data<bfloat16>()[i]));
      }
      break;
    case ::tensorflow::DT_COMPLEX64:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_scomplex_val(data<std::complex<float>>()[i].real());
        proto->add_scomplex_val(data<std::complex<float>>()[i].imag());
      }
      break;
    case ::tensorflow::DT_COMPLEX128:
      for (int64_t i = 0; i < n; ++i) {
        proto->add_dcomplex_val(data<std::complex<double>>()[i].real());
        proto->add_dcomplex_val(data<std::complex<double>>()[i].imag());
      }
      break;
    case ::tensorflow::DT_STRING:
      for (int64_t i = 0; i < n; ++i) proto->add_string_val(data<std::string>()[i]);
      break;
    case ::tensorflow::DT_RESOURCE:
      for (int64_t i = 0; i < n; ++i)
        data<ResourceHandle>()[i].AsProto(proto->add_resource_handle_val());
      break;
    default:
      break;
  }
}

// ---- Text ----

std::string FormatShortest(double value, bool is_float32) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::to_chars_result r = is_float32
                               ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value))
                               : std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, r.ptr);
}

namespace {
std::string QuoteJson(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char esc[8];
          std::snprintf(esc, sizeof(esc), "\\u%04x", c);
          out += esc;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// numpy's spelling: "1.5+2j", "1-2j", "nan+infj".
std::string ComplexString(double re, double im, bool is_float32) {
  std::string imag = FormatShortest(im, is_float32);
  const char* sign = std::signbit(im) && !std::isnan(im) ? "" : "+";
  return StrCat(FormatShortest(re, is_float32), sign, imag, "j");
}
}  // namespace

std::string Tensor::ElementString(int64_t i) const {
  if (in_device_memory()) return "?";
  switch (dtype_) {
    case ::tensorflow::DT_FLOAT:
      return FormatShortest(data<float>()[i], true);
    case ::tensorflow::DT_DOUBLE:
      return FormatShortest(data<double>()[i], false);
    case ::tensorflow::DT_HALF:
      return FormatShortest(static_cast<float>(data<half>()[i]), true);
    case ::tensorflow::DT_BFLOAT16:
      return FormatShortest(static_cast<float>(data<bfloat16>()[i]), true);
    case ::tensorflow::DT_INT8:
    case ::tensorflow::DT_QINT8:
      return std::to_string(data<int8_t>()[i]);
    case ::tensorflow::DT_INT16:
    case ::tensorflow::DT_QINT16:
      return std::to_string(data<int16_t>()[i]);
    case ::tensorflow::DT_INT32:
    case ::tensorflow::DT_QINT32:
      return std::to_string(data<int32_t>()[i]);
    case ::tensorflow::DT_INT64:
      return std::to_string(data<int64_t>()[i]);
    case ::tensorflow::DT_UINT8:
    case ::tensorflow::DT_QUINT8:
      return std::to_string(data<uint8_t>()[i]);
    case ::tensorflow::DT_UINT16:
    case ::tensorflow::DT_QUINT16:
      return std::to_string(data<uint16_t>()[i]);
    case ::tensorflow::DT_UINT32:
      return std::to_string(data<uint32_t>()[i]);
    case ::tensorflow::DT_UINT64:
      return std::to_string(data<uint64_t>()[i]);
    case ::tensorflow::DT_BOOL:
      return data<bool>()[i] ? "true" : "false";
    case ::tensorflow::DT_COMPLEX64:
      return ComplexString(data<std::complex<float>>()[i].real(),
                           data<std::complex<float>>()[i].imag(), true);
    case ::tensorflow::DT_COMPLEX128:
      return ComplexString(data<std::complex<double>>()[i].real(),
                           data<std::complex<double>>()[i].imag(), false);
    case ::tensorflow::DT_STRING:
      return QuoteJson(data<std::string>()[i]);
    case ::tensorflow::DT_RESOURCE:
      return QuoteJson(data<ResourceHandle>()[i].DebugString());
    case ::tensorflow::DT_VARIANT:
      return QuoteJson(data<Variant>()[i].TypeName());
    default:
      return "?";
  }
}

std::string Tensor::DebugString(int max_entries) const {
  if (in_device_memory()) {
    return StrCat(DataTypeString(dtype_), shape_.DebugString(), " <in device memory>");
  }
  if (!IsInitialized()) return "<uninitialized tensor>";
  std::string out = StrCat(DataTypeString(dtype_), shape_.DebugString(), " [");
  int64_t shown = std::min<int64_t>(num_elements_, max_entries);
  for (int64_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += ElementString(i);
  }
  if (shown < num_elements_) out += ", ...";
  return out + "]";
}

}  // namespace graphrt
