// The OpenCL GPU path, in one run: GFLOP/s of graphrt's OpenCL MatMul kernel, of CLBlast called
// directly on the same buffers and of the Eigen CPU MatMul kernel at several sizes; latency of
// the fixture MLP and CNN on GPU:0 against the CPU; and the first-run time of a process with a
// cold program cache against one with a warm cache (each in a child process).
//
//   build/bench/opencl_bench                 # every table, medians of repeated runs
//   GRAPHRT_OPENCL_DEVICES=all is implied: a CPU-type OpenCL device (PoCL) counts.
#include <clblast.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "formats/graph_def.h"
#include "formats/npy.h"
#include "runtime/devices/opencl/opencl_device.h"
#include "runtime/devices/opencl/opencl_stats.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/ops/op_registry.h"
#include "runtime/session/session.h"
#include "runtime/session/session_devices.h"

extern char** environ;

namespace graphrt {
namespace {

double Seconds(const std::function<void()>& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median time of `reps` calls after one warm-up call.
double Median(int reps, const std::function<void()>& fn) {
  fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) times.push_back(Seconds(fn));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void Die(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "opencl_bench: %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

::tensorflow::NodeDef MatMulNode() {
  ::tensorflow::NodeDef node;
  node.set_name("matmul");
  node.set_op("MatMul");
  (*node.mutable_attr())["T"].set_type(::tensorflow::DT_FLOAT);
  AddDefaultAttrs(OpRegistry::Global()->Find("MatMul")->op_def, &node);
  return node;
}

// Runs one kernel on `device` with inputs already where the device keeps them.
Status Compute(OpKernel* kernel, Device* device, const std::vector<Tensor>& inputs, Tensor* out) {
  std::vector<Entry> entries(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries[i].tensor = inputs[i];
    entries[i].has_value = true;
  }
  StepState step;
  OpKernelContext::Params params;
  params.kernel = kernel;
  params.device = device;
  params.inputs = &entries;
  params.step = &step;
  OpKernelContext ctx(params);
  GRT_RETURN_IF_ERROR(kernel->Compute(&ctx));
  *out = ctx.outputs()[0].tensor;
  return Status::OK();
}

void MatMulTable(OpenClDevice* gpu) {
  std::printf("\nMatMul, float32, C[n,n] = A[n,n] B[n,n]: GFLOP/s (median)\n");
  std::printf("%6s %16s %16s %16s\n", "n", "graphrt OpenCL", "CLBlast direct", "Eigen CPU");
  std::unique_ptr<Device> cpu = NewCpuDevice(0, 0);
  ::tensorflow::NodeDef node = MatMulNode();
  StatusOr<std::unique_ptr<OpKernel>> gpu_kernel =
      KernelRegistry::Global()->CreateKernel(kDeviceGpu, node, gpu, nullptr);
  Die(gpu_kernel.status(), "GPU MatMul kernel");
  StatusOr<std::unique_ptr<OpKernel>> cpu_kernel =
      KernelRegistry::Global()->CreateKernel(kDeviceCpu, node, cpu.get(), nullptr);
  Die(cpu_kernel.status(), "CPU MatMul kernel");
  for (int64_t n : {64, 128, 256, 512, 1024}) {
    Tensor a(::tensorflow::DT_FLOAT, TensorShape({n, n})),
        b(::tensorflow::DT_FLOAT, TensorShape({n, n}));
    for (int64_t i = 0; i < n * n; ++i) {
      a.data<float>()[i] = static_cast<float>(i % 7) * 0.25f;
      b.data<float>()[i] = static_cast<float>(i % 5) * 0.5f;
    }
    StatusOr<Tensor> da = gpu->CopyHostToDevice(a), db = gpu->CopyHostToDevice(b);
    Die(da.status(), "upload");
    Die(db.status(), "upload");
    int reps = n <= 256 ? 20 : 5;
    double flops = 2.0 * n * n * n;
    Tensor out;
    double t_graphrt = Median(reps, [&]() {
      Die(Compute(gpu_kernel->get(), gpu, {*da, *db}, &out), "graphrt MatMul");
      Die(gpu->Synchronize(), "clFinish");
    });
    StatusOr<Tensor> dc = gpu->AllocateTensor(::tensorflow::DT_FLOAT, TensorShape({n, n}));
    Die(dc.status(), "allocate");
    cl_command_queue queue = gpu->cl()->queue();
    double t_clblast = Median(reps, [&]() {
      clblast::StatusCode code = clblast::Gemm<float>(
          clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, n, n, n,
          1.0f, static_cast<cl_mem>(da->device_buffer()->handle()), 0, n,
          static_cast<cl_mem>(db->device_buffer()->handle()), 0, n, 0.0f,
          static_cast<cl_mem>(dc->device_buffer()->handle()), 0, n, &queue);
      if (code != clblast::StatusCode::kSuccess) Die(Internal("CLBlast ", int(code)), "Gemm");
      clFinish(queue);
    });
    double t_eigen = Median(reps, [&]() {
      Die(Compute(cpu_kernel->get(), cpu.get(), {a, b}, &out), "Eigen MatMul");
    });
    std::printf("%6lld %16.2f %16.2f %16.2f\n", static_cast<long long>(n), flops / t_graphrt / 1e9,
                flops / t_clblast / 1e9, flops / t_eigen / 1e9);
  }
}

void ModelTable() {
  std::printf(
      "\nModels, Session::RunCallable latency in ms (median of 20; GPU:0 includes the\n"
      "feed and fetch copies)\n");
  std::printf("%-14s %12s %12s %10s\n", "model", "GPU:0", "CPU", "CPU/GPU");
  std::string dir = std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/models/";
  for (const auto& [name, input] :
       {std::pair<const char*, const char*>{"mlp", "x:0"}, {"cnn", "images:0"}}) {
    for (int batch : {1, 32}) {
      GraphDef graph;
      Die(ReadGraphDef(dir + name + ".pb", &graph), "model");
      StatusOr<Tensor> x = ReadNpy(dir + name + "_batch" + std::to_string(batch) + ".in0.npy");
      Die(x.status(), "input");
      double ms[2];
      for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
        SessionOptions options;
        options.config.opencl_devices = "all";
        options.config.inter_op_parallelism_threads = 1;
        if (!on_gpu) options.config.device_count["GPU"] = 0;
        std::unique_ptr<Session> session(NewSession(options));
        Die(session->Create(graph), "Create");
        CallableOptions callable;
        callable.add_feed(input);
        callable.add_fetch("probs:0");
        Session::CallableHandle handle;
        Die(session->MakeCallable(callable, &handle), "MakeCallable");
        std::vector<Tensor> out;
        ms[on_gpu] = 1e3 * Median(20, [&]() {
                       Die(session->RunCallable(handle, {*x}, &out, nullptr), "Run");
                     });
      }
      std::printf("%-14s %12.3f %12.3f %10.2f\n",
                  (std::string(name) + "/b" + std::to_string(batch)).c_str(), ms[1], ms[0],
                  ms[0] / ms[1]);
    }
  }
}

// Child mode: the first run of the CNN on GPU:0 in a fresh process.
int FirstRun() {
  double seconds = Seconds([]() {
    GraphDef graph;
    Die(ReadGraphDef(std::string(GRAPHRT_SOURCE_DIR) + "/tests/fixtures/models/cnn.pb", &graph),
        "model");
    SessionOptions options;
    options.config.opencl_devices = "all";
    std::unique_ptr<Session> session(NewSession(options));
    Die(session->Create(graph), "Create");
    Tensor x(::tensorflow::DT_FLOAT, TensorShape({1, 28, 28, 1}));
    for (int i = 0; i < 28 * 28; ++i) x.data<float>()[i] = 0.5f;
    std::vector<Tensor> out;
    Die(session->Run({{"images:0", x}}, {"probs:0"}, {}, &out), "Run");
  });
  OpenClStats stats = GetOpenClStats();
  std::printf("%.3f %lld %lld\n", seconds, static_cast<long long>(stats.program_cache_hits),
              static_cast<long long>(stats.program_cache_misses));
  return 0;
}

void ColdWarmTable(const char* self) {
  std::printf("\nFirst run of the CNN on GPU:0 in a new process (create + plan + run)\n");
  char dir_template[] = "/tmp/graphrt_bench_cache_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return;
  std::string dir = dir_template;
  std::string graphrt_env = "GRAPHRT_CACHE_DIR=" + dir;
  std::string pocl_env = "POCL_CACHE_DIR=" + dir + "/pocl";
  for (const char* label : {"cold (empty caches)", "warm (second process)"}) {
    std::string out_path = dir + "/out.txt";
    std::vector<std::string> env = {graphrt_env, pocl_env};
    for (char** e = environ; *e != nullptr; ++e) {
      std::string s = *e;
      if (s.rfind("GRAPHRT_CACHE_DIR=", 0) != 0 && s.rfind("POCL_CACHE_DIR=", 0) != 0)
        env.push_back(s);
    }
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string command = std::string(self) + " --first-run > " + out_path;
    char sh[] = "/bin/sh", dash_c[] = "-c";
    char* argv[] = {sh, dash_c, command.data(), nullptr};
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv, envp.data()) != 0) return;
    int status = 0;
    waitpid(pid, &status, 0);
    FILE* f = std::fopen(out_path.c_str(), "r");
    double seconds = 0;
    long long hits = 0, misses = 0;
    if (f == nullptr || std::fscanf(f, "%lf %lld %lld", &seconds, &hits, &misses) != 3) {
      std::printf("%-24s failed\n", label);
    } else {
      std::printf("%-24s %8.3f s   program cache: %lld hits, %lld misses\n", label, seconds, hits,
                  misses);
    }
    if (f != nullptr) std::fclose(f);
  }
  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
}

int Main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--first-run") return FirstRun();
  SessionConfig config;
  config.opencl_devices = "all";
  std::vector<std::unique_ptr<Device>> devices = NewOpenClDevices(DeviceOptionsFor(config));
  if (devices.empty()) {
    std::printf("no OpenCL device\n");
    return 0;
  }
  auto* gpu = static_cast<OpenClDevice*>(devices[0].get());
  std::printf("device: %s\n", gpu->attributes().physical_device_desc.c_str());
  MatMulTable(gpu);
  ModelTable();
  ColdWarmTable(argv[0]);
  return 0;
}

}  // namespace
}  // namespace graphrt

int main(int argc, char** argv) { return graphrt::Main(argc, argv); }
