// Zip bytes -> keras::ZipArchive (the reader of .keras archives): open, then read every member
// under small limits. Whatever the bytes, a Status, never a crash or an allocation past the
// limits; a member that reads back has the size its directory entry declares.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "formats/keras/zip_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // ZipArchive reads a file (a .keras archive can be larger than memory should hold).
  static const std::string path = "/tmp/graphrt_zip_fuzzer." + std::to_string(getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  graphrt::keras::ZipLimits limits;
  limits.max_member_bytes = 1 << 20;
  limits.max_members = 1 << 10;
  graphrt::StatusOr<std::unique_ptr<graphrt::keras::ZipArchive>> zip =
      graphrt::keras::ZipArchive::Open(path, limits);
  if (zip.ok()) {
    for (const graphrt::keras::ZipMember& m : (*zip)->members()) {
      graphrt::StatusOr<std::string> bytes = (*zip)->Read(m);
      if (bytes.ok() && bytes->size() != m.size) std::abort();
    }
  }
  std::remove(path.c_str());
  return 0;
}
