#include "runtime/kernels/cpu/example_parser.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include <google/protobuf/arena.h>

#include "example.pb.h"
#include "runtime/core/str_util.h"

namespace graphrt {

namespace {

using ::tensorflow::Feature;

// The DataType a Feature holds; DT_INVALID for a Feature with no list set (read as empty).
DataType FeatureDataType(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return ::tensorflow::DT_FLOAT;
    case Feature::kInt64List:
      return ::tensorflow::DT_INT64;
    case Feature::kBytesList:
      return ::tensorflow::DT_STRING;
    default:
      return ::tensorflow::DT_INVALID;
  }
}

int64_t FeatureSize(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return f.float_list().value_size();
    case Feature::kInt64List:
      return f.int64_list().value_size();
    case Feature::kBytesList:
      return f.bytes_list().value_size();
    default:
      return 0;
  }
}

// Copies the feature's values into out[offset, offset + size). REQUIRES: the types agree.
void CopyFeature(const Feature& f, Tensor* out, int64_t offset) {
  switch (f.kind_case()) {
    case Feature::kFloatList: {
      const auto& v = f.float_list().value();
      std::copy(v.begin(), v.end(), out->data<float>() + offset);
      break;
    }
    case Feature::kInt64List: {
      const auto& v = f.int64_list().value();
      std::copy(v.begin(), v.end(), out->data<int64_t>() + offset);
      break;
    }
    case Feature::kBytesList: {
      const auto& v = f.bytes_list().value();
      std::copy(v.begin(), v.end(), out->data<std::string>() + offset);
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// The fast path: Examples read straight from the wire format, without building protobuf
// messages (maps and strings per feature). The messages, as field number: wire type:
//   Example  { 1: Features features (LEN) }
//   Features { 1: map entry (LEN) { 1: key (LEN), 2: Feature (LEN) } }
//   Feature  { 1: BytesList (LEN), 2: FloatList (LEN), 3: Int64List (LEN) }  (a oneof)
//   BytesList { 1: bytes (LEN) }*   FloatList { 1: packed floats (LEN) | float (I32) }*
//   Int64List { 1: packed varints (LEN) | varint (VARINT) }*
// Anything unusual that protobuf would merge (a oneof set twice, a repeated Features) sends the
// batch to the protobuf path, so both paths give the same results.

struct WireFeature {
  DataType dtype = ::tensorflow::DT_INVALID;
  int64_t size = 0;
  std::string_view list;  // the BytesList / FloatList / Int64List message
};

DataType FeatureDataType(const WireFeature& f) { return f.dtype; }
int64_t FeatureSize(const WireFeature& f) { return f.size; }

bool ReadVarint(const char** p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = static_cast<uint8_t>(*(*p)++);
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

// Reads one field's tag and, for LEN fields, its payload; skips other payloads.
struct WireField {
  uint32_t number = 0;
  int type = 0;
  uint64_t varint = 0;
  std::string_view bytes;  // LEN payload, or the 4 / 8 bytes of I32 / I64
};

bool NextField(const char** p, const char* end, WireField* f) {
  uint64_t tag;
  if (!ReadVarint(p, end, &tag)) return false;
  f->number = static_cast<uint32_t>(tag >> 3);
  f->type = static_cast<int>(tag & 7);
  switch (f->type) {
    case 0:
      return ReadVarint(p, end, &f->varint);
    case 1:
    case 5: {
      size_t n = f->type == 1 ? 8 : 4;
      if (static_cast<size_t>(end - *p) < n) return false;
      f->bytes = std::string_view(*p, n);
      *p += n;
      return true;
    }
    case 2: {
      uint64_t len;
      if (!ReadVarint(p, end, &len) || len > static_cast<uint64_t>(end - *p)) return false;
      f->bytes = std::string_view(*p, len);
      *p += len;
      return true;
    }
    default:
      return false;
  }
}

// Counts (and validates) the values of a list message.
bool CountValues(DataType dtype, std::string_view list, int64_t* count) {
  const char* p = list.data();
  const char* end = p + list.size();
  int64_t n = 0;
  WireField f;
  while (p < end) {
    if (!NextField(&p, end, &f)) return false;
    if (f.number != 1) continue;
    if (dtype == ::tensorflow::DT_STRING) {
      if (f.type != 2) return false;
      ++n;
    } else if (dtype == ::tensorflow::DT_FLOAT) {
      if (f.type == 5) {
        ++n;
      } else if (f.type == 2 && f.bytes.size() % 4 == 0) {
        n += static_cast<int64_t>(f.bytes.size() / 4);
      } else {
        return false;
      }
    } else {
      if (f.type == 0) {
        ++n;
      } else if (f.type == 2) {
        const char* q = f.bytes.data();
        const char* qend = q + f.bytes.size();
        uint64_t v;
        while (q < qend) {
          if (!ReadVarint(&q, qend, &v)) return false;
          ++n;
        }
      } else {
        return false;
      }
    }
  }
  *count = n;
  return true;
}

// REQUIRES: CountValues accepted the list.
void CopyFeature(const WireFeature& w, Tensor* out, int64_t offset) {
  const char* p = w.list.data();
  const char* end = p + w.list.size();
  WireField f;
  while (p < end && NextField(&p, end, &f)) {
    if (f.number != 1) continue;
    if (w.dtype == ::tensorflow::DT_STRING) {
      out->data<std::string>()[offset++].assign(f.bytes.data(), f.bytes.size());
    } else if (w.dtype == ::tensorflow::DT_FLOAT) {
      std::memcpy(out->data<float>() + offset, f.bytes.data(), f.bytes.size());
      offset += static_cast<int64_t>(f.bytes.size() / 4);
    } else if (f.type == 0) {
      out->data<int64_t>()[offset++] = static_cast<int64_t>(f.varint);
    } else {
      const char* q = f.bytes.data();
      const char* qend = q + f.bytes.size();
      uint64_t v;
      while (q < qend && ReadVarint(&q, qend, &v)) {
        out->data<int64_t>()[offset++] = static_cast<int64_t>(v);
      }
    }
  }
}

enum class WireResult { kOk, kMalformed, kUnusual };

// Reads one Feature message.
WireResult ReadWireFeature(std::string_view bytes, WireFeature* out) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  WireField f;
  bool seen = false;
  while (p < end) {
    if (!NextField(&p, end, &f)) return WireResult::kMalformed;
    if (f.number < 1 || f.number > 3) continue;
    if (f.type != 2) return WireResult::kMalformed;
    if (seen) return WireResult::kUnusual;
    seen = true;
    out->dtype = f.number == 1   ? ::tensorflow::DT_STRING
                 : f.number == 2 ? ::tensorflow::DT_FLOAT
                                 : ::tensorflow::DT_INT64;
    out->list = f.bytes;
    if (!CountValues(out->dtype, out->list, &out->size)) return WireResult::kMalformed;
  }
  return WireResult::kOk;
}

// Fills table[slot] for each feature of the Example whose key has a slot.
WireResult ReadWireExample(std::string_view bytes,
                           const std::unordered_map<std::string_view, int>& slots,
                           std::vector<WireFeature>* table, std::vector<bool>* present) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  WireField f;
  bool seen_features = false;
  while (p < end) {
    if (!NextField(&p, end, &f)) return WireResult::kMalformed;
    if (f.number != 1) continue;
    if (f.type != 2) return WireResult::kMalformed;
    if (seen_features) return WireResult::kUnusual;
    seen_features = true;
    const char* q = f.bytes.data();
    const char* qend = q + f.bytes.size();
    WireField entry;
    while (q < qend) {
      if (!NextField(&q, qend, &entry)) return WireResult::kMalformed;
      if (entry.number != 1) continue;
      if (entry.type != 2) return WireResult::kMalformed;
      std::string_view key, value;
      const char* r = entry.bytes.data();
      const char* rend = r + entry.bytes.size();
      WireField kv;
      while (r < rend) {
        if (!NextField(&r, rend, &kv)) return WireResult::kMalformed;
        if (kv.number == 1 && kv.type == 2) key = kv.bytes;
        if (kv.number == 2 && kv.type == 2) value = kv.bytes;
      }
      auto it = slots.find(key);
      if (it == slots.end()) continue;
      if ((*present)[it->second]) return WireResult::kUnusual;  // a repeated key: last wins
      WireFeature w;
      WireResult r2 = ReadWireFeature(value, &w);
      if (r2 != WireResult::kOk) return r2;
      (*table)[it->second] = w;
      (*present)[it->second] = true;
    }
  }
  return WireResult::kOk;
}

// Copies default[0, n) to out[offset, offset + n), or default[0] n times when it is a scalar.
void CopyDefault(const Tensor& def, int64_t n, Tensor* out, int64_t offset) {
  bool scalar = def.NumElements() == 1;
  switch (def.dtype()) {
    case ::tensorflow::DT_FLOAT:
      for (int64_t i = 0; i < n; ++i) {
        out->data<float>()[offset + i] = def.data<float>()[scalar ? 0 : i];
      }
      break;
    case ::tensorflow::DT_INT64:
      for (int64_t i = 0; i < n; ++i) {
        out->data<int64_t>()[offset + i] = def.data<int64_t>()[scalar ? 0 : i];
      }
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        out->data<std::string>()[offset + i] = def.data<std::string>()[scalar ? 0 : i];
      }
      break;
  }
}

Status TypeMismatch(const Tensor& names, int64_t i, const std::string& key, DataType got,
                    DataType want) {
  return InvalidArgument(ExampleLabel(names, i), ", Feature: ", key,
                         ". Data types don't match. Data type: ", DataTypeString(got),
                         " but expected type: ", DataTypeString(want));
}

bool IsSupportedFeatureType(DataType t) {
  return t == ::tensorflow::DT_FLOAT || t == ::tensorflow::DT_INT64 || t == ::tensorflow::DT_STRING;
}

// Saturates at INT64_MAX, which no feature matches and Tensor::Allocate refuses: the shape comes
// from the graph's attrs.
int64_t RowElements(const PartialTensorShape& shape, bool variable) {
  int64_t n = 1;
  for (int d = variable ? 1 : 0; d < shape.dims(); ++d) {
    if (__builtin_mul_overflow(n, shape.dim_size(d), &n)) return INT64_MAX;
  }
  return n;
}

bool IsVariableLength(const DenseFeatureSpec& d) {
  return d.shape.dims() > 0 && d.shape.dim_size(0) == -1;
}

}  // namespace

