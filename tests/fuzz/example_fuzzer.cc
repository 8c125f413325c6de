// Serialized tf.Example / SequenceExample bytes -> the parser behind ParseExample,
// ParseExampleV2, ParseSingleExample and ParseSequenceExample(V2).
//
// Input: a 4-byte header that chooses the parse, then up to 4 serialized protos as parts
// (fuzz_util.h):
//   header[0] % 3: 0 a batch (ParseExample/V2), 1 one scalar example (ParseSingleExample),
//                  2 a batch of SequenceExamples; bit 2: example names are given
//   header[1..3]:  the spec of features "a", "b", "c": bits 0-1 kind (dense, variable-length
//                  dense, sparse, ragged), bits 2-3 dtype (float, int64, string, float), bit 4
//                  a default value, bit 5 int32 row splits, bits 6-7 the dense size (1 + n)
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/tensor.h"
#include "runtime/kernels/cpu/example_parser.h"
#include "tests/fuzz/fuzz_util.h"

namespace graphrt {
namespace {

constexpr int kHeaderBytes = 4;
constexpr int kMaxExamples = 4;

DataType DtypeOf(uint8_t spec) {
  switch ((spec >> 2) & 3) {
    case 1:
      return ::tensorflow::DT_INT64;
    case 2:
      return ::tensorflow::DT_STRING;
    default:
      return ::tensorflow::DT_FLOAT;
  }
}

Tensor DefaultOf(DataType dtype, int64_t n) {
  Tensor t(dtype, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == ::tensorflow::DT_FLOAT) t.data<float>()[i] = -1.0f;
    if (dtype == ::tensorflow::DT_INT64) t.data<int64_t>()[i] = -1;
    if (dtype == ::tensorflow::DT_STRING) t.data<std::string>()[i] = "d";
  }
  return t;
}

ExampleParseSpec ExampleSpec(const uint8_t* header) {
  ExampleParseSpec spec;
  for (int i = 0; i < 3; ++i) {
    const uint8_t b = header[i];
    const std::string key(1, static_cast<char>('a' + i));
    const DataType dtype = DtypeOf(b);
    const int64_t dim = 1 + (b >> 6);
    const bool with_default = (b & 16) != 0;
    switch (b & 3) {
      case 0: {
        Tensor def = with_default ? DefaultOf(dtype, dim) : Tensor();
        spec.dense.push_back({key, dtype, PartialTensorShape({dim}), def});
        break;
      }
      case 1: {
        Tensor def = DefaultOf(dtype, 1);
        spec.dense.push_back({key, dtype, PartialTensorShape({-1}),
                              with_default ? def.Reshaped(TensorShape({})) : Tensor()});
        break;
      }
      case 2:
        spec.sparse.push_back({key, dtype});
        break;
      default:
        spec.ragged.push_back(
            {key, dtype, (b & 32) ? ::tensorflow::DT_INT32 : ::tensorflow::DT_INT64});
        break;
    }
  }
  return spec;
}

SequenceParseSpec SequenceSpec(const uint8_t* header) {
  SequenceParseSpec spec;
  spec.context = ExampleSpec(header);
  for (int i = 0; i < 3; ++i) {
    const uint8_t b = header[i];
    const std::string key(1, static_cast<char>('a' + i));
    const DataType dtype = DtypeOf(b);
    switch (b & 3) {
      case 0:
      case 1:
        spec.dense.push_back({key, dtype, PartialTensorShape({1 + (b >> 6)}), (b & 16) != 0});
        break;
      case 2:
        spec.sparse.push_back({key, dtype, PartialTensorShape(), false});
        break;
      default:
        spec.ragged.push_back({key, dtype, PartialTensorShape(), false,
                               (b & 32) ? ::tensorflow::DT_INT32 : ::tensorflow::DT_INT64});
        break;
    }
  }
  return spec;
}

}  // namespace
}  // namespace graphrt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace graphrt;  // NOLINT: a fuzz target's body, not a header
  if (size < kHeaderBytes) return 0;
  const uint8_t mode = data[0];
  std::vector<std::string> examples =
      fuzzing::SplitParts(data + kHeaderBytes, size - kHeaderBytes, kMaxExamples);
  while (examples.size() > 1 && examples.back().empty()) examples.pop_back();
  Tensor names;
  if (mode & 4) {
    std::vector<std::string> n;
    for (size_t i = 0; i < examples.size(); ++i) n.push_back("ex" + std::to_string(i));
    names = Tensor::Vector<std::string>(n);
  }
  switch (mode % 3) {
    case 0:
    case 1: {
      ExampleParseSpec spec = ExampleSpec(data + 1);
      if (!ValidateExampleParseSpec(spec).ok()) return 0;
      ExampleParseResult result;
      if (mode % 3 == 0) {
        ParseExamples(Tensor::Vector<std::string>(examples), names, spec, &result).IgnoreError();
      } else {
        ParseExamples(Tensor::Scalar<std::string>(examples[0]), Tensor(), spec, &result)
            .IgnoreError();
      }
      break;
    }
    default: {
      SequenceParseSpec spec = SequenceSpec(data + 1);
      if (!ValidateExampleParseSpec(spec.context).ok()) return 0;
      SequenceParseResult result;
      ParseSequenceExamples(Tensor::Vector<std::string>(examples), names, spec, &result)
          .IgnoreError();
      break;
    }
  }
  return 0;
}
