#include "runtime/exec/executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "runtime/core/exception_barrier.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/optimize/graph_optimizer.h"
#include "tensor_description.pb.h"

namespace graphrt {

namespace {

int64_t WallMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct OutEdge {
  int dst;        // node id
  int dst_slot;   // kControlSlot for a control edge
  int src_slot;   // kControlSlot for a control edge
  bool last_use;  // the last data edge reading src_slot: may take the value by move
};

struct NodeItem {
  const Node* node = nullptr;
  std::unique_ptr<OpKernel> kernel;
  Device* device = nullptr;
  int frame = -1;       // static frame the node runs in
  int local_id = -1;    // index among its frame's nodes
  int input_start = 0;  // first input slot in its frame's iteration state
  int num_inputs = 0;
  int num_outputs = 0;
  int initial_pending = 0;
  std::vector<OutEdge> out;
  std::vector<bool> input_wants_ref;
  std::vector<DataType> output_base_types;
  bool is_merge = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_control_trigger = false;
  bool is_control_flow = false;  // may leave outputs unset (dead)
  bool expensive = true;
  bool allows_uninitialized_input = false;
  int child_frame = -1;  // Enter: the frame it enters
};

struct StaticFrame {
  std::string name;
  int parent = -1;
  int num_enters = 0;
  int parallel_iterations = 10;
  int num_input_slots = 0;
  std::vector<int> nodes;            // node ids, by local id
  std::vector<int> initial_pending;  // by local id
  std::vector<int> exits;            // node ids of the Exits leaving this frame
};

}  // namespace

struct Executor::Impl {
  std::unique_ptr<Graph> graph;
  std::vector<NodeItem> items;      // by node id
  std::vector<StaticFrame> frames;  // frames[0] is the root
  std::vector<int> roots;           // nodes without inputs
  ExecutorOptions options;

  Status Initialize();
  Status BuildFrames();
};

namespace {

Status CheckAcyclic(const Graph& graph) {
  // Kahn's algorithm; the back edges NextIteration -> Merge are what make loops legal.
  std::vector<int> pending(static_cast<size_t>(graph.num_node_ids()), 0);
  std::deque<const Node*> queue;
  std::vector<Node*> nodes = graph.nodes();
  for (const Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      if (!(n->IsMerge() && e->src->IsNextIteration())) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) queue.push_back(n);
  }
  size_t visited = 0;
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    ++visited;
    for (const Edge* e : n->out_edges()) {
      if (e->dst->IsMerge() && n->IsNextIteration()) continue;
      if (--pending[e->dst->id()] == 0) queue.push_back(e->dst);
    }
  }
  if (visited == nodes.size()) return Status::OK();
  for (const Node* n : nodes) {
    if (pending[n->id()] > 0) {
      return InvalidArgument("the graph has a cycle through node '", n->name(), "' (", n->op(),
                             ") that does not pass through NextIteration -> Merge");
    }
  }
  return Internal("cycle check failed");
}

// Which inputs of `n` are the value of a Const node on n's own device, directly or through
// Identity nodes there (each forwards its input's buffer).
std::vector<bool> ConstantInputs(const Node& n, const std::vector<Device*>& devices) {
  auto device_of = [&](const Node* node) -> Device* {
    return node->id() < static_cast<int>(devices.size()) ? devices[node->id()] : nullptr;
  };
  Device* device = device_of(&n);
  std::vector<bool> constant(static_cast<size_t>(n.num_inputs()), false);
  for (int i = 0; i < n.num_inputs(); ++i) {
    const Edge* e = n.input_edge(i);
    while (e != nullptr && e->src->op() == "Identity" && device_of(e->src) == device) {
      e = e->src->input_edge(0);
    }
    constant[i] = e != nullptr && e->src->op() == "Const" && device_of(e->src) == device;
  }
  return constant;
}

}  // namespace