std::string ExampleLabel(const Tensor& names, int64_t i) {
  if (names.NumElements() > i) return StrCat("Name: ", names.data<std::string>()[i]);
  return StrCat("Example index: ", i);
}

Status ValidateExampleParseSpec(const ExampleParseSpec& spec) {
  for (const DenseFeatureSpec& d : spec.dense) {
    if (!IsSupportedFeatureType(d.dtype)) {
      return InvalidArgument("dense feature ", d.key, " has unsupported type ",
                             DataTypeString(d.dtype));
    }
    if (d.shape.unknown_rank()) {
      return InvalidArgument("dense feature ", d.key, " has a shape of unknown rank");
    }
    bool variable = IsVariableLength(d);
    for (int i = variable ? 1 : 0; i < d.shape.dims(); ++i) {
      if (d.shape.dim_size(i) < 0) {
        return InvalidArgument("dense feature ", d.key, ": shape ", d.shape.DebugString(),
                               " may only have an unknown first dimension");
      }
    }
    if (d.default_value.dtype() != d.dtype) {
      return InvalidArgument("dense feature ", d.key, ": default of type ",
                             DataTypeString(d.default_value.dtype()), ", expected ",
                             DataTypeString(d.dtype));
    }
    int64_t n = d.default_value.NumElements();
    if (variable) {
      if (n != 1 && n != 0) {
        return InvalidArgument("dense feature ", d.key,
                               ": a variable-length feature needs a scalar default, got ",
                               d.default_value.shape().DebugString());
      }
    } else if (n != 0 && n != RowElements(d.shape, false)) {
      return InvalidArgument("dense feature ", d.key, ": default_value has ", n,
                             " elements but shape ", d.shape.DebugString(), " needs ",
                             RowElements(d.shape, false));
    }
  }
  for (const SparseFeatureSpec& s : spec.sparse) {
    if (!IsSupportedFeatureType(s.dtype)) {
      return InvalidArgument("sparse feature ", s.key, " has unsupported type ",
                             DataTypeString(s.dtype));
    }
  }
  for (const RaggedFeatureSpec& r : spec.ragged) {
    if (!IsSupportedFeatureType(r.dtype)) {
      return InvalidArgument("ragged feature ", r.key, " has unsupported type ",
                             DataTypeString(r.dtype));
    }
    if (r.split_dtype != ::tensorflow::DT_INT32 && r.split_dtype != ::tensorflow::DT_INT64) {
      return InvalidArgument("ragged feature ", r.key, ": row splits must be int32 or int64");
    }
  }
  return Status::OK();
}

