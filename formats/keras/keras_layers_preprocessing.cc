// Keras categorical and text preprocessing layers at inference (tf-keras 2.15 semantics):
// CategoryEncoding, Hashing, Discretization, StringLookup, IntegerLookup and TextVectorization.
// The image layers are in keras_layers_image_preprocessing.cc.
//
// Lookups are stateless: the vocabulary is a Const and each key is found by a binary search
// (LowerBound) among the tokens' sorted keys (64-bit hashes for strings, the integers
// themselves), then checked against the token found. A HashTableV2 would need an initializer run
// before the first call and in every exported SavedModel. (`graphrt run` of a 20000-token
// TextVectorization over 32 x 200 words takes under 0.1 s, loading included.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/keras/keras_builder_internal.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

constexpr DataType kInt64 = ::tensorflow::DT_INT64;
constexpr DataType kString = ::tensorflow::DT_STRING;

// The most bins a count/one-hot output may have: the output is [batch, bins] floats, so a
// hostile num_tokens would otherwise allocate without bound.
constexpr int64_t kMaxTokens = int64_t{1} << 24;
// The widest n-gram TextVectorization may ask for (each width is a pass over the tokens).
constexpr int64_t kMaxNgram = 64;

std::string Cast(Emitter& emit, const std::string& name, const std::string& x, DataType from,
                 DataType to) {
  if (from == to) return x;
  NodeDef* n = emit.Add("Cast", name, {x});
  SetNodeAttr(n, "SrcT", from);
  SetNodeAttr(n, "DstT", to);
  SetNodeAttr(n, "Truncate", false);
  return n->name();
}

std::string ExpandDimsT(Emitter& emit, const std::string& name, const std::string& x, int axis,
                        DataType t) {
  NodeDef* n = emit.Add("ExpandDims", name, {x, emit.Int(name + "/dim", axis)});
  SetNodeAttr(n, "T", t);
  SetNodeAttr(n, "Tdim", kInt32);
  return n->name();
}

std::string Compare(Emitter& emit, const std::string& op, const std::string& name,
                    const std::string& a, const std::string& b, DataType t) {
  NodeDef* n = emit.Add(op, name, {a, b});
  SetNodeAttr(n, "T", t);
  if (op == "Equal" || op == "NotEqual") SetNodeAttr(n, "incompatible_shape_error", true);
  return n->name();
}

std::string SelectV2(Emitter& emit, const std::string& name, const std::string& cond,
                     const std::string& a, const std::string& b, DataType t) {
  NodeDef* n = emit.Add("SelectV2", name, {cond, a, b});
  SetNodeAttr(n, "T", t);
  return n->name();
}

DataType ConfigDtype(const LayerCall& c, const std::string& fallback) {
  std::string name = fallback;
  auto it = c.config->find("dtype");
  if (it != c.config->end()) {
    if (it->is_string()) {
      name = it->get<std::string>();
    } else if (it->is_object()) {
      // Newer spellings: {"class_name": "DTypePolicy", "config": {"name": "float32"}}.
      auto cfg = it->find("config");
      if (cfg != it->end() && cfg->is_object()) name = Get<std::string>(*cfg, "name", fallback);
    }
  }
  DataType t = kFloat;
  if (!DataTypeFromString(name, &t)) t = kFloat;
  return t;
}

bool IsIntegerType(DataType t) {
  return t == kInt32 || t == kInt64 || t == ::tensorflow::DT_INT8 || t == ::tensorflow::DT_INT16 ||
         t == ::tensorflow::DT_UINT8 || t == ::tensorflow::DT_UINT16 ||
         t == ::tensorflow::DT_UINT32 || t == ::tensorflow::DT_UINT64;
}

// Keras's encode_categorical_inputs on dense ids: "int" casts; "one_hot", "multi_hot", "count"
// and "tf_idf" count ids per row (DenseBincount; ids >= depth are dropped, which is how masked
// tokens vanish). `idf` is the tf_idf weights ([depth]); ignored otherwise.
StatusOr<Value> EncodeCategorical(LayerCall& c, const Value& ids, const std::string& mode,
                                  int64_t depth, DataType out_type, const Tensor* idf) {
  Emitter& emit = *c.emit;
  const std::string scope = c.scope + "/encode";
  if (mode == "int") {
    return Value{Cast(emit, scope + "/Cast", ids.tensor, ids.dtype, out_type), ids.shape, out_type};
  }
  if (mode != "one_hot" && mode != "multi_hot" && mode != "count" && mode != "tf_idf") {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): unknown output_mode '", mode,
                           "'");
  }
  if (depth < 1 || depth > kMaxTokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): ", depth,
                           " output bins is outside [1, ", kMaxTokens, "]");
  }
  if (out_type != kFloat && out_type != ::tensorflow::DT_DOUBLE && out_type != kInt32 &&
      out_type != kInt64) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): output dtype ",
                         DataTypeString(out_type), " for output_mode '", mode, "'");
  }
  Value x = ids;
  if (x.rank() == 0) {
    x = Value{ExpandDimsT(emit, scope + "/scalar", x.tensor, -1, x.dtype), {1}, x.dtype};
  }
  if (mode == "one_hot" && x.shape.back() != 1) {
    Shape s = x.shape;
    s.push_back(1);
    x = Value{ExpandDimsT(emit, scope + "/one_hot", x.tensor, -1, x.dtype), s, x.dtype};
  }
  if (x.rank() > 2) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): output_mode '", mode,
                           "' takes inputs of rank 2 at most, got ", ShapeString(ids.shape));
  }
  NodeDef* n = emit.Add(
      "DenseBincount", scope + "/DenseBincount",
      {x.tensor,
       emit.Const(scope + "/size", x.dtype == kInt64
                                       ? Tensor::Scalar<int64_t>(depth)
                                       : Tensor::Scalar<int32_t>(static_cast<int32_t>(depth))),
       emit.Const(scope + "/weights", Tensor(out_type, TensorShape({0})))});
  SetNodeAttr(n, "Tidx", x.dtype);
  SetNodeAttr(n, "T", out_type);
  SetNodeAttr(n, "binary_output", mode == "one_hot" || mode == "multi_hot");
  Shape shape = x.rank() == 2 ? Shape{x.shape[0], depth} : Shape{depth};
  std::string y = n->name();
  if (mode == "tf_idf") {
    y = emit.Binary("Mul", scope + "/tf_idf", y, emit.Const(scope + "/idf_weights", *idf),
                    out_type);
  }
  return Value{y, shape, out_type};
}

