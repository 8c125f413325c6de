// Resources that outlive one kernel call: variables, lookup tables, TensorArrays. A Session owns
// one ResourceMgr for its lifetime; each run has another for per-step resources.
#ifndef GRAPHRT_RUNTIME_KERNELS_RESOURCE_MGR_H_
#define GRAPHRT_RUNTIME_KERNELS_RESOURCE_MGR_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "runtime/core/status.h"

namespace graphrt {

class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string DebugString() const = 0;
};

class ResourceMgr {
 public:
  // The resource under (container, name), or NOT_FOUND; FAILED_PRECONDITION if it is not a T.
  template <typename T>
  StatusOr<std::shared_ptr<T>> Lookup(const std::string& container, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find({container, name});
    if (it == resources_.end()) {
      return NotFound("Resource ", container, "/", name, " does not exist.");
    }
    auto typed = std::dynamic_pointer_cast<T>(it->second);
    if (typed == nullptr) {
      return FailedPrecondition("Resource ", container, "/", name, " is a ",
                                it->second->DebugString(), ", not the kind asked for");
    }
    return typed;
  }

  // Returns the existing resource, or stores and returns make()'s.
  template <typename T>
  StatusOr<std::shared_ptr<T>> LookupOrCreate(
      const std::string& container, const std::string& name,
      const std::function<StatusOr<std::shared_ptr<T>>()>& make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find({container, name});
    if (it != resources_.end()) {
      auto typed = std::dynamic_pointer_cast<T>(it->second);
      if (typed == nullptr) {
        return FailedPrecondition("Resource ", container, "/", name, " exists with another type");
      }
      return typed;
    }
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<T> created, make());
    resources_[{container, name}] = created;
    return created;
  }

  Status Create(const std::string& container, const std::string& name,
                std::shared_ptr<ResourceBase> resource) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = resources_.emplace(std::make_pair(container, name), std::move(resource));
    if (!inserted) return AlreadyExists("Resource ", container, "/", name, " already exists.");
    return Status::OK();
  }

  Status Delete(const std::string& container, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    if (resources_.erase({container, name}) == 0) {
      return NotFound("Resource ", container, "/", name, " does not exist.");
    }
    return Status::OK();
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    resources_.clear();
  }

 private:
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ResourceBase>> resources_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_RESOURCE_MGR_H_