namespace {

Status SplitsTensor(const std::vector<int64_t>& splits, DataType dtype, Tensor* out) {
  GRT_ASSIGN_OR_RETURN(*out,
                       Tensor::Allocate(dtype, TensorShape({static_cast<int64_t>(splits.size())})));
  for (size_t k = 0; k < splits.size(); ++k) {
    if (dtype == ::tensorflow::DT_INT32) {
      out->data<int32_t>()[k] = static_cast<int32_t>(splits[k]);
    } else {
      out->data<int64_t>()[k] = splits[k];
    }
  }
  return Status::OK();
}

// Fills out[offset, offset + n) with zeros (or empty strings).
void ZeroFill(Tensor* out, int64_t offset, int64_t n) {
  if (out->dtype() == ::tensorflow::DT_STRING) {
    for (int64_t i = 0; i < n; ++i) out->data<std::string>()[offset + i].clear();
  } else {
    size_t size = DataTypeSize(out->dtype());
    std::memset(static_cast<char*>(out->raw_data()) + offset * size, 0, n * size);
  }
}

// For a scalar `serialized`: the outputs of a batch of one without the batch dimension, as
// TensorFlow gives them (sparse indices lose their first column; the context's ragged row splits
// and the lists' ragged outer splits become scalars, which TensorFlow leaves uninitialized and
// graphrt sets to 0).
Status DropBatchDimension(SequenceParseResult* r) {
  auto drop_first_dim = [](Tensor* t) {
    std::vector<int64_t> dims(t->shape().dim_sizes().begin() + 1, t->shape().dim_sizes().end());
    *t = t->Reshaped(TensorShape(dims));
  };
  auto drop_first_column = [](Tensor* indices) {
    const int64_t n = indices->dim_size(0), rank = indices->dim_size(1);
    Tensor out(::tensorflow::DT_INT64, TensorShape({n, rank - 1}));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t d = 1; d < rank; ++d) {
        out.data<int64_t>()[i * (rank - 1) + d - 1] = indices->data<int64_t>()[i * rank + d];
      }
    }
    *indices = out;
  };
  ExampleParseResult& c = r->context;
  for (Tensor& t : c.dense_values) drop_first_dim(&t);
  for (Tensor& t : c.sparse_indices) drop_first_column(&t);
  for (Tensor& t : c.sparse_shapes) drop_first_dim(&t);
  for (Tensor& t : c.sparse_shapes) t = Tensor::Vector<int64_t>({t.data<int64_t>()[1]});

  for (Tensor& t : r->dense_values) drop_first_dim(&t);
  for (Tensor& t : r->dense_lengths) drop_first_dim(&t);
  for (Tensor& t : r->sparse_indices) drop_first_column(&t);
  for (Tensor& t : r->sparse_shapes) {
    t = Tensor::Vector<int64_t>({t.data<int64_t>()[1], t.data<int64_t>()[2]});
  }
  auto zero_scalar = [](Tensor* t) {
    *t = Tensor(t->dtype(), TensorShape());
    if (t->dtype() == ::tensorflow::DT_INT32) {
      t->scalar<int32_t>() = 0;
    } else {
      t->scalar<int64_t>() = 0;
    }
  };
  for (Tensor& t : c.ragged_splits) zero_scalar(&t);
  for (Tensor& t : r->ragged_outer_splits) zero_scalar(&t);
  return Status::OK();
}

}  // namespace