// Ids for the bincount ops: int32 or int64 as they are, anything else cast to int32 as
// tf.math.bincount does.
Value AsIds(Emitter& emit, const std::string& scope, const Value& x) {
  if (x.dtype == kInt32 || x.dtype == kInt64) return x;
  return Value{Cast(emit, scope + "/ids", x.tensor, x.dtype, kInt32), x.shape, kInt32};
}

// A lookup layer's vocabulary, its special tokens and what the options make of them.
struct Vocabulary {
  bool strings = true;
  std::vector<Json> tokens;  // without the special tokens
  Json mask_token;           // null when there is none
  Json oov_token;
  int64_t num_oov = 1;
  int64_t oov_start = 0;    // 1 when a mask token takes index 0 (int output)
  int64_t token_start = 0;  // oov_start + num_oov
  bool found_special = false;
  int64_t size() const { return token_start + static_cast<int64_t>(tokens.size()); }
};

std::string SnakeCase(const std::string& class_name) {
  std::string out;
  for (size_t i = 0; i < class_name.size(); ++i) {
    char ch = class_name[i];
    if (ch >= 'A' && ch <= 'Z') {
      if (i > 0) out += '_';
      out += static_cast<char>(ch - 'A' + 'a');
    } else {
      out += ch;
    }
  }
  return out;
}

// A .keras archive keeps an adapted vocabulary in assets/layers/<snake_case class><_k>/
// vocabulary.txt, k counting the earlier layers of the same class in the model's layer list
// (tf-keras 2.12+ and Keras 3 name the paths so). Returns null when there is none.
const std::string* VocabularyAsset(const LayerCall& c) {
  const auto& assets = c.walker->file().assets;
  if (assets.empty()) return nullptr;
  const std::string base = "layers/" + SnakeCase(c.class_name);
  int ordinal = 0;
  Json model = Json::parse(c.walker->file().model_config, nullptr, false);
  if (model.is_object()) {
    auto cfg = model.find("config");
    if (cfg != model.end() && cfg->is_object()) {
      auto layers = cfg->find("layers");
      if (layers != cfg->end() && layers->is_array()) {
        for (const Json& l : *layers) {
          if (!l.is_object() || Get<std::string>(l, "class_name", "") != c.class_name) continue;
          auto lc = l.find("config");
          std::string name =
              lc != l.end() && lc->is_object() ? Get<std::string>(*lc, "name", "") : "";
          if (name == c.name) break;
          ++ordinal;
        }
      }
    }
  }
  const std::string path = (ordinal == 0 ? base : StrCat(base, "_", ordinal)) + "/vocabulary.txt";
  auto it = assets.find(path);
  return it == assets.end() ? nullptr : &it->second;
}

// Reads the vocabulary from the config ("vocabulary": [...]) or, failing that, from the
// archive's assets, and applies Keras's set_vocabulary rules: the special tokens may lead the
// list (then they are dropped from it), the size must not pass max_tokens.
StatusOr<Vocabulary> ReadVocabulary(LayerCall& c, bool strings, const Json& mask_token,
                                    const Json& oov_token, int64_t num_oov, bool int_output) {
  Vocabulary v;
  v.strings = strings;
  v.mask_token = mask_token;
  v.oov_token = oov_token;
  if (num_oov < 0 || num_oov > kMaxTokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): num_oov_indices ", num_oov);
  }
  v.num_oov = num_oov;
  v.oov_start = !mask_token.is_null() && int_output ? 1 : 0;
  v.token_start = v.oov_start + num_oov;
  std::vector<Json> all;
  auto it = c.config->find("vocabulary");
  if (it != c.config->end() && it->is_array()) {
    all.assign(it->begin(), it->end());
  } else if (const std::string* text = VocabularyAsset(c)) {
    // Keras writes the lines joined by "\n" and reads them back with split("\n").
    for (const std::string& line : StrSplit(*text, '\n')) {
      if (strings) {
        all.push_back(line);
      } else {
        long long value = 0;
        if (!ParseInt64(line, &value)) {
          return InvalidArgument("layer '", c.name, "' (", c.class_name,
                                 "): the vocabulary asset holds '", line, "', not an integer");
        }
        all.push_back(static_cast<int64_t>(value));
      }
    }
  } else {
    return InvalidArgument(
        "layer '", c.name, "' (", c.class_name,
        "): no vocabulary: the config has none as a list and the file no vocabulary asset "
        "(an adapted vocabulary is kept only by .keras archives and SavedModels)");
  }
  if (all.empty()) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): empty vocabulary");
  }
  for (const Json& t : all) {
    if (strings ? !t.is_string() : !t.is_number_integer()) {
      return InvalidArgument("layer '", c.name, "' (", c.class_name, "): vocabulary entry ",
                             t.dump(), " is not ", strings ? "a string" : "an integer");
    }
  }
  std::vector<Json> special(v.oov_start, mask_token);
  special.insert(special.end(), num_oov, oov_token);
  v.found_special =
      all.size() >= special.size() && std::equal(special.begin(), special.end(), all.begin());
  v.tokens.assign(all.begin() + (v.found_special ? special.size() : 0), all.end());
  std::vector<std::string> seen;
  for (const Json& t : v.tokens) seen.push_back(t.dump());
  std::sort(seen.begin(), seen.end());
  auto repeated = std::adjacent_find(seen.begin(), seen.end());
  if (repeated != seen.end()) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): the vocabulary repeats the term ", *repeated);
  }
  const int64_t max_tokens = Get<int64_t>(*c.config, "max_tokens", -1);
  if (max_tokens >= 0 && v.size() > max_tokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): a vocabulary of ", v.size(),
                           " tokens is larger than max_tokens ", max_tokens);
  }
  if (v.size() > kMaxTokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): a vocabulary of ", v.size(),
                           " tokens (at most ", kMaxTokens, ")");
  }
  return v;
}

