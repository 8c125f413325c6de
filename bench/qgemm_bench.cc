// The int8 products (qgemm.h) on the shapes of MobileNetV2's 1x1 convolutions at 224 x 224,
// batch 1: m = pixels, k = input channels, n = output channels. One thread, on the path
// ActiveQGemmIsa() picks (GRAPHRT_ISA narrows it). The "ops" counter is 2 m n k per second.
//
//   taskset -c 1 build/bench/qgemm_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "runtime/kernels/cpu/qgemm.h"

namespace graphrt {
namespace {

// Arguments m, k, n, blocked. blocked = 0: one call for all m rows into an m x n c. blocked = 1:
// the calls Int8Conv2D makes, of up to max(16, min(256 KiB / k, 32 Ki / n)) rows each into one
// reused block of c (int8_product.cc), which then stays in cache.
void BM_QGemm(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const int64_t rows_per_call =
      state.range(3) == 0
          ? m
          : std::min(m, std::max<int64_t>(16, std::min(256 * 1024 / k, 32 * 1024 / n)));
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(static_cast<size_t>(m * k));
  std::vector<int8_t> b(static_cast<size_t>(k * n));
  for (uint8_t& x : a) x = static_cast<uint8_t>(byte(rng));
  for (int8_t& x : b) x = static_cast<int8_t>(byte(rng) - 128);
  std::vector<int32_t> c(static_cast<size_t>(rows_per_call * n));
  std::unique_ptr<QGemmPackedB> packed = QGemmPackedB::Pack(ActiveQGemmIsa(), b.data(), n, k, n);
  if (packed == nullptr) {
    state.SkipWithError("packing failed");
    return;
  }
  for (auto _ : state) {
    for (int64_t r0 = 0; r0 < m; r0 += rows_per_call) {
      QGemm(*packed, std::min(rows_per_call, m - r0), a.data() + r0 * k, k, c.data(), n);
      benchmark::DoNotOptimize(c.data());
      benchmark::ClobberMemory();
    }
  }
  state.counters["ops"] = benchmark::Counter(static_cast<double>(2 * m * n * k),
                                             benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(QGemmIsaName(ActiveQGemmIsa()));
}

// m x k x n of MobileNetV2's pointwise convolutions (expansions, projections, the last 1x1).
BENCHMARK(BM_QGemm)
    ->ArgNames({"m", "k", "n", "blocked"})
    ->ArgsProduct({{12544}, {32}, {16}, {0, 1}})
    ->ArgsProduct({{12544}, {16}, {96}, {0, 1}})
    ->ArgsProduct({{3136}, {96}, {24}, {0, 1}})
    ->ArgsProduct({{3136}, {24}, {144}, {0, 1}})
    ->ArgsProduct({{3136}, {144}, {24}, {0, 1}})
    ->ArgsProduct({{784}, {144}, {32}, {0, 1}})
    ->ArgsProduct({{784}, {32}, {192}, {0, 1}})
    ->ArgsProduct({{784}, {192}, {32}, {0, 1}})
    ->ArgsProduct({{196}, {192}, {64}, {0, 1}})
    ->ArgsProduct({{196}, {64}, {384}, {0, 1}})
    ->ArgsProduct({{196}, {384}, {64}, {0, 1}})
    ->ArgsProduct({{196}, {384}, {96}, {0, 1}})
    ->ArgsProduct({{196}, {96}, {576}, {0, 1}})
    ->ArgsProduct({{49}, {576}, {160}, {0, 1}})
    ->ArgsProduct({{49}, {160}, {960}, {0, 1}})
    ->ArgsProduct({{49}, {960}, {160}, {0, 1}})
    ->ArgsProduct({{49}, {960}, {320}, {0, 1}})
    ->ArgsProduct({{49}, {320}, {1280}, {0, 1}});

}  // namespace
}  // namespace graphrt

BENCHMARK_MAIN();
