// ReadKerasH5FileIsolated: libhdf5 reads the file in a forked child, which sends the result back
// through a pipe (the reply format is in keras_h5_internal.h).
//
// After fork the child is a copy of one thread of a process whose other threads (thread pools,
// OpenCL drivers) may have held locks at that instant; those locks stay held forever in the
// child. So the child touches only what no parent thread can hold: malloc (glibc resets its
// locks at fork), HDF5 (every in-process HDF5 call holds Hdf5Mutex(), which the parent holds
// across fork), the pipe and _exit. In particular it never allocates a Tensor (the buffer cache
// has a mutex) and never returns into the caller's code or runs exit handlers.
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "formats/keras/keras_h5_file.h"
#include "formats/keras/keras_h5_internal.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {
namespace {

constexpr char kMagic[] = "GRTKH5\x01\n";
constexpr char kTrailer[] = "GRTKH5END";
constexpr uint64_t kMaxReplyCount = uint64_t{1} << 22;
constexpr uint64_t kMaxErrorMessage = uint64_t{1} << 20;
constexpr int kMaxReplyRank = 8;
constexpr int64_t kMaxReplyDimension = int64_t{1} << 40;

// Child exit codes other than 0 (a reply was sent).
constexpr int kExitCannotWrite = 3;

class ReplyEncoder {
 public:
  explicit ReplyEncoder(const ReplyWriter& write) : write_(write) {}
  bool Bytes(const void* data, size_t size) { return write_(data, size); }
  template <typename T>
  bool Int(T value) {
    return write_(&value, sizeof(value));
  }
  bool Str(const std::string& s) { return Int<uint64_t>(s.size()) && Bytes(s.data(), s.size()); }
  bool Magic() { return Bytes(kMagic, sizeof(kMagic) - 1); }
  bool Trailer() { return Bytes(kTrailer, sizeof(kTrailer) - 1); }

 private:
  const ReplyWriter& write_;
};

class ReplyDecoder {
 public:
  ReplyDecoder(const std::string& path, const ReplyReader& read) : path_(path), read_(read) {}

  Status Malformed(const std::string& what) const {
    return DataLoss(path_, ": malformed reply from the HDF5 reader process: ", what);
  }
  template <typename T>
  Status Int(T* value) {
    return read_(value, sizeof(*value));
  }
  Status Str(uint64_t max, const char* what, std::string* s) {
    uint64_t size = 0;
    GRT_RETURN_IF_ERROR(Int(&size));
    if (size > max) return Malformed(StrCat(what, " of ", size, " bytes"));
    s->resize(static_cast<size_t>(size));
    return read_(s->data(), s->size());
  }
  Status Expect(const char* text, size_t size, const char* what) {
    std::string got(size, '\0');
    GRT_RETURN_IF_ERROR(read_(got.data(), size));
    if (got != std::string(text, size)) return Malformed(StrCat("no ", what));
    return Status::OK();
  }
  Status Count(const char* what, uint64_t* n) {
    GRT_RETURN_IF_ERROR(Int(n));
    if (*n > kMaxReplyCount) return Malformed(StrCat(*n, " ", what));
    return Status::OK();
  }

 private:
  const std::string& path_;
  const ReplyReader& read_;
};

std::chrono::steady_clock::time_point Deadline(double seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(seconds));
}

// Reads the child's pipe, buffered, until a deadline.
class PipeReader {
 public:
  PipeReader(int fd, const std::string& path, std::chrono::steady_clock::time_point deadline)
      : fd_(fd), path_(path), deadline_(deadline) {}

  Status ReadExact(void* data, size_t size) {
    char* out = static_cast<char*>(data);
    while (size > 0) {
      if (begin_ < end_) {
        size_t n = std::min(size, end_ - begin_);
        std::memcpy(out, buffer_ + begin_, n);
        begin_ += n;
        out += n;
        size -= n;
        continue;
      }
      // Large reads (weights) go straight to their destination.
      bool direct = size >= sizeof(buffer_);
      ssize_t n = ReadSome(direct ? out : buffer_, direct ? size : sizeof(buffer_));
      if (n < 0) return DataLoss(path_, ": no reply from the HDF5 reader process");
      if (n == 0) return DataLoss(path_, ": the reply of the HDF5 reader process ends early");
      if (direct) {
        out += n;
        size -= static_cast<size_t>(n);
      } else {
        begin_ = 0;
        end_ = static_cast<size_t>(n);
      }
    }
    return Status::OK();
  }