Tensor TokenTensor(const Vocabulary& v, const std::vector<Json>& tokens) {
  if (v.strings) {
    std::vector<std::string> s;
    for (const Json& t : tokens) s.push_back(t.get<std::string>());
    return Tensor::Vector<std::string>(s);
  }
  std::vector<int64_t> s;
  for (const Json& t : tokens) s.push_back(t.get<int64_t>());
  return Tensor::Vector<int64_t>(s);
}

// Keras's _lookup_dense: the int64 index of each element of `keys` (strings, or int64 for an
// integer vocabulary); OOV keys get an OOV index (hashed when there are several), the mask
// token 0 for int output and int64 max otherwise (dropped by the bincount).
std::string LookupIndices(LayerCall& c, const Vocabulary& v, const std::string& keys,
                          bool int_output) {
  Emitter& emit = *c.emit;
  const std::string scope = c.scope + "/lookup";
  const DataType key_type = v.strings ? kString : kInt64;
  const int64_t fallback = v.num_oov == 1 ? v.oov_start : -1;
  // Binary search: the keys (strings by their 64-bit hash, integers as they are) looked up
  // among the tokens' keys in ascending order, then the token found compared with the key, so
  // that a hash collision cannot map a key to the wrong token.
  const int32_t n = static_cast<int32_t>(v.tokens.size());
  std::string tokens = emit.Const(scope + "/vocabulary", TokenTensor(v, v.tokens));
  std::string flat =
      emit.Reshape(scope + "/flat", keys, emit.Ints(scope + "/flat/shape", {1, -1}), key_type);
  std::string sorted, order, probe;
  if (v.strings) {
    auto hash = [&](const std::string& name, const std::string& x) {
      NodeDef* h = emit.Add("StringToHashBucketFast", name, {x});
      SetNodeAttr(h, "num_buckets", std::numeric_limits<int64_t>::max());
      return h->name();
    };
    // Ascending hashes: the top n of the negated hashes, sorted.
    std::string negated =
        emit.Unary("Neg", scope + "/neg_hash", hash(scope + "/vocabulary_hash", tokens), kInt64);
    NodeDef* top = emit.Add("TopKV2", scope + "/sort", {negated, emit.Int(scope + "/n", n)});
    SetNodeAttr(top, "T", kInt64);
    SetNodeAttr(top, "sorted", true);
    sorted = emit.Reshape(scope + "/sorted",
                          emit.Unary("Neg", scope + "/sorted_hash", top->name() + ":0", kInt64),
                          emit.Ints(scope + "/sorted/shape", {1, n}), kInt64);
    order = top->name() + ":1";
    probe = hash(scope + "/key_hash", flat);
  } else {
    std::vector<std::pair<int64_t, int32_t>> pairs;
    for (int32_t i = 0; i < n; ++i) pairs.emplace_back(v.tokens[i].get<int64_t>(), i);
    std::sort(pairs.begin(), pairs.end());
    Tensor keys_sorted(kInt64, TensorShape({1, n}));
    std::vector<int32_t> perm;
    for (int32_t i = 0; i < n; ++i) {
      keys_sorted.data<int64_t>()[i] = pairs[i].first;
      perm.push_back(pairs[i].second);
    }
    sorted = emit.Const(scope + "/sorted", keys_sorted);
    order = emit.Ints(scope + "/order", perm);
    probe = flat;
  }
  NodeDef* bound = emit.Add("LowerBound", scope + "/search", {sorted, probe});
  SetNodeAttr(bound, "T", kInt64);
  SetNodeAttr(bound, "out_type", kInt32);
  std::string pos = emit.Binary("Minimum", scope + "/clamp", bound->name(),
                                emit.Int(scope + "/last", n - 1), kInt32);
  auto gather = [&](const std::string& name, const std::string& params, const std::string& at,
                    DataType t) {
    NodeDef* g = emit.Add("GatherV2", name, {params, at, emit.Int(name + "/axis", 0)});
    SetNodeAttr(g, "Tparams", t);
    SetNodeAttr(g, "Tindices", kInt32);
    SetNodeAttr(g, "Taxis", kInt32);
    SetNodeAttr(g, "batch_dims", int64_t{0});
    return g->name();
  };
  std::string candidate = gather(scope + "/candidate", order, pos, kInt32);
  std::string found =
      Compare(emit, "Equal", scope + "/found",
              gather(scope + "/token", tokens, candidate, key_type), flat, key_type);
  std::string idx = emit.Binary(
      "AddV2", scope + "/token_index", Cast(emit, scope + "/Cast", candidate, kInt32, kInt64),
      emit.Const(scope + "/token_start", Tensor::Scalar<int64_t>(v.token_start)), kInt64);
  idx = SelectV2(emit, scope + "/index_or_oov", found, idx,
                 emit.Const(scope + "/fallback", Tensor::Scalar<int64_t>(fallback)), kInt64);
  idx = emit.Reshape(scope + "/index", idx, emit.ShapeOf(scope + "/shape", keys, key_type), kInt64);
  if (!v.mask_token.is_null()) {
    Tensor key = v.strings ? Tensor::Scalar<std::string>(v.mask_token.get<std::string>())
                           : Tensor::Scalar<int64_t>(v.mask_token.get<int64_t>());
    std::string is_mask = Compare(emit, "Equal", scope + "/is_mask", keys,
                                  emit.Const(scope + "/mask_token", key), key_type);
    int64_t value = int_output ? 0 : std::numeric_limits<int64_t>::max();
    idx = SelectV2(emit, scope + "/masked", is_mask,
                   emit.Const(scope + "/mask_value", Tensor::Scalar<int64_t>(value)), idx, kInt64);
  }
  if (v.num_oov > 1) {
    std::string bucket;
    if (v.strings) {
      NodeDef* n = emit.Add("StringToHashBucketFast", scope + "/oov_hash", {keys});
      SetNodeAttr(n, "num_buckets", v.num_oov);
      bucket = n->name();
    } else {
      bucket =
          emit.Binary("FloorMod", scope + "/oov_mod", keys,
                      emit.Const(scope + "/num_oov", Tensor::Scalar<int64_t>(v.num_oov)), kInt64);
    }
    bucket =
        emit.Binary("AddV2", scope + "/oov_index", bucket,
                    emit.Const(scope + "/oov_start", Tensor::Scalar<int64_t>(v.oov_start)), kInt64);
    std::string is_oov =
        Compare(emit, "Equal", scope + "/is_oov", idx,
                emit.Const(scope + "/minus_one", Tensor::Scalar<int64_t>(-1)), kInt64);
    idx = SelectV2(emit, scope + "/oov", is_oov, bucket, idx, kInt64);
  }
  return idx;
}

