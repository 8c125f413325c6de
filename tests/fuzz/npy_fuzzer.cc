// .npy bytes -> ParseNpy (the reader behind `graphrt run --input x=FILE.npy`); a tensor that
// parses is written back and must parse again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  graphrt::StatusOr<graphrt::Tensor> tensor = graphrt::ParseNpy(bytes, "fuzz.npy");
  if (!tensor.ok()) return 0;
  graphrt::StatusOr<std::string> written = graphrt::SerializeNpy(tensor.value());
  if (written.ok() && !graphrt::ParseNpy(written.value(), "rewritten.npy").ok()) {
    std::abort();  // graphrt cannot read what it wrote
  }
  return 0;
}
