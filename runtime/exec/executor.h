// The executor runs a placed graph: every node once per (frame, iteration) in which its inputs
// arrive, with TensorFlow's dataflow semantics.
//
// - Dead tensors: a Switch sets only one of its outputs; the other is dead. A node with a dead
//   input does not run and its outputs are dead, except Merge (runs on its first live input, or
//   is dead when every data input is dead) and ControlTrigger.
// - Frames: Enter moves a value into a child frame (one per while loop and parent iteration),
//   Exit back to the parent, NextIteration to the next iteration. Each iteration keeps its own
//   input slots and pending counts, freed when the iteration is done; `parallel_iterations`
//   (the Enter attr) bounds the iterations alive at once. Constant Enters (loop invariants)
//   reach every iteration.
// - Structure is checked before anything runs: an Exit or NextIteration outside a loop, nodes
//   whose inputs come from different frames, or a cycle that does not pass through
//   NextIteration -> Merge are INVALID_ARGUMENT naming the node.
//
// Threads: ready nodes run on the caller's thread; with an inter-op pool, extra expensive ready
// nodes go to the pool. All frame bookkeeping happens under one mutex per run (none is taken
// without a pool: then every node runs on the caller's thread).
//
// Per iteration nothing is allocated once a loop is warm: iteration states are reused, a node
// reads its inputs in place from its iteration's slots, and each thread reuses one output
// vector for every kernel it runs.
#ifndef GRAPHRT_RUNTIME_EXEC_EXECUTOR_H_
#define GRAPHRT_RUNTIME_EXEC_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/clock.h"
#include "runtime/core/status.h"
#include "runtime/graph/graph.h"
#include "runtime/kernels/op_kernel.h"
#include "step_stats.pb.h"

namespace Eigen {
class ThreadPoolInterface;
}  // namespace Eigen

namespace graphrt {

class ResourceMgr;

struct ExecutorOptions {
  // devices[i] runs node i (indexed by node id); every node of the graph needs one.
  std::vector<Device*> devices;
  ResourceMgr* resources = nullptr;
  FunctionRuntime* functions = nullptr;
};

struct ExecutorRunArgs {
  CallFrame* call_frame = nullptr;
  StepState* step = nullptr;
  // Absolute deadline in microseconds of the steady clock; 0 = none.
  int64_t deadline_micros = 0;
  // Null: every node runs on the caller's thread.
  Eigen::ThreadPoolInterface* inter_op_pool = nullptr;
  // When set, per-node timings are appended (one DeviceStepStats per device).
  ::tensorflow::StepStats* step_stats = nullptr;
};

class Executor {
 public:
  // Takes the graph (already pruned and placed) and builds one kernel per node.
  static StatusOr<std::unique_ptr<Executor>> Create(std::unique_ptr<Graph> graph,
                                                    const ExecutorOptions& options);
  ~Executor();

  // Runs the graph once. Thread-safe: concurrent runs share kernels, never state.
  Status Run(const ExecutorRunArgs& args) const;

  const Graph& graph() const;

  struct Impl;

 private:
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_EXEC_EXECUTOR_H_