// tf_idf weights: the layer's weight when the file holds it (Keras's front-padded array), else
// the config's idf_weights padded as set_vocabulary does. Either must match the vocabulary.
StatusOr<Tensor> IdfWeights(LayerCall& c, const Vocabulary& v, int64_t depth, bool pad) {
  std::vector<const KerasWeight*> stored = c.weights->TakeAll();
  if (!stored.empty()) {
    const Tensor& w = stored[0]->value;
    if (w.dims() != 1 || w.dim_size(0) != depth || w.dtype() != kFloat) {
      return InvalidArgument("layer '", c.name, "' (", c.class_name, "): weight ", stored[0]->name,
                             " has shape ", w.shape().DebugString(), "; the vocabulary makes ",
                             depth, " idf weights");
    }
    return w;
  }
  auto it = c.config->find("idf_weights");
  if (it == c.config->end() || !it->is_array()) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): output_mode 'tf_idf' without idf_weights");
  }
  std::vector<float> given;
  for (const Json& x : *it) given.push_back(x.get<float>());
  const size_t vocab_len = v.tokens.size() + (v.found_special ? v.token_start : 0);
  if (given.size() != vocab_len) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): ", given.size(),
                           " idf_weights for a vocabulary of ", vocab_len);
  }
  std::vector<float> w;
  if (!v.found_special) {
    double sum = 0;
    for (float g : given) sum += g;
    w.assign(v.token_start, static_cast<float>(sum / static_cast<double>(given.size())));
  }
  w.insert(w.end(), given.begin(), given.end());
  if (pad && static_cast<int64_t>(w.size()) < depth) w.resize(depth, 0.0f);
  if (static_cast<int64_t>(w.size()) != depth) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): ", w.size(),
                           " idf weights for ", depth, " output bins");
  }
  return Tensor::Vector<float>(w);
}

// The number of bins of a non-int lookup output: max_tokens with pad_to_max_tokens, else the
// vocabulary with its special tokens.
StatusOr<int64_t> LookupDepth(LayerCall& c, const Vocabulary& v) {
  if (!Get<bool>(*c.config, "pad_to_max_tokens", false)) return v.size();
  int64_t max_tokens = Get<int64_t>(*c.config, "max_tokens", -1);
  if (max_tokens < 1 || max_tokens > kMaxTokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): pad_to_max_tokens with ",
                           "max_tokens ", max_tokens);
  }
  return max_tokens;
}

Status RefuseSparse(const LayerCall& c) {
  if (Get<bool>(*c.config, "sparse", false)) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): sparse=True outputs");
  }
  return Status::OK();
}

// tf.strings.split(x) of a [batch] string tensor as a ragged batch: the tokens and row splits.
void WhitespaceSplit(Emitter& emit, const std::string& scope, const std::string& s,
                     std::string* tokens, std::string* splits) {
  NodeDef* sp = emit.Add("StringSplitV2", scope + "/split",
                         {s, emit.Const(scope + "/sep", Tensor::Scalar<std::string>(""))});
  SetNodeAttr(sp, "maxsplit", int64_t{-1});
  // Row splits from the sparse indices: counts of each row id, cumulated behind a 0.
  NodeDef* rowids = emit.Add(
      "StridedSlice", scope + "/rowids",
      {sp->name() + ":0", emit.Ints(scope + "/rowids/begin", {0, 0}),
       emit.Ints(scope + "/rowids/end", {0, 1}), emit.Ints(scope + "/rowids/strides", {1, 1})});
  SetNodeAttr(rowids, "T", kInt64);
  SetNodeAttr(rowids, "Index", kInt32);
  SetNodeAttr(rowids, "begin_mask", int64_t{1});
  SetNodeAttr(rowids, "end_mask", int64_t{1});
  SetNodeAttr(rowids, "ellipsis_mask", int64_t{0});
  SetNodeAttr(rowids, "new_axis_mask", int64_t{0});
  SetNodeAttr(rowids, "shrink_axis_mask", int64_t{2});
  NodeDef* nrows =
      emit.Add("StridedSlice", scope + "/nrows",
               {sp->name() + ":2", emit.Ints(scope + "/nrows/begin", {0}),
                emit.Ints(scope + "/nrows/end", {1}), emit.Ints(scope + "/nrows/strides", {1})});
  SetNodeAttr(nrows, "T", kInt64);
  SetNodeAttr(nrows, "Index", kInt32);
  SetNodeAttr(nrows, "begin_mask", int64_t{0});
  SetNodeAttr(nrows, "end_mask", int64_t{0});
  SetNodeAttr(nrows, "ellipsis_mask", int64_t{0});
  SetNodeAttr(nrows, "new_axis_mask", int64_t{0});
  SetNodeAttr(nrows, "shrink_axis_mask", int64_t{1});
  NodeDef* lengths =
      emit.Add("DenseBincount", scope + "/row_lengths",
               {rowids->name(), nrows->name(),
                emit.Const(scope + "/row_lengths/weights", Tensor(kInt64, TensorShape({0})))});
  SetNodeAttr(lengths, "Tidx", kInt64);
  SetNodeAttr(lengths, "T", kInt64);
  SetNodeAttr(lengths, "binary_output", false);
  NodeDef* cum =
      emit.Add("Cumsum", scope + "/cumsum", {lengths->name(), emit.Int(scope + "/cumsum/axis", 0)});
  SetNodeAttr(cum, "T", kInt64);
  SetNodeAttr(cum, "Tidx", kInt32);
  SetNodeAttr(cum, "exclusive", false);
  SetNodeAttr(cum, "reverse", false);
  *splits = emit.Concat(
      scope + "/row_splits",
      {emit.Const(scope + "/row_splits/zero", Tensor::Vector<int64_t>({0})), cum->name()}, 0,
      kInt64);
  *tokens = sp->name() + ":1";
}