Status Executor::Impl::BuildFrames() {
  const Graph& g = *graph;
  std::vector<int> frame_of(static_cast<size_t>(g.num_node_ids()), -1);
  std::map<std::pair<int, std::string>, int> frame_ids;
  frames.clear();
  frames.push_back(StaticFrame{"", -1, 0, 1, 0, {}, {}, {}});
  std::deque<const Node*> queue;
  for (const Node* n : g.nodes()) {
    if (n->in_edges().empty()) {
      frame_of[n->id()] = 0;
      queue.push_back(n);
      roots.push_back(n->id());
    }
  }
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    int here = frame_of[n->id()];
    int there = here;
    if (n->IsEnter()) {
      std::string name;
      Status s = GetNodeAttr(n->def(), "frame_name", &name);
      if (!s.ok()) return s;
      auto key = std::make_pair(here, name);
      auto it = frame_ids.find(key);
      if (it == frame_ids.end()) {
        int64_t parallel = 10;
        GetNodeAttrOr(n->def(), "parallel_iterations", &parallel).IgnoreError();
        frames.push_back(StaticFrame{
            name, here, 0, static_cast<int>(std::max<int64_t>(1, parallel)), 0, {}, {}, {}});
        it = frame_ids.emplace(key, static_cast<int>(frames.size()) - 1).first;
      }
      there = it->second;
      items[n->id()].child_frame = there;
    } else if (n->IsExit()) {
      if (here == 0) {
        return InvalidArgument("Exit node '", n->name(),
                               "' is not inside any while loop: no Enter leads to it");
      }
      there = frames[here].parent;
    } else if (n->IsNextIteration() && here == 0) {
      return InvalidArgument("NextIteration node '", n->name(),
                             "' is not inside any while loop: no Enter leads to it");
    }
    for (const Edge* e : n->out_edges()) {
      int& dst_frame = frame_of[e->dst->id()];
      if (dst_frame == -1) {
        dst_frame = there;
        queue.push_back(e->dst);
      } else if (dst_frame != there) {
        return InvalidArgument(
            "node '", e->dst->name(), "' (", e->dst->op(), ") has inputs from different frames: '",
            frames[dst_frame].name.empty() ? "<root>" : frames[dst_frame].name, "' and '",
            frames[there].name.empty() ? "<root>" : frames[there].name, "' (through '", n->name(),
            "'); mismatched Enter/Exit structure");
      }
    }
  }
  for (const Node* n : g.nodes()) {
    if (frame_of[n->id()] == -1) {
      return InvalidArgument("node '", n->name(), "' (", n->op(),
                             ") cannot be reached from any source node of the graph");
    }
  }
  for (const Node* n : g.nodes()) {
    NodeItem& item = items[n->id()];
    StaticFrame& frame = frames[frame_of[n->id()]];
    item.frame = frame_of[n->id()];
    item.local_id = static_cast<int>(frame.nodes.size());
    item.input_start = frame.num_input_slots;
    frame.num_input_slots += item.num_inputs;
    frame.nodes.push_back(n->id());
    frame.initial_pending.push_back(item.initial_pending);
    if (n->IsEnter()) ++frames[item.child_frame].num_enters;
    if (n->IsExit()) frame.exits.push_back(n->id());
  }
  return Status::OK();
}