  // Reads and drops the rest, so that a child still writing can finish and exit by itself.
  void Drain() {
    while (!timed_out_ && ReadSome(buffer_, sizeof(buffer_)) > 0) {
    }
  }

  bool timed_out() const { return timed_out_; }

 private:
  // > 0 bytes read, 0 at the end of the pipe, < 0 on a timeout or error.
  ssize_t ReadSome(char* data, size_t size) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline_ - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) {
        timed_out_ = true;
        return -1;
      }
      pollfd p = {fd_, POLLIN, 0};
      int r = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return -1;
      if (r == 0) continue;  // the deadline check above decides
      ssize_t n = read(fd_, data, size);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return n;
    }
  }

  int fd_;
  const std::string& path_;
  std::chrono::steady_clock::time_point deadline_;
  bool timed_out_ = false;
  char buffer_[64 << 10];
  size_t begin_ = 0;
  size_t end_ = 0;
};

// Writes everything or fails; small pieces are gathered so the reply is not a syscall per int.
class PipeWriter {
 public:
  explicit PipeWriter(int fd) : fd_(fd) {}
  bool Write(const void* data, size_t size) {
    if (size < sizeof(buffer_) - used_) {
      std::memcpy(buffer_ + used_, data, size);
      used_ += size;
      return true;
    }
    return Flush() && WriteAll(static_cast<const char*>(data), size);
  }
  bool Flush() {
    bool ok = WriteAll(buffer_, used_);
    used_ = 0;
    return ok;
  }

 private:
  bool WriteAll(const char* p, size_t size) {
    while (size > 0) {
      ssize_t n = write(fd_, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }

  int fd_;
  char buffer_[64 << 10];
  size_t used_ = 0;
};

// What the process has mapped now, the base of the child's address-space limit; 0 if unknown.
int64_t MappedBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long long pages = 0;
  int got = std::fscanf(f, "%lld", &pages);
  std::fclose(f);
  return got == 1 && pages > 0 ? pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// The child's whole life. Never returns.
[[noreturn]] void RunChild(const std::string& path, const KerasH5ReadOptions& options, int fd,
                           int64_t address_space_limit, pid_t parent) {
  // Die with the parent rather than linger in a hang; the parent may already be gone.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(kExitCannotWrite);
  // A crash must end the child with its signal, for the parent to report: no handlers (the
  // parent's, or a sanitizer's), and no core file.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGPIPE}) {
    std::signal(sig, SIG_DFL);
  }
  // The child has nothing to say on stdout or stderr; a sanitizer's report or a library's
  // message there would break the command's one-line error.
  int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
  }
  rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (address_space_limit > 0) {
    rlimit as = {static_cast<rlim_t>(address_space_limit),
                 static_cast<rlim_t>(address_space_limit)};
    setrlimit(RLIMIT_AS, &as);
  }
  PipeWriter pipe(fd);
  ReplyWriter write = [&pipe](const void* data, size_t size) { return pipe.Write(data, size); };
  bool sent = false;
  try {
    KerasH5File file;
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::vector<float>> values;
    Status s = ReadKerasH5Contents(
        path, options,
        [&](KerasWeight*, const std::vector<int64_t>& shape, int64_t elements) -> StatusOr<float*> {
          shapes.push_back(shape);
          values.emplace_back(static_cast<size_t>(elements));
          return values.back().data();
        },
        &file);
    sent = s.ok() ? WriteReply(file, shapes, values, write) : WriteErrorReply(s, write);
  } catch (const std::bad_alloc&) {
    sent = WriteErrorReply(
        ResourceExhausted(path, ": the HDF5 reader process ran out of memory (limit ",
                          address_space_limit, " bytes of address space)"),
        write);
  }
  _exit(sent && pipe.Flush() ? 0 : kExitCannotWrite);
}

}  // namespace