// tf.strings.unicode_split(x, "UTF-8"): decode to code points, then encode each alone.
void CharacterSplit(Emitter& emit, const std::string& scope, const std::string& s,
                    std::string* tokens, std::string* splits) {
  NodeDef* decode = emit.Add("UnicodeDecode", scope + "/decode", {s});
  SetNodeAttr(decode, "input_encoding", "UTF-8");
  SetNodeAttr(decode, "errors", "replace");
  SetNodeAttr(decode, "replacement_char", int64_t{65533});
  SetNodeAttr(decode, "replace_control_characters", false);
  SetNodeAttr(decode, "Tsplits", kInt64);
  const std::string chars = decode->name() + ":1";
  NodeDef* size = emit.Add("Size", scope + "/num_chars", {chars});
  SetNodeAttr(size, "T", kInt32);
  SetNodeAttr(size, "out_type", kInt64);
  std::string one = emit.Const(scope + "/one", Tensor::Scalar<int64_t>(1));
  NodeDef* range = emit.Add(
      "Range", scope + "/char_splits",
      {emit.Const(scope + "/zero", Tensor::Scalar<int64_t>(0)),
       emit.Binary("AddV2", scope + "/num_chars_plus_one", size->name(), one, kInt64), one});
  SetNodeAttr(range, "Tidx", kInt64);
  NodeDef* encode = emit.Add("UnicodeEncode", scope + "/encode", {chars, range->name()});
  SetNodeAttr(encode, "errors", "replace");
  SetNodeAttr(encode, "output_encoding", "UTF-8");
  SetNodeAttr(encode, "replacement_char", int64_t{65533});
  SetNodeAttr(encode, "Tsplits", kInt64);
  *tokens = encode->name();
  *splits = decode->name() + ":0";
}

// An adapted Discretization keeps no bin_boundaries in its config, only its quantile summary
// (weight "summary": values, weights; [2, n]). Keras's finalize_state derives the boundaries:
// compress_summary(summary, 1 / num_bins)[0, :-1], where compressing interpolates the values at
// the cumulative-weight fractions eps, 2 eps, ... (np.interp) unless n * eps < 1.
StatusOr<std::vector<float>> AdaptedBoundaries(LayerCall& c) {
  const int64_t num_bins = Get<int64_t>(*c.config, "num_bins", -1);
  if (num_bins < 1 || num_bins > kMaxTokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): no bin_boundaries and num_bins ", num_bins);
  }
  GRT_ASSIGN_OR_RETURN(Tensor summary, c.weights->Next("summary", {2, -1}));
  const int64_t n = summary.dim_size(1);
  const float* values = summary.data<float>();
  const float* weights = values + n;
  if (n == 0) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): an empty summary");
  }
  const double eps = 1.0 / static_cast<double>(num_bins);
  std::vector<float> bins;
  if (static_cast<double>(n) * eps < 1) {
    bins.assign(values, values + n);
  } else {
    // float32 cumulative weights and fractions, as numpy computes them on the float32 summary.
    std::vector<float> cum(n);
    float total = 0;
    for (int64_t i = 0; i < n; ++i) cum[i] = total = total + weights[i];
    std::vector<double> frac(n);
    for (int64_t i = 0; i < n; ++i) frac[i] = static_cast<double>(cum[i] / cum[n - 1]);
    // np.arange(0, 1, eps) has ceil(1 / eps) points.
    const int64_t points = static_cast<int64_t>(std::ceil(1.0 / eps));
    for (int64_t k = 0; k < points; ++k) {
      const double x = eps + static_cast<double>(k) * eps;
      double y;
      // np.interp: the j with frac[j] <= x < frac[j + 1]; the ends clamp.
      const int64_t j = std::upper_bound(frac.begin(), frac.end(), x) - frac.begin() - 1;
      if (j < 0) {
        y = values[0];
      } else if (j >= n - 1) {
        y = values[n - 1];
      } else if (frac[j] == x) {
        y = values[j];
      } else {
        const double slope =
            (static_cast<double>(values[j + 1]) - values[j]) / (frac[j + 1] - frac[j]);
        y = slope * (x - frac[j]) + values[j];
      }
      bins.push_back(static_cast<float>(y));
    }
  }
  bins.pop_back();
  return bins;
}

}  // namespace

Status CategoryEncodingLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_RETURN_IF_ERROR(RefuseSparse(c));
  const Json* tokens = nullptr;
  auto it = c.config->find("num_tokens");
  if (it == c.config->end() || it->is_null()) it = c.config->find("max_tokens");
  if (it != c.config->end() && !it->is_null()) tokens = &*it;
  if (tokens == nullptr) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): no num_tokens");
  }
  if (c.inputs.size() > 1 ||
      (c.kwargs != nullptr && c.kwargs->is_object() && c.kwargs->contains("count_weights"))) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): count_weights");
  }
  const int64_t depth = JsonInt(*tokens);
  const std::string mode = Get<std::string>(*c.config, "output_mode", "multi_hot");
  if (mode == "int" || mode == "tf_idf") {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): unknown output_mode '", mode,
                           "'");
  }
  Value ids = AsIds(*c.emit, c.scope, c.inputs[0]);
  GRT_ASSIGN_OR_RETURN(Value y,
                       EncodeCategorical(c, ids, mode, depth, ConfigDtype(c, "float32"), nullptr));
  out->push_back(y);
  return Status::OK();
}

