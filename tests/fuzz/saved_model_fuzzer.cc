// A SavedModel (input: part(saved_model.pb) | part(variables.index) | variables data shard,
// fuzz_util.h) written to a temporary directory -> LoadSavedModel with the "serve" tag: the
// MetaGraphDef, the Session, the variables restored through the SaverDef and the init op.
// Checkpoint checksums are recomputed first (bundle_fixup.h).
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/file_util.h"
#include "formats/tensor_bundle/bundle_format.h"
#include "runtime/session/saved_model.h"
#include "tests/fuzz/bundle_fixup.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphrt;  // NOLINT: a fuzz target's body, not a header
  std::vector<std::string> parts = fuzzing::SplitParts(data, size, 3);
  const std::string& saved_model = parts[0];
  std::string& index = parts[1];
  const std::string& shard = parts[2];
  fuzzing::FixCheckpoint(shard, &index);

  fuzzing::TempDir dir;
  if (!dir.ok()) return 0;
  const std::string variables = dir.path() + "/variables";
  if (::mkdir(variables.c_str(), 0700) != 0) return 0;
  const std::string prefix = variables + "/variables";
  if (!WriteStringToFile(dir.path() + "/saved_model.pb", saved_model).ok()) return 0;
  if (!index.empty() && (!WriteStringToFile(bundle::IndexFilename(prefix), index).ok() ||
                         !WriteStringToFile(bundle::DataFilename(prefix, 0, 1), shard).ok())) {
    return 0;
  }
  SavedModelBundle bundle;
  Status s =
      LoadSavedModel(fuzzing::FuzzSessionOptions(), RunOptions(), dir.path(), {"serve"}, &bundle);
  if (s.ok()) {
    for (const auto& [key, signature] : bundle.meta_graph_def.signature_def()) {
      bundle.GetSignature(key).status().IgnoreError();
    }
    bundle.session->Close().IgnoreError();
  }
  return 0;
}