Status ParseSequenceExamples(const Tensor& serialized, const Tensor& names,
                             const SequenceParseSpec& spec, SequenceParseResult* result) {
  GRT_RETURN_IF_ERROR(CheckSerialized(serialized, names));
  if (serialized.dims() == 0) {
    // One SequenceExample: parsed as a batch of one, then the batch dimension dropped.
    GRT_RETURN_IF_ERROR(
        ParseSequenceExamples(serialized.Reshaped(TensorShape({1})), names, spec, result));
    return DropBatchDimension(result);
  }
  const int64_t batch = serialized.NumElements();
  const std::string* bytes = serialized.data<std::string>();
  std::vector<::tensorflow::SequenceExample> examples(batch);
  std::vector<const ::tensorflow::Features*> context(batch);
  for (int64_t i = 0; i < batch; ++i) {
    if (!examples[i].ParseFromString(bytes[i])) {
      return InvalidArgument("Could not parse example input: ", ExampleLabel(names, i),
                             " is not a serialized tf.SequenceExample (", bytes[i].size(),
                             " bytes)");
    }
    context[i] = &examples[i].context();
  }
  GRT_RETURN_IF_ERROR(ParseFeatures(context, false, names, spec.context, &result->context));
  ExampleParseResult context_result = std::move(result->context);
  *result = SequenceParseResult();
  result->context = std::move(context_result);

  // lists[i]: example i's list for the key, or null; each step checked against the type.
  std::vector<const ::tensorflow::FeatureList*> lists(batch);
  auto find_lists = [&](const FeatureListSpec& f) -> Status {
    for (int64_t i = 0; i < batch; ++i) {
      const auto& map = examples[i].feature_lists().feature_list();
      auto it = map.find(f.key);
      lists[i] = it == map.end() ? nullptr : &it->second;
      if (!lists[i]) continue;
      for (int s = 0; s < lists[i]->feature_size(); ++s) {
        DataType got = FeatureDataType(lists[i]->feature(s));
        if (got != ::tensorflow::DT_INVALID && got != f.dtype) {
          return InvalidArgument(ExampleLabel(names, i), ", Feature list: ", f.key, ", step ", s,
                                 ". Data types don't match. Data type: ", DataTypeString(got),
                                 " but expected type: ", DataTypeString(f.dtype));
        }
      }
    }
    return Status::OK();
  };
  auto steps = [&](int64_t i) -> int64_t { return lists[i] ? lists[i]->feature_size() : 0; };

  for (const FeatureListSpec& f : spec.dense) {
    GRT_RETURN_IF_ERROR(find_lists(f));
    if (!f.shape.IsFullyDefined()) {
      return InvalidArgument("feature list ", f.key, ": shape ", f.shape.DebugString(),
                             " must be fully defined");
    }
    const int64_t row = RowElements(f.shape, false);
    int64_t longest = 0;
    for (int64_t i = 0; i < batch; ++i) {
      if (!lists[i] && !f.missing_assumed_empty) {
        return InvalidArgument(ExampleLabel(names, i), ", Feature list '", f.key,
                               "' is required but could not be found. Did you mean to include "
                               "it in feature_list_dense_missing_assumed_empty or "
                               "feature_list_dense_defaults?");
      }
      longest = std::max(longest, steps(i));
    }
    std::vector<int64_t> dims = {batch, longest};
    for (int d = 0; d < f.shape.dims(); ++d) dims.push_back(f.shape.dim_size(d));
    GRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(f.dtype, TensorShape(dims)));
    GRT_ASSIGN_OR_RETURN(Tensor lengths,
                         Tensor::Allocate(::tensorflow::DT_INT64, TensorShape({batch})));
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t base = i * longest * row;
      for (int64_t s = 0; s < steps(i); ++s) {
        const Feature& step = lists[i]->feature(static_cast<int>(s));
        if (FeatureSize(step) != row) {
          return InvalidArgument(ExampleLabel(names, i), ", Feature list: ", f.key, ", step ", s,
                                 ". Number of ", DataTypeString(f.dtype),
                                 " values != expected. Values size: ", FeatureSize(step),
                                 " but output shape: ", f.shape.DebugString());
        }
        CopyFeature(step, &out, base + s * row);
      }
      ZeroFill(&out, base + steps(i) * row, (longest - steps(i)) * row);
      lengths.data<int64_t>()[i] = steps(i);
    }
    result->dense_values.push_back(std::move(out));
    result->dense_lengths.push_back(std::move(lengths));
  }

  for (const FeatureListSpec& f : spec.sparse) {
    GRT_RETURN_IF_ERROR(find_lists(f));
    int64_t total = 0, longest_steps = 0, longest = 0;
    for (int64_t i = 0; i < batch; ++i) {
      longest_steps = std::max(longest_steps, steps(i));
      for (int64_t s = 0; s < steps(i); ++s) {
        int64_t n = FeatureSize(lists[i]->feature(static_cast<int>(s)));
        total += n;
        longest = std::max(longest, n);
      }
    }
    GRT_ASSIGN_OR_RETURN(Tensor indices,
                         Tensor::Allocate(::tensorflow::DT_INT64, TensorShape({total, 3})));
    GRT_ASSIGN_OR_RETURN(Tensor values, Tensor::Allocate(f.dtype, TensorShape({total})));
    int64_t at = 0;
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t s = 0; s < steps(i); ++s) {
        const Feature& step = lists[i]->feature(static_cast<int>(s));
        CopyFeature(step, &values, at);
        for (int64_t j = 0; j < FeatureSize(step); ++j, ++at) {
          indices.data<int64_t>()[3 * at] = i;
          indices.data<int64_t>()[3 * at + 1] = s;
          indices.data<int64_t>()[3 * at + 2] = j;
        }
      }
    }
    result->sparse_indices.push_back(std::move(indices));
    result->sparse_values.push_back(std::move(values));
    result->sparse_shapes.push_back(Tensor::Vector<int64_t>({batch, longest_steps, longest}));
  }

  for (const FeatureListSpec& f : spec.ragged) {
    GRT_RETURN_IF_ERROR(find_lists(f));
    std::vector<int64_t> outer = {0}, inner = {0};
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t s = 0; s < steps(i); ++s) {
        inner.push_back(inner.back() + FeatureSize(lists[i]->feature(static_cast<int>(s))));
      }
      outer.push_back(outer.back() + steps(i));
    }
    GRT_ASSIGN_OR_RETURN(Tensor values, Tensor::Allocate(f.dtype, TensorShape({inner.back()})));
    int64_t k = 0;
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t s = 0; s < steps(i); ++s, ++k) {
        CopyFeature(lists[i]->feature(static_cast<int>(s)), &values, inner[k]);
      }
    }
    Tensor outer_t, inner_t;
    GRT_RETURN_IF_ERROR(SplitsTensor(outer, f.split_dtype, &outer_t));
    GRT_RETURN_IF_ERROR(SplitsTensor(inner, f.split_dtype, &inner_t));
    result->ragged_values.push_back(std::move(values));
    result->ragged_outer_splits.push_back(std::move(outer_t));
    result->ragged_inner_splits.push_back(std::move(inner_t));
  }
  return Status::OK();
}

