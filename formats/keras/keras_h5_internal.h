// Shared by the in-process reader (keras_h5_file.cc) and the forked one (keras_h5_isolated.cc),
// and by their tests; not part of the API.
#ifndef GRAPHRT_FORMATS_KERAS_KERAS_H5_INTERNAL_H_
#define GRAPHRT_FORMATS_KERAS_KERAS_H5_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "formats/keras/keras_h5_file.h"

// Sanitizers (GCC defines __SANITIZE_*__, clang answers __has_feature) change what the forked
// reader can do: they reserve terabytes of shadow memory, so the child gets no RLIMIT_AS; and
// AddressSanitizer's allocator (GCC 12, clang 14) is not fork-safe, so a child forked while
// another thread allocates may hang in malloc until the timeout, and the sanitizer reports a
// libhdf5 bug it sees first and exits with status 1 rather than dying of the signal.
#if defined(__SANITIZE_ADDRESS__)
#define GRAPHRT_KERAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRAPHRT_KERAS_ASAN 1
#endif
#endif
#if defined(GRAPHRT_KERAS_ASAN) || defined(__SANITIZE_THREAD__)
#define GRAPHRT_KERAS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GRAPHRT_KERAS_SANITIZED 1
#endif
#endif

namespace graphrt {
namespace keras {
namespace internal {

#ifdef GRAPHRT_KERAS_ASAN
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#ifdef GRAPHRT_KERAS_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Debian's libhdf5 is not thread-safe: every call into it, and every fork of a reader, holds
// this.
std::mutex& Hdf5Mutex();
// HDF5 prints its error stack to stderr by default; graphrt reports through Status instead.
void SilenceHdf5Errors();

// Where the reader puts a weight's values: a buffer of `elements` floats that stays valid until
// the read ends. The in-process reader allocates weight->value; the forked child must not
// (Tensor's buffer cache has a mutex a parent thread may have held at fork), so it keeps plain
// vectors.
using WeightBuffer = std::function<StatusOr<float*>(
    KerasWeight* weight, const std::vector<int64_t>& shape, int64_t elements)>;

// The reader itself. REQUIRES: Hdf5Mutex() held, or a single-threaded (forked) process.
Status ReadKerasH5Contents(const std::string& path, const KerasH5ReadOptions& options,
                           const WeightBuffer& buffer, KerasH5File* file);

// The child's reply, one of
//   magic "GRTKH5\x01\n", u8 0, u32 code, str message, trailer
//   magic "GRTKH5\x01\n", u8 1, str keras_version, backend, model_config, training_config,
//     u8 has_optimizer_weights, u8 layout, u64 layer count, per layer { str name, u64 weight count,
//     per weight { str name, u32 rank, i64 dims[rank], float32 values[product of dims] } }, trailer
// where str is u64 length + bytes, integers are the machine's (parent and child are one
// binary), and the trailer is "GRTKH5END".
using ReplyWriter = std::function<bool(const void* data, size_t size)>;
// Reads exactly `size` bytes or fails (a short or late reply).
using ReplyReader = std::function<Status(void* data, size_t size)>;

// values[i] holds the i-th weight of `file` in layer order (its Tensor left empty), as
// `shapes[i]`.
bool WriteReply(const KerasH5File& file, const std::vector<std::vector<int64_t>>& shapes,
                const std::vector<std::vector<float>>& values, const ReplyWriter& write);
bool WriteErrorReply(const Status& status, const ReplyWriter& write);
// Checks every length against `options` before allocating for it; the status of an error reply
// comes back as it was sent. `path` names the file in errors and fills file->path.
StatusOr<KerasH5File> ReadReply(const std::string& path, const KerasH5ReadOptions& options,
                                const ReplyReader& read);

}  // namespace internal
}  // namespace keras
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_KERAS_KERAS_H5_INTERNAL_H_