Status Executor::Impl::Initialize() {
  GRT_RETURN_IF_ERROR(CheckAcyclic(*graph));
  items.resize(static_cast<size_t>(graph->num_node_ids()));
  std::vector<Node*> nodes = graph->nodes();
  for (Node* n : nodes) {
    NodeItem& item = items[n->id()];
    item.node = n;
    if (n->id() >= static_cast<int>(options.devices.size()) ||
        options.devices[n->id()] == nullptr) {
      return Internal("node '", n->name(), "' has no device");
    }
    item.device = options.devices[n->id()];
    if (n->op_def() == nullptr) {
      return NotFound("Op type not registered '", n->op(), "' in binary (graphrt), used by node ",
                      n->name());
    }
    const Tensor* const_value = n->const_value().IsInitialized() ? &n->const_value() : nullptr;
    GRT_ASSIGN_OR_RETURN(item.kernel,
                         KernelRegistry::Global()->CreateKernel(
                             item.device->device_type(), n->def(), item.device, options.functions,
                             ConstantInputs(*n, options.devices), const_value));
    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    item.is_merge = n->IsMerge();
    item.is_enter = n->IsEnter();
    item.is_exit = n->IsExit();
    item.is_next_iteration = n->IsNextIteration();
    item.is_control_trigger = n->IsControlTrigger();
    item.is_control_flow =
        n->IsSwitch() || item.is_merge || item.is_enter || item.is_exit || item.is_next_iteration;
    if (item.is_enter) {
      bool constant = false;
      GetNodeAttrOr(n->def(), "is_constant", &constant).IgnoreError();
      item.is_constant_enter = constant;
    }
    item.expensive = item.kernel->IsExpensive();
    item.allows_uninitialized_input = n->op_def()->allows_uninitialized_input();
    for (int i = 0; i < item.num_inputs; ++i) {
      item.input_wants_ref.push_back(IsRefType(n->input_types()[i]));
    }
    for (int i = 0; i < item.num_outputs; ++i) {
      item.output_base_types.push_back(BaseType(n->output_type(i)));
    }
    int num_control = 0;
    int num_data = 0;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl()) {
        ++num_control;
      } else {
        ++num_data;
      }
    }
    if (num_data != item.num_inputs) {
      return InvalidArgument("node '", n->name(), "' has ", num_data, " of its ", item.num_inputs,
                             " inputs connected");
    }
    item.initial_pending = item.is_merge ? num_control : num_control + num_data;
    std::vector<int> last_edge_for_slot(static_cast<size_t>(item.num_outputs), -1);
    for (const Edge* e : n->out_edges()) {
      item.out.push_back(OutEdge{e->dst->id(), e->dst_input, e->src_output, false});
      if (!e->IsControl())
        last_edge_for_slot[e->src_output] = static_cast<int>(item.out.size()) - 1;
    }
    for (int idx : last_edge_for_slot) {
      if (idx >= 0) item.out[idx].last_use = true;
    }
  }
  return BuildFrames();
}

namespace {

// The input slots and counters of one iteration of one frame. Freed iterations are kept for
// reuse (RunState::free_iterations_), so a loop allocates them only up to its parallelism.
struct IterationState {
  std::vector<Entry> slots;
  std::vector<int> pending;
  std::vector<int> dead_count;
  std::vector<uint8_t> merge_flags;  // kLive | kFired | kDeadEnter
  int outstanding_ops = 0;
  int outstanding_frames = 0;
};

constexpr uint8_t kMergeLive = 1;
constexpr uint8_t kMergeFired = 2;
constexpr uint8_t kMergeDeadEnter = 4;

struct FrameState {
  int static_id = 0;
  FrameState* parent = nullptr;
  int64_t parent_iter = 0;
  int64_t iteration_count = 0;
  int num_outstanding_iterations = 1;
  int num_pending_enters = 0;
  int max_parallel = 1;
  // Live iterations are [first_iteration, iteration_count] (they end in order); iteration i is
  // ring[i % ring.size()].
  int64_t first_iteration = 0;
  std::vector<std::unique_ptr<IterationState>> ring;
  std::vector<std::pair<int, Entry>> next_iter_roots;
  std::vector<std::pair<int, Entry>> loop_invariants;
  std::set<int> exits_delivered;
  std::map<std::pair<int64_t, int>, std::unique_ptr<FrameState>> children;
  int64_t id = 0;