Status CheckSerialized(const Tensor& serialized, const Tensor& names) {
  if (serialized.dtype() != ::tensorflow::DT_STRING || serialized.dims() > 1) {
    return InvalidArgument("serialized must be a string scalar or vector, got ",
                           DataTypeString(serialized.dtype()), serialized.shape().DebugString());
  }
  if (names.NumElements() != 0 && names.NumElements() != serialized.NumElements()) {
    return InvalidArgument("names has ", names.NumElements(), " elements for ",
                           serialized.NumElements(), " examples");
  }
  return Status::OK();
}

namespace {

// The body of ParseFeatures for either form of a Feature: a decoded ::tensorflow::Feature or a
// WireFeature. lookup(i, key) gives example i's feature `key`, or null.
template <typename F, typename Lookup>
Status ParseFeaturesImpl(int64_t batch, bool scalar, const Tensor& names,
                         const ExampleParseSpec& spec, Lookup&& lookup,
                         ExampleParseResult* result) {
  // found[i]: the feature of example i, or null when absent.
  auto find_all = [&](const std::string& key, DataType want,
                      std::vector<const F*>* found) -> Status {
    found->assign(batch, nullptr);
    for (int64_t i = 0; i < batch; ++i) {
      const F* f = lookup(i, key);
      if (f == nullptr) continue;
      DataType got = FeatureDataType(*f);
      if (got != ::tensorflow::DT_INVALID && got != want) {
        return TypeMismatch(names, i, key, got, want);
      }
      (*found)[i] = f;
    }
    return Status::OK();
  };

  std::vector<const F*> found;
  result->dense_values.clear();
  for (const DenseFeatureSpec& d : spec.dense) {
    GRT_RETURN_IF_ERROR(find_all(d.key, d.dtype, &found));
    const bool variable = IsVariableLength(d);
    const int64_t row = RowElements(d.shape, variable);
    std::vector<int64_t> dims;
    if (!scalar) dims.push_back(batch);
    int64_t rows = 1;  // for variable length: the longest example, in units of `row`
    if (variable) {
      rows = 0;
      for (int64_t i = 0; i < batch; ++i) {
        int64_t n = found[i] ? FeatureSize(*found[i]) : 0;
        if (row == 0 ? n != 0 : n % row != 0) {
          return InvalidArgument(ExampleLabel(names, i), ", Feature: ", d.key, ". Number of ",
                                 DataTypeString(d.dtype), " values ", n,
                                 " is not a multiple of the row size ", row, " of shape ",
                                 d.shape.DebugString());
        }
        if (!found[i] && d.default_value.NumElements() == 0) {
          return InvalidArgument(ExampleLabel(names, i), ", Feature: ", d.key,
                                 " (data type: ", DataTypeString(d.dtype),
                                 ") is required but could not be found.");
        }
        if (row > 0) rows = std::max(rows, n / row);
      }
      dims.push_back(rows);
    }
    for (int k = variable ? 1 : 0; k < d.shape.dims(); ++k) dims.push_back(d.shape.dim_size(k));
    GRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(d.dtype, TensorShape(dims)));
    const int64_t stride = variable ? rows * row : row;
    for (int64_t i = 0; i < batch; ++i) {
      int64_t offset = i * stride;
      if (!found[i]) {
        if (d.default_value.NumElements() == 0) {
          return InvalidArgument(ExampleLabel(names, i), ", Feature: ", d.key,
                                 " (data type: ", DataTypeString(d.dtype),
                                 ") is required but could not be found.");
        }
        CopyDefault(d.default_value, stride, &out, offset);
        continue;
      }
      int64_t n = FeatureSize(*found[i]);
      if (!variable && n != row) {
        return InvalidArgument(ExampleLabel(names, i), ", Feature: ", d.key, ". Number of ",
                               DataTypeString(d.dtype), " values != expected. Values size: ", n,
                               " but output shape: ", d.shape.DebugString());
      }
      CopyFeature(*found[i], &out, offset);
      if (n < stride) CopyDefault(d.default_value, stride - n, &out, offset + n);
    }
    result->dense_values.push_back(std::move(out));
  }