bool WriteReply(const KerasH5File& file, const std::vector<std::vector<int64_t>>& shapes,
                const std::vector<std::vector<float>>& values, const ReplyWriter& write) {
  ReplyEncoder e(write);
  bool ok = e.Magic() && e.Int<uint8_t>(1) && e.Str(file.keras_version) && e.Str(file.backend) &&
            e.Str(file.model_config) && e.Str(file.training_config) &&
            e.Int<uint8_t>(file.has_optimizer_weights ? 1 : 0) &&
            e.Int<uint8_t>(static_cast<uint8_t>(file.layout)) &&
            e.Int<uint64_t>(file.layers.size());
  size_t next = 0;
  for (const KerasLayerWeights& layer : file.layers) {
    ok = ok && e.Str(layer.layer) && e.Int<uint64_t>(layer.weights.size());
    for (const KerasWeight& weight : layer.weights) {
      if (!ok || next >= shapes.size() || next >= values.size()) return false;
      const std::vector<int64_t>& shape = shapes[next];
      const std::vector<float>& v = values[next++];
      ok = e.Str(weight.name) && e.Int<uint32_t>(static_cast<uint32_t>(shape.size()));
      for (int64_t d : shape) ok = ok && e.Int<int64_t>(d);
      ok = ok && e.Bytes(v.data(), v.size() * sizeof(float));
    }
  }
  return ok && e.Trailer();
}

bool WriteErrorReply(const Status& status, const ReplyWriter& write) {
  ReplyEncoder e(write);
  return e.Magic() && e.Int<uint8_t>(0) && e.Int<uint32_t>(static_cast<uint32_t>(status.code())) &&
         e.Str(status.message()) && e.Trailer();
}

StatusOr<KerasH5File> ReadReply(const std::string& path, const KerasH5ReadOptions& options,
                                const ReplyReader& read) {
  ReplyDecoder d(path, read);
  GRT_RETURN_IF_ERROR(d.Expect(kMagic, sizeof(kMagic) - 1, "reply header"));
  uint8_t kind = 0;
  GRT_RETURN_IF_ERROR(d.Int(&kind));
  if (kind == 0) {
    uint32_t code = 0;
    std::string message;
    GRT_RETURN_IF_ERROR(d.Int(&code));
    GRT_RETURN_IF_ERROR(d.Str(kMaxErrorMessage, "an error message", &message));
    GRT_RETURN_IF_ERROR(d.Expect(kTrailer, sizeof(kTrailer) - 1, "end of reply"));
    if (code == 0 || code > static_cast<uint32_t>(Code::kUnauthenticated)) {
      return d.Malformed(StrCat("error code ", code));
    }
    return Status(static_cast<Code>(code), message);
  }
  if (kind != 1) return d.Malformed(StrCat("reply kind ", static_cast<int>(kind)));
  const uint64_t max_string = static_cast<uint64_t>(options.max_attribute_bytes);
  KerasH5File file;
  file.path = path;
  GRT_RETURN_IF_ERROR(d.Str(max_string, "keras_version", &file.keras_version));
  GRT_RETURN_IF_ERROR(d.Str(max_string, "backend", &file.backend));
  GRT_RETURN_IF_ERROR(d.Str(max_string, "model_config", &file.model_config));
  GRT_RETURN_IF_ERROR(d.Str(max_string, "training_config", &file.training_config));
  uint8_t has_optimizer_weights = 0;
  GRT_RETURN_IF_ERROR(d.Int(&has_optimizer_weights));
  if (has_optimizer_weights > 1) return d.Malformed("has_optimizer_weights");
  file.has_optimizer_weights = has_optimizer_weights == 1;
  uint8_t layout = 0;
  GRT_RETURN_IF_ERROR(d.Int(&layout));
  if (layout > static_cast<uint8_t>(KerasWeightsLayout::kKeras3)) return d.Malformed("layout");
  file.layout = static_cast<KerasWeightsLayout>(layout);
  uint64_t layers = 0;
  GRT_RETURN_IF_ERROR(d.Count("layers", &layers));
  int64_t weight_bytes = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    KerasLayerWeights& layer = file.layers.emplace_back();
    GRT_RETURN_IF_ERROR(d.Str(max_string, "a layer name", &layer.layer));
    uint64_t weights = 0;
    GRT_RETURN_IF_ERROR(d.Count("weights", &weights));
    for (uint64_t j = 0; j < weights; ++j) {
      KerasWeight& weight = layer.weights.emplace_back();
      GRT_RETURN_IF_ERROR(d.Str(max_string, "a weight name", &weight.name));
      uint32_t rank = 0;
      GRT_RETURN_IF_ERROR(d.Int(&rank));
      if (rank > kMaxReplyRank) return d.Malformed(StrCat("rank ", rank));
      std::vector<int64_t> shape(rank);
      int64_t elements = 1;
      for (int64_t& dim : shape) {
        GRT_RETURN_IF_ERROR(d.Int(&dim));
        if (dim < 0 || dim > kMaxReplyDimension ||
            (dim != 0 && elements > (options.max_weight_bytes / 4 + 1) / dim)) {
          return d.Malformed(StrCat("weight '", weight.name, "' of shape beyond the budget"));
        }
        elements *= dim;
      }
      if (elements * 4 > options.max_weight_bytes - weight_bytes) {
        return d.Malformed("weights beyond KerasH5ReadOptions::max_weight_bytes");
      }
      weight_bytes += elements * 4;
      GRT_ASSIGN_OR_RETURN(weight.value,
                           Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape(shape)));
      GRT_RETURN_IF_ERROR(read(weight.value.raw_data(), static_cast<size_t>(elements) * 4));
    }
  }
  GRT_RETURN_IF_ERROR(d.Expect(kTrailer, sizeof(kTrailer) - 1, "end of reply"));
  return file;
}

}  // namespace internal

