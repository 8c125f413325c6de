// The in-process Session: compiles requests into cached plans and runs them with the executor.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "runtime/core/exception_barrier.h"
#include "runtime/core/clock.h"
#include "runtime/devices/device_name.h"
#include "runtime/exec/device_copies.h"
#include "runtime/exec/executor.h"
#include "runtime/exec/function_library.h"
#include "runtime/graph/subgraph.h"
#include "runtime/kernels/resource_mgr.h"
#include "runtime/optimize/graph_optimizer.h"
#include "runtime/session/session.h"
#include "runtime/session/session_devices.h"

namespace graphrt {

namespace {

// A compiled request: the graph rewritten with _Arg/_Retval nodes, pruned, placed, with kernels.
struct Plan {
  PlacementReport report;                      // where this plan's nodes run
  std::shared_ptr<FunctionLibrary> functions;  // outlives the executor that calls into it
  std::unique_ptr<Executor> executor;
  std::vector<std::string> feeds;  // canonical names, in _Arg index order
  std::vector<DataType> feed_types;
  std::vector<PartialTensorShape> feed_shapes;  // a Placeholder's declared shape, else unknown
  std::vector<std::string> fetches;             // canonical names, in _Retval index order
};

std::string Canonical(const TensorId& id) { return StrCat(id.node, ":", id.index); }

class DirectSession : public Session {
 public:
  explicit DirectSession(const SessionOptions& options) : options_(options) {
    const SessionConfig& c = options.config;
    devices_ = CreateDevices(c);
    int inter = c.inter_op_parallelism_threads;
    if (inter == 0) inter = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (inter > 1) inter_op_pool_ = std::make_unique<Eigen::ThreadPool>(inter);
  }

  ~DirectSession() override { Close().IgnoreError(); }

  // The public methods run through StatusFromExceptions, so that nothing a hostile graph or feed
  // makes the standard library throw leaves the session.
  Status Create(const GraphDef& graph) override {
    return StatusFromExceptions("Session::Create", [&] { return CreateUnguarded(graph); });
  }
  Status Extend(const GraphDef& graph) override {
    return StatusFromExceptions("Session::Extend", [&] { return ExtendUnguarded(graph); });
  }

  Status CreateUnguarded(const GraphDef& graph) {
    std::lock_guard<std::mutex> lock(mu_);
    GRT_RETURN_IF_ERROR(CheckOpen());
    if (has_graph_) return AlreadyExists("A Graph has already been created for this session.");
    auto light = std::make_shared<GraphDef>();
    auto values = std::make_shared<ConstValues>();
    SeparateConstValues(graph, light.get(), values.get());
    return InstallGraph(std::move(light), std::move(values));
  }

  Status ExtendUnguarded(const GraphDef& graph) {
    std::lock_guard<std::mutex> lock(mu_);
    GRT_RETURN_IF_ERROR(CheckOpen());
    auto merged = std::make_shared<GraphDef>();
    auto values = std::make_shared<ConstValues>();
    if (!has_graph_) {
      SeparateConstValues(graph, merged.get(), values.get());
      return InstallGraph(std::move(merged), std::move(values));
    }
    GraphDef added;
    ConstValues added_values;
    SeparateConstValues(graph, &added, &added_values);
    *merged = *graph_def_;
    *values = *const_values_;  // tensors share their buffers
    for (auto& node : *added.mutable_node()) *merged->add_node() = std::move(node);
    for (auto& fn : *added.mutable_library()->mutable_function()) {
      *merged->mutable_library()->add_function() = std::move(fn);
    }
    // A name taken twice fails in Graph::FromGraphDef, before anything is installed.
    for (auto& [name, value] : added_values) values->emplace(name, std::move(value));
    return InstallGraph(std::move(merged), std::move(values));
  }

  Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names,
             std::vector<Tensor>* outputs) override {
    return Run(RunOptions(), inputs, output_tensor_names, target_node_names, outputs, nullptr);
  }