  result->sparse_indices.clear();
  result->sparse_values.clear();
  result->sparse_shapes.clear();
  for (const SparseFeatureSpec& s : spec.sparse) {
    GRT_RETURN_IF_ERROR(find_all(s.key, s.dtype, &found));
    int64_t total = 0, longest = 0;
    for (int64_t i = 0; i < batch; ++i) {
      int64_t n = found[i] ? FeatureSize(*found[i]) : 0;
      total += n;
      longest = std::max(longest, n);
    }
    const int rank = scalar ? 1 : 2;
    GRT_ASSIGN_OR_RETURN(Tensor indices,
                         Tensor::Allocate(::tensorflow::DT_INT64, TensorShape({total, rank})));
    GRT_ASSIGN_OR_RETURN(Tensor values, Tensor::Allocate(s.dtype, TensorShape({total})));
    int64_t* idx = indices.data<int64_t>();
    int64_t at = 0;
    for (int64_t i = 0; i < batch; ++i) {
      if (!found[i]) continue;
      int64_t n = FeatureSize(*found[i]);
      CopyFeature(*found[i], &values, at);
      for (int64_t j = 0; j < n; ++j, ++at) {
        if (scalar) {
          idx[at] = j;
        } else {
          idx[2 * at] = i;
          idx[2 * at + 1] = j;
        }
      }
    }
    result->sparse_indices.push_back(std::move(indices));
    result->sparse_values.push_back(std::move(values));
    result->sparse_shapes.push_back(scalar ? Tensor::Vector<int64_t>({longest})
                                           : Tensor::Vector<int64_t>({batch, longest}));
  }

