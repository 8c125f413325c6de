// Status and StatusOr: how every fallible graphrt call reports failure. The codes are
// TensorFlow's (tensorflow/core/protobuf/error_codes.proto), so messages and callers port as is.
#ifndef GRAPHRT_STATUS_H_
#define GRAPHRT_STATUS_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include <graphrt/export.h>
#include <graphrt/str_cat.h>

namespace graphrt {

enum class Code : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// TensorFlow's spelling of a code, e.g. "INVALID_ARGUMENT".
GRAPHRT_EXPORT const char* CodeName(Code code);

class [[nodiscard]] GRAPHRT_EXPORT Status {
 public:
  Status() = default;
  Status(Code code, std::string message);

  static Status OK() { return Status(); }
  bool ok() const { return state_ == nullptr; }
  Code code() const { return ok() ? Code::kOk : state_->code; }
  const std::string& message() const;
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;
  // Prepends context: "reading x.pb: <old message>". No-op on OK.
  Status& Prepend(const std::string& context);
  void IgnoreError() const {}

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }
  bool operator!=(const Status& other) const { return !(*this == other); }

 private:
  struct State {
    Code code;
    std::string message;
  };
  // Null when OK, so an OK status costs one pointer.
  std::shared_ptr<const State> state_;
};

GRAPHRT_EXPORT std::ostream& operator<<(std::ostream& os, const Status& s);

template <typename... Args>
Status InvalidArgument(const Args&... args) {
  return Status(Code::kInvalidArgument, StrCat(args...));
}
template <typename... Args>
Status NotFound(const Args&... args) {
  return Status(Code::kNotFound, StrCat(args...));
}
template <typename... Args>
Status Internal(const Args&... args) {
  return Status(Code::kInternal, StrCat(args...));
}
template <typename... Args>
Status Unimplemented(const Args&... args) {
  return Status(Code::kUnimplemented, StrCat(args...));
}
template <typename... Args>
Status DataLoss(const Args&... args) {
  return Status(Code::kDataLoss, StrCat(args...));
}
template <typename... Args>
Status FailedPrecondition(const Args&... args) {
  return Status(Code::kFailedPrecondition, StrCat(args...));
}
template <typename... Args>
Status OutOfRange(const Args&... args) {
  return Status(Code::kOutOfRange, StrCat(args...));
}
template <typename... Args>
Status ResourceExhausted(const Args&... args) {
  return Status(Code::kResourceExhausted, StrCat(args...));
}
template <typename... Args>
Status DeadlineExceeded(const Args&... args) {
  return Status(Code::kDeadlineExceeded, StrCat(args...));
}
template <typename... Args>
Status AlreadyExists(const Args&... args) {
  return Status(Code::kAlreadyExists, StrCat(args...));
}
template <typename... Args>
Status Cancelled(const Args&... args) {
  return Status(Code::kCancelled, StrCat(args...));
}

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Internal("StatusOr built from an OK Status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace graphrt

#define GRT_CONCAT_INNER_(a, b) a##b
#define GRT_CONCAT_(a, b) GRT_CONCAT_INNER_(a, b)

#define GRT_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::graphrt::Status grt_status_ = (expr);    \
    if (!grt_status_.ok()) return grt_status_; \
  } while (0)

#define GRT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

#define GRT_ASSIGN_OR_RETURN(lhs, expr) \
  GRT_ASSIGN_OR_RETURN_IMPL_(GRT_CONCAT_(grt_statusor_, __LINE__), lhs, expr)

#endif  // GRAPHRT_STATUS_H_