Status HashingLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_RETURN_IF_ERROR(RefuseSparse(c));
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  const std::string mode = Get<std::string>(*c.config, "output_mode", "int");
  int64_t bins = Get<int64_t>(*c.config, "num_bins", -1);
  if (bins < 1 || bins > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): num_bins ", bins);
  }
  if (x.dtype != kString && !IsIntegerType(x.dtype)) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): inputs of dtype ",
                         DataTypeString(x.dtype), " (strings or integers)");
  }
  int64_t hash_bins = bins;
  std::string mask;
  auto mv = c.config->find("mask_value");
  if (mv != c.config->end() && !mv->is_null() && bins > 1) {
    --hash_bins;
    Tensor value = x.dtype == kString ? Tensor::Scalar<std::string>(mv->get<std::string>())
                                      : Tensor::Scalar<int64_t>(JsonInt(*mv));
    std::string v = emit.Const(c.scope + "/mask_value", value);
    if (x.dtype != kString) v = Cast(emit, c.scope + "/mask_value_cast", v, kInt64, x.dtype);
    mask = Compare(emit, "Equal", c.scope + "/is_mask", x.tensor, v, x.dtype);
  }
  std::string s = x.tensor;
  if (x.dtype != kString) {
    NodeDef* n = emit.Add("AsString", c.scope + "/AsString", {x.tensor});
    SetNodeAttr(n, "T", x.dtype);
    SetNodeAttr(n, "precision", -1);
    SetNodeAttr(n, "scientific", false);
    SetNodeAttr(n, "shortest", false);
    SetNodeAttr(n, "width", -1);
    SetNodeAttr(n, "fill", "");
    s = n->name();
  }
  NodeDef* hash;
  auto salt = c.config->find("salt");
  if (salt == c.config->end() || salt->is_null()) {
    hash = emit.Add("StringToHashBucketFast", c.scope + "/hash", {s});
  } else {
    std::vector<int64_t> key;
    if (salt->is_array()) {
      for (const Json& k : *salt) key.push_back(JsonInt(k));
    } else {
      key = {JsonInt(*salt), JsonInt(*salt)};
    }
    if (key.size() != 2) {
      return InvalidArgument("layer '", c.name, "' (", c.class_name,
                             "): salt must be an integer or two");
    }
    hash = emit.Add("StringToHashBucketStrong", c.scope + "/hash", {s});
    SetNodeAttr(hash, "key", key);
  }
  SetNodeAttr(hash, "num_buckets", hash_bins);
  std::string ids = hash->name();
  if (!mask.empty()) {
    ids = emit.Binary("AddV2", c.scope + "/shift", ids,
                      emit.Const(c.scope + "/one", Tensor::Scalar<int64_t>(1)), kInt64);
    ids = SelectV2(emit, c.scope + "/masked", mask,
                   emit.Const(c.scope + "/zero", Tensor::Scalar<int64_t>(0)), ids, kInt64);
  }
  GRT_ASSIGN_OR_RETURN(
      Value y, EncodeCategorical(c, Value{ids, x.shape, kInt64}, mode, bins,
                                 ConfigDtype(c, mode == "int" ? "int64" : "float32"), nullptr));
  out->push_back(y);
  return Status::OK();
}

Status DiscretizationLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_RETURN_IF_ERROR(RefuseSparse(c));
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  auto it = c.config->find("bin_boundaries");
  std::vector<float> bounds;
  if (it != c.config->end() && it->is_array()) {
    for (const Json& b : *it) bounds.push_back(b.get<float>());
  } else {
    GRT_ASSIGN_OR_RETURN(bounds, AdaptedBoundaries(c));
  }
  if (!std::is_sorted(bounds.begin(), bounds.end())) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): bin_boundaries are not sorted");
  }
  const std::string mode = Get<std::string>(*c.config, "output_mode", "int");
  DataType t = x.dtype;
  std::string in = x.tensor;
  if (t != kFloat && t != ::tensorflow::DT_DOUBLE && t != kInt32 && t != kInt64) {
    in = Cast(emit, c.scope + "/Cast", in, t, kFloat);
    t = kFloat;
  }
  NodeDef* n = emit.Add("Bucketize", c.scope + "/Bucketize", {in});
  SetNodeAttr(n, "T", t);
  auto* list = (*n->mutable_attr())["boundaries"].mutable_list();
  for (float b : bounds) list->add_f(b);
  GRT_ASSIGN_OR_RETURN(
      Value y, EncodeCategorical(c, Value{n->name(), x.shape, kInt32}, mode,
                                 static_cast<int64_t>(bounds.size()) + 1,
                                 ConfigDtype(c, mode == "int" ? "int64" : "float32"), nullptr));
  out->push_back(y);
  return Status::OK();
}

