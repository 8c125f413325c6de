// A checkpoint (input: part(.index) | data shard, fuzz_util.h) -> BundleReader: every key's entry
// and tensor, every tensor's checksum. Block and entry checksums are recomputed first
// (bundle_fixup.h) so that mutations get past them.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/file_util.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "tests/fuzz/bundle_fixup.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphrt;  // NOLINT: a fuzz target's body, not a header
  std::vector<std::string> parts = fuzzing::SplitParts(data, size, 2);
  std::string& index = parts[0];
  const std::string& shard = parts[1];
  fuzzing::FixCheckpoint(shard, &index);

  fuzzing::TempDir dir;
  if (!dir.ok()) return 0;
  const std::string prefix = dir.path() + "/ckpt";
  if (!WriteStringToFile(bundle::IndexFilename(prefix), index).ok() ||
      !WriteStringToFile(bundle::DataFilename(prefix, 0, 1), shard).ok()) {
    return 0;
  }
  for (bool use_mmap : {true, false}) {
    BundleReader::Options options;
    options.use_mmap = use_mmap;
    StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix, options);
    if (!reader.ok()) return 0;
    for (const std::string& key : reader.value()->Keys()) {
      reader.value()->Entry(key).status().IgnoreError();
      reader.value()->Read(key).status().IgnoreError();
      BundleReader::DisplayKey(key);
    }
    std::string failing;
    reader.value()->VerifyAll(&failing).IgnoreError();
  }
  return 0;
}