  bool HasIteration(int64_t i) const { return i >= first_iteration && i <= iteration_count; }
  IterationState* Iteration(int64_t i) const {
    return ring[static_cast<size_t>(i) % ring.size()].get();
  }
};

struct TaggedNode {
  int node = -1;
  FrameState* frame = nullptr;
  IterationState* state = nullptr;  // the iteration `iter` of `frame`
  int64_t iter = 0;
  bool dead = false;
};

// A FIFO of ready nodes that keeps its storage between pushes.
class ReadyQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  void push_back(const TaggedNode& t) { items_.push_back(t); }
  TaggedNode pop_front() {
    TaggedNode t = items_[head_++];
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return t;
  }

 private:
  std::vector<TaggedNode> items_;
  size_t head_ = 0;
};

class RunState {
 public:
  RunState(const Executor::Impl& impl, const ExecutorRunArgs& args)
      : impl_(impl), args_(args), free_iterations_(impl.frames.size()) {
    root_.static_id = 0;
    root_.max_parallel = 1;
    root_.ring.push_back(NewIteration(0));
  }

  Status Run() {
    std::vector<TaggedNode> ready;
    IterationState* root_iteration = root_.Iteration(0);
    for (int id : impl_.roots) {
      TaggedNode t;
      t.node = id;
      t.frame = &root_;
      t.state = root_iteration;
      t.iter = 0;
      ready.push_back(t);
    }
    root_iteration->outstanding_ops = static_cast<int>(ready.size());
    if (ready.empty()) return Status::OK();
    outstanding_ = static_cast<int64_t>(ready.size());
    ReadyQueue inline_queue;
    Schedule(&ready, &inline_queue);
    Drain(&inline_queue);
    std::unique_lock<std::mutex> lock(done_mu_);
    done_cv_.wait(lock, [this] { return done_; });
    std::lock_guard<std::mutex> status_lock(mu_);
    return status_;
  }

 private:
  std::unique_ptr<IterationState> NewIteration(int static_frame) {
    const StaticFrame& sf = impl_.frames[static_frame];
    std::vector<std::unique_ptr<IterationState>>& free = free_iterations_[static_frame];
    if (!free.empty()) {
      // Slots were emptied when it was freed.
      std::unique_ptr<IterationState> it = std::move(free.back());
      free.pop_back();
      it->pending = sf.initial_pending;
      std::fill(it->dead_count.begin(), it->dead_count.end(), 0);
      std::fill(it->merge_flags.begin(), it->merge_flags.end(), 0);
      it->outstanding_ops = 0;
      it->outstanding_frames = 0;
      return it;
    }
    auto it = std::make_unique<IterationState>();
    it->slots.resize(static_cast<size_t>(sf.num_input_slots));
    it->pending = sf.initial_pending;
    it->dead_count.assign(sf.nodes.size(), 0);
    it->merge_flags.assign(sf.nodes.size(), 0);
    return it;
  }

  void FreeIteration(int static_frame, std::unique_ptr<IterationState> it) {
    for (Entry& slot : it->slots) {
      if (slot.has_value || slot.ref != nullptr) slot = Entry();
    }
    free_iterations_[static_frame].push_back(std::move(it));
  }

  // Sends ready nodes to the pool or to the caller's queue. REQUIRES: outstanding_ counts them.
  void Schedule(std::vector<TaggedNode>* ready, ReadyQueue* inline_queue) {
    bool kept_expensive = false;
    for (const TaggedNode& t : *ready) {
      const NodeItem& item = impl_.items[t.node];
      if (args_.inter_op_pool == nullptr || !item.expensive || t.dead ||
          (!kept_expensive && inline_queue->empty())) {
        if (item.expensive && !t.dead) kept_expensive = true;
        inline_queue->push_back(t);
      } else {
        args_.inter_op_pool->Schedule([this, t]() {
          ReadyQueue queue;
          queue.push_back(t);
          Drain(&queue);
        });
      }
    }
    ready->clear();
  }