Status LookupLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_RETURN_IF_ERROR(RefuseSparse(c));
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  const bool strings = c.class_name == "StringLookup";
  const std::string mode = Get<std::string>(*c.config, "output_mode", "int");
  const bool int_output = mode == "int";
  Json mask = Json();
  Json oov = strings ? Json("[UNK]") : Json(-1);
  if (auto it = c.config->find("mask_token"); it != c.config->end()) mask = *it;
  if (auto it = c.config->find("oov_token"); it != c.config->end() && !it->is_null()) oov = *it;
  if (!strings && !mask.is_null()) mask = JsonInt(mask);
  if (!strings) oov = JsonInt(oov);
  if ((!mask.is_null() && mask.is_string() != strings) || oov.is_string() != strings) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): mask_token or oov_token of the wrong type");
  }
  if (strings) {
    std::string encoding = Get<std::string>(*c.config, "encoding", "utf-8");
    if (encoding != "utf-8" && encoding != "UTF-8") {
      return Unimplemented("layer '", c.name, "' (", c.class_name, "): encoding '", encoding, "'");
    }
  }
  GRT_ASSIGN_OR_RETURN(Vocabulary v,
                       ReadVocabulary(c, strings, mask, oov,
                                      Get<int64_t>(*c.config, "num_oov_indices", 1), int_output));
  const DataType out_type = ConfigDtype(c, int_output ? "int64" : "float32");
  if (Get<bool>(*c.config, "invert", false)) {
    if (!int_output) {
      return InvalidArgument("layer '", c.name, "' (", c.class_name, "): invert with output_mode '",
                             mode, "'");
    }
    // table[i]: the token of index i; OOV indices, out-of-range ones (mapped to the last entry)
    // and, without a mask token, index 0 give oov_token.
    std::vector<Json> table(v.token_start, oov);
    table.insert(table.end(), v.tokens.begin(), v.tokens.end());
    table.push_back(oov);
    if (!mask.is_null()) table[0] = mask;
    const int64_t end = v.size();
    std::string ids = Cast(emit, c.scope + "/ids", x.tensor, x.dtype, kInt64);
    std::string ok =
        emit.Add("LogicalAnd", c.scope + "/in_range",
                 {Compare(emit, "GreaterEqual", c.scope + "/ge0", ids,
                          emit.Const(c.scope + "/zero", Tensor::Scalar<int64_t>(0)), kInt64),
                  Compare(emit, "Less", c.scope + "/lt_end", ids,
                          emit.Const(c.scope + "/end", Tensor::Scalar<int64_t>(end)), kInt64)})
            ->name();
    ids = SelectV2(emit, c.scope + "/safe", ok, ids,
                   emit.Const(c.scope + "/oov_index", Tensor::Scalar<int64_t>(end)), kInt64);
    NodeDef* g = emit.Add("GatherV2", c.scope + "/Gather",
                          {emit.Const(c.scope + "/table", TokenTensor(v, table)), ids,
                           emit.Int(c.scope + "/axis", 0)});
    const DataType token_type = strings ? kString : kInt64;
    SetNodeAttr(g, "Tparams", token_type);
    SetNodeAttr(g, "Tindices", kInt64);
    SetNodeAttr(g, "Taxis", kInt32);
    SetNodeAttr(g, "batch_dims", 0);
    out->push_back(Value{g->name(), x.shape, token_type});
    return Status::OK();
  }
  std::string keys = x.tensor;
  if (strings && x.dtype != kString) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): inputs of dtype ",
                           DataTypeString(x.dtype), ", not strings");
  }
  if (!strings) keys = Cast(emit, c.scope + "/keys", keys, x.dtype, kInt64);
  std::string idx = LookupIndices(c, v, keys, int_output);
  GRT_ASSIGN_OR_RETURN(int64_t depth, LookupDepth(c, v));
  Tensor idf;
  if (mode == "tf_idf") {
    GRT_ASSIGN_OR_RETURN(idf,
                         IdfWeights(c, v, depth, Get<bool>(*c.config, "pad_to_max_tokens", false)));
  }
  GRT_ASSIGN_OR_RETURN(
      Value y, EncodeCategorical(c, Value{idx, x.shape, kInt64}, mode, depth, out_type, &idf));
  out->push_back(y);
  return Status::OK();
}