  Status Run(const RunOptions& run_options,
             const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names, std::vector<Tensor>* outputs,
             RunMetadata* run_metadata) override {
    return StatusFromExceptions("Session::Run", [&] {
      return RunUnguarded(run_options, inputs, output_tensor_names, target_node_names, outputs,
                          run_metadata);
    });
  }

  Status RunUnguarded(const RunOptions& run_options,
                      const std::vector<std::pair<std::string, Tensor>>& inputs,
                      const std::vector<std::string>& output_tensor_names,
                      const std::vector<std::string>& target_node_names,
                      std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
    DeviceSnapshot devices_before = SnapshotDevices();  // for a traced run's RunMetadata
    // Feeds are sorted by name for the plan key; remember where each caller feed goes.
    std::vector<std::pair<std::string, int>> feed_order;
    for (size_t i = 0; i < inputs.size(); ++i) {
      GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(inputs[i].first));
      if (id.index == kControlSlot) return InvalidArgument("cannot feed '", inputs[i].first, "'");
      feed_order.emplace_back(Canonical(id), static_cast<int>(i));
    }
    std::sort(feed_order.begin(), feed_order.end());
    for (size_t i = 1; i < feed_order.size(); ++i) {
      if (feed_order[i].first == feed_order[i - 1].first) {
        return InvalidArgument("tensor '", feed_order[i].first, "' is fed more than once");
      }
    }
    std::vector<std::string> feeds;
    for (const auto& f : feed_order) feeds.push_back(f.first);
    std::vector<std::string> fetches;
    for (const std::string& name : output_tensor_names) {
      GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
      if (id.index == kControlSlot) {
        return InvalidArgument("cannot fetch '", name, "': give control targets as targets");
      }
      fetches.push_back(Canonical(id));
    }
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                         GetPlan(feeds, fetches, target_node_names));
    std::vector<Tensor> args;
    args.reserve(feed_order.size());
    for (const auto& f : feed_order) args.push_back(inputs[f.second].second);
    return RunPlan(*plan, run_options, std::move(args), outputs, run_metadata, devices_before);
  }

  Status ListDevices(std::vector<DeviceAttributes>* devices) override {
    std::lock_guard<std::mutex> lock(mu_);
    GRT_RETURN_IF_ERROR(CheckOpen());
    devices->clear();
    for (const auto& d : devices_) devices->push_back(d->attributes());
    return Status::OK();
  }

  Status MakeCallable(const CallableOptions& callable_options, CallableHandle* handle) override {
    return MakeCallableImpl(callable_options, "", handle, nullptr);
  }

  Status MakeCallableOnDevice(const CallableOptions& callable_options, const std::string& device,
                              CallableHandle* handle, PlacementReport* report) override {
    GRT_ASSIGN_OR_RETURN(ParsedDeviceName spec, ParseDeviceName(device));
    if (spec.ToString().empty()) return InvalidArgument("an empty device spec: '", device, "'");
    return MakeCallableImpl(callable_options, spec.ToString(), handle, report);
  }

  Status MakeCallableImpl(const CallableOptions& callable_options, const std::string& device,
                          CallableHandle* handle, PlacementReport* report) {
    return StatusFromExceptions("Session::MakeCallable", [&] {
      return MakeCallableUnguarded(callable_options, device, handle, report);
    });
  }

  Status MakeCallableUnguarded(const CallableOptions& callable_options, const std::string& device,
                               CallableHandle* handle, PlacementReport* report) {
    std::vector<std::string> feeds, fetches, targets;
    for (const std::string& name : callable_options.feed()) {
      GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
      feeds.push_back(Canonical(id));
    }
    std::vector<std::string> sorted = feeds;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return InvalidArgument("a tensor is fed more than once in the CallableOptions");
    }
    for (const std::string& name : callable_options.fetch()) {
      GRT_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
      fetches.push_back(Canonical(id));
    }
    targets.assign(callable_options.target().begin(), callable_options.target().end());
    // The plan takes feeds in the callable's own order, so RunCallable does no reordering.
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                         GetPlan(feeds, fetches, targets, device));
    if (report != nullptr) *report = plan->report;
    std::lock_guard<std::mutex> lock(mu_);
    *handle = next_callable_++;
    callables_[*handle] = Callable{plan, callable_options.run_options()};
    return Status::OK();
  }

  Status RunCallable(CallableHandle handle, const std::vector<Tensor>& feed_tensors,
                     std::vector<Tensor>* fetch_tensors, RunMetadata* run_metadata) override {
    return StatusFromExceptions("Session::RunCallable", [&] {
      return RunCallableUnguarded(handle, feed_tensors, fetch_tensors, run_metadata);
    });
  }

  Status RunCallableUnguarded(CallableHandle handle, const std::vector<Tensor>& feed_tensors,
                              std::vector<Tensor>* fetch_tensors, RunMetadata* run_metadata) {
    DeviceSnapshot devices_before = SnapshotDevices();
    Callable callable;
    {
      std::lock_guard<std::mutex> lock(mu_);
      GRT_RETURN_IF_ERROR(CheckOpen());
      auto it = callables_.find(handle);
      if (it == callables_.end()) {
        return InvalidArgument("No such callable handle: ", handle);
      }
      callable = it->second;
    }
    if (feed_tensors.size() != callable.plan->feeds.size()) {
      return InvalidArgument("Invalid number of feed values: the callable takes ",
                             callable.plan->feeds.size(), ", got ", feed_tensors.size());
    }
    return RunPlan(*callable.plan, callable.run_options, feed_tensors, fetch_tensors, run_metadata,
                   devices_before);
  }

  Status ReleaseCallable(CallableHandle handle) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (callables_.erase(handle) == 0) return InvalidArgument("No such callable handle: ", handle);
    return Status::OK();
  }

  PlacementReport GetPlacementReport() override {
    std::lock_guard<std::mutex> lock(mu_);
    PlacementReport report = WithRewrites(report_, rewrites_);
    if (functions_ != nullptr) {
      PlacementReport in_functions = functions_->Report();
      for (const PlacementDecision& d : in_functions.decisions()) report.Add(d);
    }
    return report;
  }

  Status Close() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Status::OK();
    closed_ = true;
    plans_.clear();
    callables_.clear();
    functions_.reset();
    resources_.Clear();
    for (const auto& d : devices_) {
      d->ReleaseSessionResources();
    }
    return Status::OK();
  }

 private:
  struct Callable {
    std::shared_ptr<const Plan> plan;
    RunOptions run_options;
  };

  Status CheckOpen() const {
    if (closed_) return Cancelled("Session has been closed.");
    return Status::OK();
  }

  // `graph` holds the large Const values beside its NodeDefs, in `values` (SeparateConstValues):
  // the session and its plans share them. REQUIRES: mu_ held.
  Status InstallGraph(std::shared_ptr<const GraphDef> graph,
                      std::shared_ptr<const ConstValues> values) {
    // Building the graph once checks it (names, inputs, dtypes) before any Run.
    GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> full, Graph::FromGraphDef(*graph, values.get()));
    // As TensorFlow does, the whole graph is placed once, before any pruning; plans reuse the
    // decisions, and the placement log shows every node.
    std::vector<Device*> devices;
    for (const auto& d : devices_) devices.push_back(d.get());
    PlacerOptions placer_options;
    placer_options.allow_soft_placement = options_.config.allow_soft_placement;
    placer_options.reduced_precision_requested = options_.config.reduced_precision_requested;
    std::vector<int> assignment;
    PlacementReport report;
    GRT_RETURN_IF_ERROR(PlaceGraph(full.get(), devices, placer_options, &assignment, &report));
    placement_.clear();
    for (Node* node : full->nodes()) placement_[node->name()] = assignment[node->id()];
    report_ = report;
    if (options_.config.log_device_placement) {
      std::string lines = report.LogLines();
      std::fwrite(lines.data(), 1, lines.size(), stderr);
    }
    graph_def_ = std::move(graph);
    const_values_ = std::move(values);
    has_graph_ = true;
    plans_.clear();
    rewrites_.clear();
    rewrite_keys_.clear();
    // Function bodies run on the CPUs: their executors insert no host/device copies.
    std::vector<Device*> cpus;
    for (Device* d : devices) {
      if (d->device_type() == kDeviceCpu) cpus.push_back(d);
    }
    functions_ =
        std::make_shared<FunctionLibrary>(graph_def_->library(), cpus, &resources_, placer_options);
    return Status::OK();
  }

  StatusOr<std::shared_ptr<const Plan>> GetPlan(const std::vector<std::string>& feeds,
                                                const std::vector<std::string>& fetches,
                                                const std::vector<std::string>& targets,
                                                const std::string& device = "") {
    std::string key = StrCat(StrJoin(feeds, ","), "|", StrJoin(fetches, ","), "|",
                             StrJoin(targets, ","), "|", device);
    // Shared, not copied: a frozen graph's constants make it as large as the model.
    std::shared_ptr<const GraphDef> graph_def;
    std::shared_ptr<const ConstValues> const_values;
    std::shared_ptr<FunctionLibrary> functions;
    std::map<std::string, int> placement;
    {
      std::lock_guard<std::mutex> lock(mu_);
      GRT_RETURN_IF_ERROR(CheckOpen());
      if (!has_graph_)
        return FailedPrecondition("Session was not created with a graph before Run()!");
      auto it = plans_.find(key);
      if (it != plans_.end()) return it->second;
      graph_def = graph_def_;
      const_values = const_values_;
      functions = functions_;
      placement = placement_;
    }
    GRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                         BuildPlan(*graph_def, *const_values, functions, placement, feeds, fetches,
                                   targets, device));
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = plans_.emplace(key, plan);
    return it->second;
  }

  StatusOr<std::shared_ptr<const Plan>> BuildPlan(
      const GraphDef& graph_def, const ConstValues& const_values,
      std::shared_ptr<FunctionLibrary> functions, const std::map<std::string, int>& placement,
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets, const std::string& device) {
    GRT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                         Graph::FromGraphDef(graph_def, &const_values));
    auto plan = std::make_shared<Plan>();
    plan->functions = std::move(functions);
    CallSignature signature;
    GRT_RETURN_IF_ERROR(RewriteGraphForCall(graph.get(), feeds, fetches, targets, &signature));
    plan->feeds = std::move(signature.feeds);
    plan->feed_types = std::move(signature.feed_types);
    plan->feed_shapes = std::move(signature.feed_shapes);
    plan->fetches = std::move(signature.fetches);
    ExecutorOptions exec_options;
    exec_options.devices.assign(static_cast<size_t>(graph->num_node_ids()), nullptr);
    if (!device.empty()) {
      // A per-callable device: every node asks for it, and soft placement settles the rest.
      for (Node* node : graph->nodes()) node->mutable_def()->set_device(device);
      std::vector<Device*> devices;
      for (const auto& d : devices_) devices.push_back(d.get());
      PlacerOptions soft;
      soft.allow_soft_placement = true;
      soft.reduced_precision_requested = options_.config.reduced_precision_requested;
      std::vector<int> assignment;
      GRT_RETURN_IF_ERROR(PlaceGraph(graph.get(), devices, soft, &assignment, &plan->report));
      for (Node* node : graph->nodes())
        exec_options.devices[node->id()] = devices[assignment[node->id()]];
    } else {
      // Nodes keep the device the whole-graph placement gave them; feeds and fetches live on
      // the client device (CPU:0).
      for (Node* node : graph->nodes()) {
        auto it = placement.find(node->name());
        Device* d = devices_[it != placement.end() ? it->second : 0].get();
        exec_options.devices[node->id()] = d;
        node->set_assigned_device(d->name());
        plan->report.Add(PlacementDecision{
            node->name(), node->op(), node->requested_device(), d->name(), "whole-graph placement",
            PrecisionOn(*d, options_.config.reduced_precision_requested)});
      }
    }
    GRT_RETURN_IF_ERROR(Optimize(graph.get(), plan.get(), &exec_options.devices));
    GRT_RETURN_IF_ERROR(InsertDeviceCopies(graph.get(), &exec_options.devices));
    exec_options.resources = &resources_;
    exec_options.functions = plan->functions.get();
    GRT_ASSIGN_OR_RETURN(plan->executor, Executor::Create(std::move(graph), exec_options));
    return std::shared_ptr<const Plan>(plan);
  }

  // Runs the graph optimizer on a plan's placed graph; its rewrites show in the plan's report
  // and, from then on, in the session's.
  Status Optimize(Graph* graph, Plan* plan, std::vector<Device*>* devices) {
    const GraphRewriteOptions& r = options_.config.rewrite_options;
    OptimizerOptions optimizer;
    const bool off = OptimizerDisabledByEnvironment();
    optimizer.model_pruning = r.model_pruning && !off;
    optimizer.constant_folding = r.constant_folding && !off;
    optimizer.arithmetic_optimization = r.arithmetic_optimization && !off;
    optimizer.remapping = r.remapping && !off;
    optimizer.cpu_mixed_precision = off ? ReducedPrecision::kNone : r.cpu_mixed_precision;
    OptimizerContext context;
    context.graph = graph;
    context.devices = devices;
    context.arg_shapes = plan->feed_shapes;
    for (const auto& d : devices_) {
      if (d->device_type() == kDeviceCpu) {
        context.host = d.get();
        break;
      }
    }
    std::vector<RewriteRecord> records;
    GRT_RETURN_IF_ERROR(OptimizeGraph(optimizer, &context, &records));
    if (records.empty()) return Status::OK();
    plan->report = WithRewrites(plan->report, records);
    std::lock_guard<std::mutex> lock(mu_);
    for (RewriteRecord& record : records) {
      if (rewrite_keys_.insert(record.ToString()).second) rewrites_.push_back(std::move(record));
    }
    return Status::OK();
  }

  // The counters a traced Run reports: the process's program cache and memory, and the
  // copies and launches of this session's accelerator devices; `any` when there is one.
  struct DeviceSnapshot {
    DeviceCounters counters;
    bool any = false;
  };
  Status RunPlan(const Plan& plan, const RunOptions& run_options, std::vector<Tensor> args,
                 std::vector<Tensor>* outputs, RunMetadata* run_metadata,
                 const DeviceSnapshot& devices_before) {
    for (size_t i = 0; i < args.size(); ++i) {
      const Tensor& t = args[i];
      if (!t.IsInitialized()) return InvalidArgument("feed '", plan.feeds[i], "' is empty");
      if (t.dtype() != plan.feed_types[i]) {
        return InvalidArgument("Feed '", plan.feeds[i], "' has dtype ", DataTypeString(t.dtype()),
                               " but the graph expects ", DataTypeString(plan.feed_types[i]));
      }
      if (!plan.feed_shapes[i].IsCompatibleWith(t.shape())) {
        return InvalidArgument("Feed '", plan.feeds[i], "' has shape ", t.shape().DebugString(),
                               ", which is not compatible with the placeholder's shape ",
                               plan.feed_shapes[i].DebugString());
      }
    }
    CallFrame frame(std::move(args), plan.fetches.size());
    ResourceMgr step_resources;
    std::atomic<bool> cancelled{false};
    StepState step;
    step.step_id = next_step_id_.fetch_add(1);
    step.step_resources = &step_resources;
    step.cancelled = &cancelled;
    ExecutorRunArgs run_args;
    run_args.call_frame = &frame;
    run_args.step = &step;
    int64_t timeout_ms = run_options.timeout_in_ms() > 0 ? run_options.timeout_in_ms()
                                                         : options_.config.operation_timeout_in_ms;
    if (timeout_ms > 0) run_args.deadline_micros = NowMicros() + timeout_ms * 1000;
    step.deadline_micros = run_args.deadline_micros;
    if (options_.config.inter_op_parallelism_threads >= 0 &&
        run_options.inter_op_thread_pool() >= 0) {
      run_args.inter_op_pool = inter_op_pool_.get();
    }
    ::tensorflow::StepStats stats;
    bool trace = run_metadata != nullptr && run_options.trace_level() != RunOptions::NO_TRACE;
    if (trace) run_args.step_stats = &stats;
    GRT_RETURN_IF_ERROR(plan.executor->Run(run_args));
    for (size_t i = 0; i < plan.fetches.size(); ++i) {
      if (!frame.retval_set(static_cast<int>(i))) {
        return InvalidArgument("Retval[", i, "] does not have value: fetch '", plan.fetches[i],
                               "' was not computed (it lies on a branch that was not taken)");
      }
    }
    *outputs = std::move(frame.retvals());
    if (trace) {
      *run_metadata->mutable_step_stats() = std::move(stats);
      if (devices_before.any)
        FillOpenClStats(devices_before, run_metadata->mutable_graphrt_opencl_stats());
    }
    return Status::OK();
  }

  DeviceSnapshot SnapshotDevices() const {
    DeviceSnapshot snapshot;
    DeviceCounters& sum = snapshot.counters;
    for (const auto& d : devices_) {
      DeviceCounters c;
      if (!d->ReadCounters(&c)) continue;
      snapshot.any = true;
      sum.host_to_device_copies += c.host_to_device_copies;
      sum.device_to_host_copies += c.device_to_host_copies;
      sum.kernel_launches += c.kernel_launches;
      sum.program_cache_hits = c.program_cache_hits;  // process-wide: the same on every device
      sum.program_cache_misses = c.program_cache_misses;
      sum.live_bytes = c.live_bytes;
    }
    return snapshot;
  }

  // The OpenCL counters' change since `before` (the start of the Run call).
  void FillOpenClStats(const DeviceSnapshot& before,
                       ::tensorflow::GraphrtOpenClRunStats* out) const {
    const DeviceCounters now = SnapshotDevices().counters;
    const DeviceCounters& was = before.counters;
    out->set_program_cache_hits(now.program_cache_hits - was.program_cache_hits);
    out->set_program_cache_misses(now.program_cache_misses - was.program_cache_misses);
    out->set_host_to_device_copies(now.host_to_device_copies - was.host_to_device_copies);
    out->set_device_to_host_copies(now.device_to_host_copies - was.device_to_host_copies);
    out->set_kernel_launches(now.kernel_launches - was.kernel_launches);
    out->set_live_bytes(now.live_bytes);
  }

  const SessionOptions options_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::unique_ptr<Eigen::ThreadPool> inter_op_pool_;
  ResourceMgr resources_;
  std::atomic<int64_t> next_step_id_{1};

  std::mutex mu_;
  bool closed_ = false;
  bool has_graph_ = false;
  std::shared_ptr<const GraphDef> graph_def_;        // set by InstallGraph
  std::shared_ptr<const ConstValues> const_values_;  // the large Const values of graph_def_
  std::shared_ptr<FunctionLibrary> functions_;
  std::map<std::string, int> placement_;  // node name -> index into devices_
  std::map<std::string, std::shared_ptr<const Plan>> plans_;
  std::map<CallableHandle, Callable> callables_;
  CallableHandle next_callable_ = 1;
  PlacementReport report_;
  // The optimizer's rewrites in the plans built so far (each once), for GetPlacementReport.
  std::vector<RewriteRecord> rewrites_;
  std::set<std::string> rewrite_keys_;
};

}  // namespace

Status NewSession(const SessionOptions& options, std::unique_ptr<Session>* out_session) {
  if (!options.target.empty()) {
    return InvalidArgument("graphrt runs in process: SessionOptions.target must be empty, got '",
                           options.target, "'");
  }
  *out_session = std::make_unique<DirectSession>(options);
  return Status::OK();
}

Status NewSession(const SessionOptions& options, Session** out_session) {
  std::unique_ptr<Session> session;
  GRT_RETURN_IF_ERROR(NewSession(options, &session));
  *out_session = session.release();
  return Status::OK();
}

Session* NewSession(const SessionOptions& options) {
  Session* session = nullptr;
  Status s = NewSession(options, &session);
  if (!s.ok()) std::fprintf(stderr, "graphrt: %s\n", s.ToString().c_str());
  return session;
}

}  // namespace graphrt