  result->ragged_values.clear();
  result->ragged_splits.clear();
  for (const RaggedFeatureSpec& r : spec.ragged) {
    GRT_RETURN_IF_ERROR(find_all(r.key, r.dtype, &found));
    int64_t total = 0;
    std::vector<int64_t> splits = {0};
    for (int64_t i = 0; i < batch; ++i) {
      total += found[i] ? FeatureSize(*found[i]) : 0;
      splits.push_back(total);
    }
    GRT_ASSIGN_OR_RETURN(Tensor values, Tensor::Allocate(r.dtype, TensorShape({total})));
    for (int64_t i = 0; i < batch; ++i) {
      if (found[i]) CopyFeature(*found[i], &values, splits[i]);
    }
    if (scalar) splits.clear();
    GRT_ASSIGN_OR_RETURN(
        Tensor split_tensor,
        Tensor::Allocate(r.split_dtype, TensorShape({static_cast<int64_t>(splits.size())})));
    for (size_t k = 0; k < splits.size(); ++k) {
      if (r.split_dtype == ::tensorflow::DT_INT32) {
        split_tensor.data<int32_t>()[k] = static_cast<int32_t>(splits[k]);
      } else {
        split_tensor.data<int64_t>()[k] = splits[k];
      }
    }
    result->ragged_values.push_back(std::move(values));
    result->ragged_splits.push_back(std::move(split_tensor));
  }
  return Status::OK();
}

}  // namespace

