// Reads every tensor of a checkpoint with BundleReader (checksums checked) and prints the
// median wall time of N passes, for bench/compare_checkpoint.py.
//
//   checkpoint_read PREFIX [PASSES]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "formats/tensor_bundle/bundle_reader.h"

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: checkpoint_read PREFIX [PASSES]\n"), 2;
  int passes = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<double> seconds;
  size_t bytes = 0;
  for (int p = 0; p < passes; ++p) {
    auto start = std::chrono::steady_clock::now();
    auto reader = graphrt::BundleReader::Open(argv[1]);
    if (!reader.ok()) return std::fprintf(stderr, "%s\n", reader.status().ToString().c_str()), 1;
    bytes = 0;
    for (const std::string& key : (*reader)->Keys()) {
      auto t = (*reader)->Read(key);
      if (!t.ok()) return std::fprintf(stderr, "%s\n", t.status().ToString().c_str()), 1;
      bytes += t->TotalBytes();
    }
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("{\"median_seconds\": %.6f, \"bytes\": %zu}\n", seconds[seconds.size() / 2], bytes);
  return 0;
}