  void Drain(ReadyQueue* queue) {
    std::vector<TaggedNode> ready;
    std::vector<Entry> outputs;  // storage reused by every node this thread runs
    while (!queue->empty()) {
      TaggedNode t = queue->pop_front();
      Process(&t, &outputs, &ready);
      outstanding_ += static_cast<int64_t>(ready.size());
      Schedule(&ready, queue);
      if (--outstanding_ == 0) {
        std::lock_guard<std::mutex> lock(done_mu_);
        done_ = true;
        done_cv_.notify_all();
      }
    }
  }

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = s;
    aborted_ = true;
  }

  // Runs the node on the inputs in its iteration's slots (which only it touches once it is
  // ready), empties them, and hands the outputs on.
  void Process(TaggedNode* t, std::vector<Entry>* outputs, std::vector<TaggedNode>* ready) {
    const NodeItem& item = impl_.items[t->node];
    Entry* inputs = t->state->slots.data() + item.input_start;
    bool ran = RunKernel(item, t, inputs, outputs);
    for (int i = 0; i < item.num_inputs; ++i) {
      if (inputs[i].has_value || inputs[i].ref != nullptr) inputs[i] = Entry();
    }
    FinishNode(t, ready, ran ? outputs : nullptr, t->dead);
    outputs->clear();
  }

  // Fills `outputs` (all unset for a dead node); false when the run failed.
  bool RunKernel(const NodeItem& item, TaggedNode* t, Entry* inputs, std::vector<Entry>* outputs) {
    if (aborted_.load()) return false;
    if (args_.deadline_micros > 0 && NowMicros() > args_.deadline_micros) {
      Fail(
          DeadlineExceeded("Timed out: the run passed its deadline (operation_timeout_in_ms or "
                           "RunOptions.timeout_in_ms) before node '",
                           item.node->name(), "' (", item.node->op(), ") could run"));
      return false;
    }
    if (t->dead) {
      outputs->resize(static_cast<size_t>(item.num_outputs));
      return true;
    }
    for (int i = 0; i < item.num_inputs; ++i) {
      Entry& in = inputs[i];
      if (in.ref != nullptr) {
        // A kernel that takes the reference itself works through mutable_input_ref.
        if (item.input_wants_ref[i]) continue;
        in.tensor = in.Value();
        if (!in.tensor.IsInitialized() && !item.allows_uninitialized_input) {
          Fail(FailedPrecondition("Attempting to use uninitialized value ",
                                  in.ref_name != nullptr ? *in.ref_name : std::string("?"),
                                  " (input ", i, " of node ", item.node->name(), ")"));
          return false;
        }
        in.ref = nullptr;
        in.ref_mu = nullptr;
        in.ref_owner.reset();
      }
    }
    OpKernelContext::Params params;
    params.kernel = item.kernel.get();
    params.device = item.device;
    params.input_entries = inputs;
    params.num_input_entries = item.num_inputs;
    params.output_storage = outputs;
    params.resources = impl_.options.resources;
    params.step = args_.step;
    params.functions = impl_.options.functions;
    params.call_frame = args_.call_frame;
    params.frame_name = &impl_.frames[item.frame].name;
    params.frame_id = t->frame->id;
    params.iteration = t->iter;
    OpKernelContext ctx(params);
    int64_t start = args_.step_stats != nullptr ? WallMicros() : 0;
    Status s = StatusFromExceptions("kernel", [&] { return item.kernel->Compute(&ctx); });
    outputs->swap(ctx.outputs());
    if (!s.ok()) {
      Fail(s.Prepend(StrCat("node ", item.node->name(), " (", item.node->op(), ")")));
      return false;
    }
    if (!item.is_control_flow) {
      for (int i = 0; i < item.num_outputs; ++i) {
        const Entry& out = (*outputs)[i];
        if (!out.has_value) {
          Fail(Internal("kernel of node ", item.node->name(), " (", item.node->op(),
                        ") did not produce output ", i));
          return false;
        }
        DataType want = item.output_base_types[i];
        if (out.ref == nullptr && out.tensor.dtype() != want) {
          Fail(Internal("kernel of node ", item.node->name(), " (", item.node->op(), ") produced ",
                        DataTypeString(out.tensor.dtype()), " for output ", i, " declared ",
                        DataTypeString(want)));
          return false;
        }
      }
    }
    if (args_.step_stats != nullptr) RecordStats(item, start, *outputs);
    return true;
  }

  void RecordStats(const NodeItem& item, int64_t start, const std::vector<Entry>& outputs) {
    int64_t end = WallMicros();
    ::tensorflow::NodeExecStats stats;
    stats.set_node_name(item.node->name());
    stats.set_all_start_micros(start);
    stats.set_op_start_rel_micros(0);
    stats.set_op_end_rel_micros(end - start);
    stats.set_all_end_rel_micros(end - start);
    stats.set_all_start_nanos(start * 1000);
    stats.set_op_end_rel_nanos((end - start) * 1000);
    stats.set_all_end_rel_nanos((end - start) * 1000);
    std::string label = StrCat(item.node->name(), " = ", item.node->op(), "()");
    // A node the graph optimizer made names the nodes it stands for.
    if (const ::tensorflow::AttrValue* replaced = FindAttr(item.node->def(), kReplacedAttr)) {
      std::vector<std::string> names(replaced->list().s().begin(), replaced->list().s().end());
      label = StrCat(label, " replaces ", StrJoin(names, ", "));
    }
    stats.set_timeline_label(label);
    stats.set_thread_id(
        static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id())));
    for (int i = 0; i < static_cast<int>(outputs.size()); ++i) {
      if (!outputs[i].has_value) continue;
      ::tensorflow::NodeOutput* out = stats.add_output();
      out->set_slot(i);
      Tensor value = outputs[i].Value();
      ::tensorflow::TensorDescription* desc = out->mutable_tensor_description();
      desc->set_dtype(value.dtype());
      value.shape().AsProto(desc->mutable_shape());
      desc->mutable_allocation_description()->set_requested_bytes(
          static_cast<int64_t>(value.TotalBytes()));
      desc->mutable_allocation_description()->set_allocator_name("cpu");
    }
    std::lock_guard<std::mutex> lock(stats_mu_);
    ::tensorflow::DeviceStepStats* dev = nullptr;
    for (auto& d : *args_.step_stats->mutable_dev_stats()) {
      if (d.device() == item.device->name()) dev = &d;
    }
    if (dev == nullptr) {
      dev = args_.step_stats->add_dev_stats();
      dev->set_device(item.device->name());
    }
    *dev->add_node_stats() = std::move(stats);
  }

  // Hands the outputs on (unless aborted) and retires the node from its iteration. Without an
  // inter-op pool every node runs on the caller's thread, so the frame state needs no lock.
  void FinishNode(TaggedNode* t, std::vector<TaggedNode>* ready, std::vector<Entry>* outputs,
                  bool dead) {
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    if (args_.inter_op_pool != nullptr) lock.lock();
    if (outputs != nullptr && !aborted_.load()) {
      PropagateOutputs(t->node, outputs->data(), dead, t->frame, t->iter, ready);
    }
    t->state->outstanding_ops--;
    CleanupFramesIterations(t->frame, t->iter, ready);
  }

  // ---- Everything below runs under mu_ (or on the only thread). ----

  void PropagateOutputs(int node, Entry* outputs, bool dead, FrameState* frame, int64_t iter,
                        std::vector<TaggedNode>* ready) {
    const NodeItem& item = impl_.items[node];
    if (item.is_enter) {
      FrameState* child = FindOrCreateChild(frame, iter, item.child_frame);
      if (item.is_constant_enter) {
        child->loop_invariants.emplace_back(node, dead ? Entry() : outputs[0]);
        for (int64_t i = child->first_iteration; i <= child->iteration_count; ++i) {
          Entry copy = child->loop_invariants.back().second;
          Activate(node, &copy, dead, child, i, ready);
        }
      } else {
        Activate(node, outputs, dead, child, 0, ready);
      }
      child->num_pending_enters--;
      CleanupFramesIterations(child, 0, ready);
    } else if (item.is_exit) {
      if (dead || !outputs[0].has_value) return;  // settled when the frame ends
      frame->exits_delivered.insert(node);
      Activate(node, outputs, false, frame->parent, frame->parent_iter, ready);
    } else if (item.is_next_iteration) {
      if (dead || !outputs[0].has_value) return;  // a dead value ends the loop here
      if (iter == frame->iteration_count) {
        if (frame->num_outstanding_iterations >= frame->max_parallel) {
          frame->next_iter_roots.emplace_back(node, std::move(outputs[0]));
          return;
        }
        IncrementIteration(frame, ready);
      }
      Activate(node, outputs, false, frame, iter + 1, ready);
    } else {
      Activate(node, outputs, dead, frame, iter, ready);
    }
  }

  void Activate(int node, Entry* outputs, bool src_dead, FrameState* frame, int64_t iter,
                std::vector<TaggedNode>* ready) {
    const NodeItem& item = impl_.items[node];
    IterationState* state = frame->Iteration(iter);
    for (const OutEdge& e : item.out) {
      const NodeItem& dst = impl_.items[e.dst];
      int lid = dst.local_id;
      bool control = e.dst_slot == kControlSlot;
      bool live = !src_dead && (control || outputs[e.src_slot].has_value);
      if (!control && live) {
        Entry& slot = state->slots[dst.input_start + e.dst_slot];
        if (dst.is_merge && (state->merge_flags[lid] & (kMergeLive | kMergeFired))) {
          // A second live input of a Merge in one iteration is ignored, as in TensorFlow (and
          // once the Merge is ready its slots are its own).
        } else if (e.last_use) {
          slot = std::move(outputs[e.src_slot]);
        } else {
          slot = outputs[e.src_slot];
        }
      }
      bool is_ready = false;
      bool dst_dead = false;
      if (dst.is_merge) {
        uint8_t& flags = state->merge_flags[lid];
        if (control) {
          state->pending[lid]--;
        } else if (live) {
          flags |= kMergeLive;
        } else {
          state->dead_count[lid]++;
          if (item.is_enter) flags |= kMergeDeadEnter;
        }
        if (!(flags & kMergeFired) && state->pending[lid] == 0) {
          if (flags & kMergeLive) {
            is_ready = true;
          } else if (state->dead_count[lid] == dst.num_inputs || (flags & kMergeDeadEnter)) {
            is_ready = true;
            dst_dead = true;
          }
          if (is_ready) flags |= kMergeFired;
        }
      } else {
        if (!live) state->dead_count[lid]++;
        if (--state->pending[lid] == 0) {
          is_ready = true;
          dst_dead = state->dead_count[lid] > 0 && !dst.is_control_trigger;
        }
      }
      if (!is_ready) continue;
      TaggedNode t;
      t.node = e.dst;
      t.frame = frame;
      t.state = state;
      t.iter = iter;
      t.dead = dst_dead;
      state->outstanding_ops++;
      ready->push_back(t);
    }
  }

  FrameState* FindOrCreateChild(FrameState* frame, int64_t iter, int static_child) {
    auto key = std::make_pair(iter, static_child);
    auto it = frame->children.find(key);
    if (it != frame->children.end()) return it->second.get();
    auto child = std::make_unique<FrameState>();
    const StaticFrame& sf = impl_.frames[static_child];
    child->static_id = static_child;
    child->parent = frame;
    child->parent_iter = iter;
    child->num_pending_enters = sf.num_enters;
    child->max_parallel = sf.parallel_iterations;
    child->id = ++next_frame_id_;
    // Grown on demand up to max_parallel iterations (IncrementIteration).
    child->ring.resize(static_cast<size_t>(std::min(child->max_parallel, 4)));
    child->ring[0] = NewIteration(static_child);
    frame->Iteration(iter)->outstanding_frames++;
    FrameState* raw = child.get();
    frame->children[key] = std::move(child);
    return raw;
  }

  void IncrementIteration(FrameState* frame, std::vector<TaggedNode>* ready) {
    int64_t next = ++frame->iteration_count;
    const size_t size = frame->ring.size();
    if (static_cast<size_t>(next - frame->first_iteration) >= size) {
      // More iterations alive than the ring holds: double it, keeping each at i % size.
      std::vector<std::unique_ptr<IterationState>> bigger(2 * size);
      for (int64_t i = frame->first_iteration; i < next; ++i) {
        bigger[static_cast<size_t>(i) % bigger.size()] =
            std::move(frame->ring[static_cast<size_t>(i) % size]);
      }
      frame->ring = std::move(bigger);
    }
    frame->ring[static_cast<size_t>(next) % frame->ring.size()] = NewIteration(frame->static_id);
    frame->num_outstanding_iterations++;
    for (auto& [enter, value] : frame->loop_invariants) {
      Entry copy = value;
      Activate(enter, &copy, !value.has_value, frame, next, ready);
    }
  }

  bool IsIterationDone(FrameState* frame, int64_t iter) {
    if (!frame->HasIteration(iter)) return false;
    const IterationState& state = *frame->Iteration(iter);
    if (state.outstanding_ops != 0 || state.outstanding_frames != 0) return false;
    if (iter == 0) return frame->num_pending_enters == 0;
    return !frame->HasIteration(iter - 1);
  }

  void CleanupFramesIterations(FrameState* frame, int64_t iter, std::vector<TaggedNode>* ready) {
    if (frame == &root_) return;
    int64_t current = iter;
    while (current <= frame->iteration_count && IsIterationDone(frame, current)) {
      // Iterations end in order: `current` is the oldest alive.
      FreeIteration(frame->static_id,
                    std::move(frame->ring[static_cast<size_t>(current) % frame->ring.size()]));
      frame->first_iteration = current + 1;
      frame->num_outstanding_iterations--;
      ++current;
      if (!frame->next_iter_roots.empty()) {
        IncrementIteration(frame, ready);
        std::vector<std::pair<int, Entry>> roots = std::move(frame->next_iter_roots);
        frame->next_iter_roots.clear();
        for (auto& [node, value] : roots) {
          Activate(node, &value, false, frame, frame->iteration_count, ready);
        }
      }
    }
    if (frame->num_pending_enters == 0 && frame->num_outstanding_iterations == 0) {
      DeleteFrame(frame, ready);
    }
  }

  void DeleteFrame(FrameState* frame, std::vector<TaggedNode>* ready) {
    FrameState* parent = frame->parent;
    int64_t parent_iter = frame->parent_iter;
    for (int exit : impl_.frames[frame->static_id].exits) {
      if (frame->exits_delivered.count(exit) > 0) continue;
      Entry dead_out;
      Activate(exit, &dead_out, true, parent, parent_iter, ready);
    }
    parent->Iteration(parent_iter)->outstanding_frames--;
    parent->children.erase(std::make_pair(parent_iter, frame->static_id));
    CleanupFramesIterations(parent, parent_iter, ready);
  }

  const Executor::Impl& impl_;
  const ExecutorRunArgs& args_;
  std::mutex mu_;
  FrameState root_;
  Status status_;
  std::atomic<bool> aborted_{false};
  std::atomic<int64_t> outstanding_{0};
  int64_t next_frame_id_ = 0;
  // Freed iteration states by static frame, ready for reuse.
  std::vector<std::vector<std::unique_ptr<IterationState>>> free_iterations_;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::mutex stats_mu_;
};

}  // namespace

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>> Executor::Create(std::unique_ptr<Graph> graph,
                                                     const ExecutorOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->graph = std::move(graph);
  impl->options = options;
  GRT_RETURN_IF_ERROR(impl->Initialize());
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

const Graph& Executor::graph() const { return *impl_->graph; }

Status Executor::Run(const ExecutorRunArgs& args) const {
  RunState state(*impl_, args);
  return state.Run();
}

}  // namespace graphrt