StatusOr<KerasH5File> ReadKerasH5FileIsolated(const std::string& path,
                                              const KerasH5ReadOptions& options) {
  if (!(options.timeout_seconds > 0) || options.max_weight_bytes < 0 ||
      options.child_address_space_slack_bytes < 0) {
    return InvalidArgument("KerasH5ReadOptions: negative limits or no timeout reading ", path);
  }
  int64_t address_space_limit = 0;
  // Sanitizers reserve terabytes of shadow memory and map more as they go: no limit under them.
  int64_t mapped = internal::kSanitized ? 0 : internal::MappedBytes();
  if (mapped > 0 && options.child_address_space_slack_bytes > 0) {
    address_space_limit =
        mapped + options.max_weight_bytes + options.child_address_space_slack_bytes;
  }
  const pid_t parent = getpid();
  int fds[2];
  pid_t pid;
  {
    // Held across fork: no thread of ours is inside HDF5 when the child is made, and no other
    // reader's fork can copy this pipe's write end (which would keep it open after our child
    // exits).
    std::lock_guard<std::mutex> lock(internal::Hdf5Mutex());
    internal::SilenceHdf5Errors();
    if (pipe2(fds, O_CLOEXEC) != 0) {
      return Internal("cannot make a pipe to read ", path, ": ", std::strerror(errno));
    }
    pid = fork();
    if (pid == 0) {
      close(fds[0]);
      internal::RunChild(path, options, fds[1], address_space_limit, parent);
    }
    int fork_errno = errno;
    close(fds[1]);
    if (pid < 0) {
      close(fds[0]);
      return ResourceExhausted("cannot fork a process to read ", path, ": ",
                               std::strerror(fork_errno));
    }
  }
  const auto deadline = internal::Deadline(options.timeout_seconds);
  auto reader = std::make_unique<internal::PipeReader>(fds[0], path, deadline);
  StatusOr<KerasH5File> result = internal::ReadReply(
      path, options, [&](void* data, size_t size) { return reader->ReadExact(data, size); });
  reader->Drain();
  close(fds[0]);
  const bool timed_out = reader->timed_out();
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  // The pipe has ended, which only the child's exit does, or the child has just been killed.
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return DataLoss(path, ": the HDF5 library did not finish reading it in ",
                    options.timeout_seconds,
                    " s (a hang on a crafted file?); the reader process was killed");
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return DataLoss(path, ": the HDF5 library crashed (signal ", sig, ", ", strsignal(sig),
                    ") reading it; the file is corrupt or crafted");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return DataLoss(path, ": the HDF5 reader process exited with status ", WEXITSTATUS(status),
                    " reading it");
  }
  return result;
}

}  // namespace keras
}  // namespace graphrt