Status ParseFeatures(const std::vector<const ::tensorflow::Features*>& features, bool scalar,
                     const Tensor& names, const ExampleParseSpec& spec,
                     ExampleParseResult* result) {
  auto lookup = [&](int64_t i, const std::string& key) -> const Feature* {
    const auto& map = features[i]->feature();
    auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
  };
  return ParseFeaturesImpl<Feature>(static_cast<int64_t>(features.size()), scalar, names, spec,
                                    lookup, result);
}

Status ParseExamples(const Tensor& serialized, const Tensor& names, const ExampleParseSpec& spec,
                     ExampleParseResult* result) {
  GRT_RETURN_IF_ERROR(CheckSerialized(serialized, names));
  const int64_t batch = serialized.NumElements();
  const std::string* bytes = serialized.data<std::string>();
  auto not_an_example = [&](int64_t i) {
    return InvalidArgument("Could not parse example input: ", ExampleLabel(names, i),
                           " is not a serialized tf.Example (", bytes[i].size(), " bytes)");
  };

  // The fast path: table[i * keys + slot], the wire features the spec asks for.
  std::unordered_map<std::string_view, int> slots;
  for (const auto& d : spec.dense) slots.emplace(d.key, static_cast<int>(slots.size()));
  for (const auto& x : spec.sparse) slots.emplace(x.key, static_cast<int>(slots.size()));
  for (const auto& x : spec.ragged) slots.emplace(x.key, static_cast<int>(slots.size()));
  const size_t keys = slots.size();
  std::vector<WireFeature> table(batch * keys);
  std::vector<bool> present(batch * keys, false);
  bool unusual = false;
  std::vector<WireFeature> row(keys);
  std::vector<bool> row_present(keys);
  for (int64_t i = 0; i < batch && !unusual; ++i) {
    std::fill(row_present.begin(), row_present.end(), false);
    WireResult r = ReadWireExample(bytes[i], slots, &row, &row_present);
    if (r == WireResult::kMalformed) {
      // Let protobuf judge: the wire reader is stricter about rare encodings.
      unusual = true;
      break;
    }
    if (r == WireResult::kUnusual) unusual = true;
    for (size_t k = 0; k < keys; ++k) {
      table[i * keys + k] = row[k];
      present[i * keys + k] = row_present[k];
    }
  }
  if (!unusual) {
    auto lookup = [&](int64_t i, const std::string& key) -> const WireFeature* {
      size_t k = static_cast<size_t>(slots.at(key));
      return present[i * keys + k] ? &table[i * keys + k] : nullptr;
    };
    return ParseFeaturesImpl<WireFeature>(batch, serialized.dims() == 0, names, spec, lookup,
                                          result);
  }

  // One arena for the batch: decoding allocates many small strings and map nodes.
  google::protobuf::Arena arena;
  std::vector<const ::tensorflow::Features*> features(batch);
  for (int64_t i = 0; i < batch; ++i) {
    auto* example = google::protobuf::Arena::CreateMessage<::tensorflow::Example>(&arena);
    if (!example->ParseFromString(bytes[i])) return not_an_example(i);
    features[i] = &example->features();
  }
  return ParseFeatures(features, serialized.dims() == 0, names, spec, result);
}

}  // namespace graphrt
