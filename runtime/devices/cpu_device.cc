#include <exception>
#include <mutex>
#include <thread>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "runtime/core/str_util.h"
#include "runtime/devices/device.h"

namespace graphrt {

namespace {

class CpuDevice : public Device {
 public:
  CpuDevice(int index, int num_threads)
      : Device(DeviceAttributes{
            StrCat("/job:localhost/replica:0/task:0/device:CPU:", index), kDeviceCpu,
            /*memory_limit=*/268435456, /*incarnation=*/0x9e3779b97f4a7c15ULL + index, ""}),
        num_threads_(num_threads > 0 ? num_threads
                                     : std::max(1u, std::thread::hardware_concurrency())),
        pool_(num_threads_),
        eigen_device_(&pool_, num_threads_) {}

  const Eigen::ThreadPoolDevice* eigen_cpu_device() const override { return &eigen_device_; }
  int intra_op_threads() const override { return num_threads_; }

  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) const override {
    if (total <= 0) return;
    if (num_threads_ == 1) {
      fn(0, total);
      return;
    }
    Eigen::TensorOpCost cost(0, 0, static_cast<double>(cost_per_unit));
    // An exception (a kernel's std::bad_alloc) must not leave a pool thread, where it would end
    // the process: the first one is kept and thrown again here, on the caller's thread, where
    // the executor turns it into the Run's Status.
    std::mutex mu;
    std::exception_ptr error;
    eigen_device_.parallelFor(total, cost, [&](Eigen::Index begin, Eigen::Index end) {
      try {
        fn(static_cast<int64_t>(begin), static_cast<int64_t>(end));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (error == nullptr) error = std::current_exception();
      }
    });
    if (error != nullptr) std::rethrow_exception(error);
  }

 private:
  int num_threads_;
  Eigen::ThreadPool pool_;
  Eigen::ThreadPoolDevice eigen_device_;
};

}  // namespace

std::unique_ptr<Device> NewCpuDevice(int index, int num_threads) {
  return std::make_unique<CpuDevice>(index, num_threads);
}

}  // namespace graphrt