// TextVectorization: standardize, split into a ragged batch of tokens (StringSplitV2's sparse
// result as row splits), n-grams, StringLookup with mask "" and OOV "[UNK]", then either a dense
// [batch, length] of ids (RaggedTensorToTensor pads with 0 and truncates) or per-row counts
// (RaggedBincount).
Status TextVectorizationLayer(LayerCall& c, std::vector<Value>* out) {
  GRT_RETURN_IF_ERROR(RefuseSparse(c));
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  if (x.dtype != kString) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): inputs of dtype ",
                           DataTypeString(x.dtype), ", not strings");
  }
  if (Get<bool>(*c.config, "ragged", false)) {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): ragged=True outputs");
  }
  const std::string standardize = Get<std::string>(*c.config, "standardize", "");
  const std::string split = Get<std::string>(*c.config, "split", "");
  const std::string mode = Get<std::string>(*c.config, "output_mode", "int");
  const bool int_output = mode == "int";
  std::string s = x.tensor;
  if (standardize == "lower" || standardize == "lower_and_strip_punctuation") {
    NodeDef* n = emit.Add("StringLower", c.scope + "/lower", {s});
    SetNodeAttr(n, "encoding", "");
    s = n->name();
  }
  if (standardize == "strip_punctuation" || standardize == "lower_and_strip_punctuation") {
    NodeDef* n = emit.Add("StaticRegexReplace", c.scope + "/strip_punctuation", {s});
    SetNodeAttr(n, "pattern", R"([!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\'])");
    SetNodeAttr(n, "rewrite", "");
    SetNodeAttr(n, "replace_global", true);
    s = n->name();
  } else if (!standardize.empty() && standardize != "lower") {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): standardize '", standardize,
                         "'");
  }
  Json mask = "";
  Json oov = "[UNK]";
  GRT_ASSIGN_OR_RETURN(Vocabulary v, ReadVocabulary(c, true, mask, oov, 1, int_output));
  GRT_ASSIGN_OR_RETURN(int64_t depth, LookupDepth(c, v));
  Tensor idf;
  if (mode == "tf_idf") {
    GRT_ASSIGN_OR_RETURN(idf,
                         IdfWeights(c, v, depth, Get<bool>(*c.config, "pad_to_max_tokens", false)));
  } else if (!int_output && mode != "multi_hot" && mode != "count") {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): unknown output_mode '", mode,
                           "'");
  }
  const int64_t length = Get<int64_t>(*c.config, "output_sequence_length", -1);
  if (length < -1 || length > kMaxTokens) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name, "): output_sequence_length ",
                           length);
  }
  if (split.empty()) {
    if (c.config->contains("ngrams") && !(*c.config)["ngrams"].is_null()) {
      return Unimplemented("layer '", c.name, "' (", c.class_name, "): ngrams without a split");
    }
    Value ids{LookupIndices(c, v, s, int_output), x.shape, kInt64};
    if (int_output && length >= 0) {
      if (x.rank() != 2 || x.shape[1] < 0) {
        return Unimplemented("layer '", c.name, "' (", c.class_name,
                             "): output_sequence_length on an input of shape ",
                             ShapeString(x.shape));
      }
      const int64_t d = x.shape[1];
      NodeDef* n;
      if (d >= length) {
        n = emit.Add("Slice", c.scope + "/truncate",
                     {ids.tensor, emit.Ints(c.scope + "/truncate/begin", {0, 0}),
                      emit.Ints(c.scope + "/truncate/size", {-1, static_cast<int32_t>(length)})});
        SetNodeAttr(n, "Index", kInt32);
      } else {
        Tensor pads(kInt32, TensorShape({2, 2}));
        int32_t* p = pads.data<int32_t>();
        p[0] = p[1] = p[2] = 0;
        p[3] = static_cast<int32_t>(length - d);
        n = emit.Add("Pad", c.scope + "/pad",
                     {ids.tensor, emit.Const(c.scope + "/paddings", pads)});
        SetNodeAttr(n, "Tpaddings", kInt32);
      }
      SetNodeAttr(n, "T", kInt64);
      out->push_back(Value{n->name(), {x.shape[0], length}, kInt64});
      return Status::OK();
    }
    GRT_ASSIGN_OR_RETURN(
        Value y, EncodeCategorical(c, ids, mode, depth, int_output ? kInt64 : kFloat, &idf));
    out->push_back(y);
    return Status::OK();
  }
  if (split != "whitespace" && split != "character") {
    return Unimplemented("layer '", c.name, "' (", c.class_name, "): split '", split,
                         "' (graphrt splits on whitespace or characters)");
  }
  if (x.rank() == 2) {
    if (x.shape[1] != 1) {
      return InvalidArgument("layer '", c.name, "' (", c.class_name,
                             "): splitting takes inputs of shape [batch, 1], got ",
                             ShapeString(x.shape));
    }
    s = emit.Squeeze(c.scope + "/squeeze", s, {1}, kString);
  } else if (x.rank() != 1) {
    return InvalidArgument("layer '", c.name, "' (", c.class_name,
                           "): splitting takes inputs of shape [batch, 1], got ",
                           ShapeString(x.shape));
  }
  std::string tokens, splits;
  if (split == "whitespace") {
    WhitespaceSplit(emit, c.scope, s, &tokens, &splits);
  } else {
    CharacterSplit(emit, c.scope, s, &tokens, &splits);
  }
  auto ng = c.config->find("ngrams");
  if (ng != c.config->end() && !ng->is_null()) {
    std::vector<int64_t> widths;
    if (ng->is_array()) {
      for (const Json& w : *ng) widths.push_back(JsonInt(w));
    } else {
      const int64_t n = JsonInt(*ng);
      if (n < 1 || n > kMaxNgram) {
        return InvalidArgument("layer '", c.name, "' (", c.class_name, "): ngrams ", n);
      }
      for (int64_t w = 1; w <= n; ++w) widths.push_back(w);
    }
    for (int64_t w : widths) {
      if (w < 1 || w > kMaxNgram) {
        return InvalidArgument("layer '", c.name, "' (", c.class_name, "): ngrams width ", w);
      }
    }
    NodeDef* n = emit.Add("StringNGrams", c.scope + "/ngrams", {tokens, splits});
    SetNodeAttr(n, "separator", " ");
    SetNodeAttr(n, "ngram_widths", widths);
    SetNodeAttr(n, "left_pad", "");
    SetNodeAttr(n, "right_pad", "");
    SetNodeAttr(n, "pad_width", int64_t{0});
    SetNodeAttr(n, "preserve_short_sequences", false);
    SetNodeAttr(n, "Tsplits", kInt64);
    tokens = n->name() + ":0";
    splits = n->name() + ":1";
  }
  std::string ids = LookupIndices(c, v, tokens, int_output);
  const int64_t batch = x.shape.empty() ? -1 : x.shape[0];
  if (int_output) {
    NodeDef* n = emit.Add("RaggedTensorToTensor", c.scope + "/to_tensor",
                          {emit.Const(c.scope + "/shape", Tensor::Vector<int64_t>({-1, length})),
                           ids, emit.Const(c.scope + "/pad", Tensor::Scalar<int64_t>(0)), splits});
    SetNodeAttr(n, "T", kInt64);
    SetNodeAttr(n, "Tindex", kInt64);
    SetNodeAttr(n, "Tshape", kInt64);
    SetNodeAttr(n, "num_row_partition_tensors", int64_t{1});
    (*n->mutable_attr())["row_partition_types"].mutable_list()->add_s("ROW_SPLITS");
    out->push_back(Value{n->name(), {batch, length}, kInt64});
    return Status::OK();
  }
  NodeDef* n = emit.Add("RaggedBincount", c.scope + "/bincount",
                        {splits, ids, emit.Const(c.scope + "/size", Tensor::Scalar<int64_t>(depth)),
                         emit.Const(c.scope + "/weights", Tensor(kFloat, TensorShape({0})))});
  SetNodeAttr(n, "Tidx", kInt64);
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "binary_output", mode == "multi_hot");
  std::string y = n->name();
  if (mode == "tf_idf") {
    y = emit.Binary("Mul", c.scope + "/tf_idf", y, emit.Const(c.scope + "/idf_weights", idf));
  }
  out->push_back(Value{y, {batch, depth}, kFloat});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
