// Stock layers outside the other families: LocallyConnected1D/2D (unshared convolutions, in the
// three weight layouts of tf-keras's `implementation`), SpectralNormalization,
// RandomFourierFeatures, and the feature-column layers graphrt refuses by name.
#include <algorithm>
#include <numeric>

#include "formats/keras/keras_builder_internal.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

// The geometry of an unshared convolution over `n` spatial axes (channels last), as tf-keras's
// conv_utils computes it: output position o along axis d reads the inputs [start, end) with
// left = k/2, center = o*s (+ left for "valid"), start = max(0, center - left),
// end = min(in, center + k - left).
struct LocalGeometry {
  Shape in, kernel, strides, out;  // spatial only
  int64_t channels = 0, filters = 0;
  bool same = false;

  int64_t Start(int d, int64_t o) const {
    int64_t left = kernel[d] / 2;
    int64_t center = o * strides[d] + (same ? 0 : left);
    return std::max<int64_t>(0, center - left);
  }
  int64_t End(int d, int64_t o) const {
    int64_t left = kernel[d] / 2;
    int64_t center = o * strides[d] + (same ? 0 : left);
    return std::min<int64_t>(in[d], center + kernel[d] - left);
  }
  int64_t InSize() const { return Product(in) * channels; }
  int64_t OutSize() const { return Product(out) * filters; }
  static int64_t Product(const Shape& s) {
    return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<int64_t>());
  }
  // Every spatial position of `dims`, row-major.
  static std::vector<Shape> Positions(const Shape& dims) {
    std::vector<Shape> all(1, Shape{});
    for (int64_t size : dims) {
      std::vector<Shape> next;
      for (const Shape& p : all) {
        for (int64_t i = 0; i < size; ++i) {
          next.push_back(p);
          next.back().push_back(i);
        }
      }
      all = std::move(next);
    }
    return all;
  }
  // The input positions output position `o` reads, row-major.
  std::vector<Shape> Connected(const Shape& o) const {
    Shape sizes;
    for (size_t d = 0; d < o.size(); ++d) {
      sizes.push_back(std::max<int64_t>(0, End(d, o[d]) - Start(d, o[d])));
    }
    std::vector<Shape> rel = Positions(sizes);
    for (Shape& p : rel) {
      for (size_t d = 0; d < o.size(); ++d) p[d] += Start(d, o[d]);
    }
    return rel;
  }
  int64_t Flat(const Shape& pos, const Shape& dims, int64_t inner, int64_t ch) const {
    int64_t i = 0;
    for (size_t d = 0; d < pos.size(); ++d) i = i * dims[d] + pos[d];
    return i * inner + ch;
  }
};

// `x` [B, in..., C] flattened to [B, in_size] times a dense [in_size, out_size] matrix, shaped
// [B, out..., F].
std::string DenseLocal(Emitter& emit, const std::string& p, const std::string& x,
                       const std::string& matrix, const LocalGeometry& g) {
  std::string flat = emit.Reshape(
      p + "/flatten", x, emit.Ints(p + "/flat_shape", {-1, static_cast<int32_t>(g.InSize())}));
  std::string y = emit.MatMul(p + "/MatMul", flat, matrix);
  std::vector<int32_t> shape = {-1};
  for (int64_t d : g.out) shape.push_back(static_cast<int32_t>(d));
  shape.push_back(static_cast<int32_t>(g.filters));
  return emit.Reshape(p + "/Reshape", y, emit.Ints(p + "/out_shape", shape));
}

// Sizes from 0 to 2^31-1 (int32 shapes and indices).
bool FitsInt32(int64_t v) { return v >= 0 && v <= int64_t{0x7fffffff}; }

// `v` as float, reshaped to [batch, elems].
std::string FlatFloat(LayerCall& c, const std::string& p, const Value& v, int64_t elems) {
  return c.emit->Reshape(p + "/Reshape", ToFloat(*c.emit, p, v),
                         c.emit->Ints(p + "/shape", {-1, static_cast<int32_t>(elems)}));
}

}  // namespace

Status LocallyConnected(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  const int n = c.class_name == "LocallyConnected1D" ? 1 : 2;
  if (x.rank() != n + 2) return InvalidArgument("input of rank ", x.rank(), ", expected ", n + 2);
  std::string data_format = Get<std::string>(cfg, "data_format", "channels_last");
  if (data_format != "channels_last") {
    return Unimplemented("data_format '", data_format, "' (graphrt runs channels_last only)");
  }
  int64_t impl = Get<int64_t>(cfg, "implementation", 1);
  if (impl < 1 || impl > 3) {
    return InvalidArgument("implementation ", impl, " (tf-keras has 1, 2 and 3)");
  }
  std::string padding = Get<std::string>(cfg, "padding", "valid");
  std::transform(padding.begin(), padding.end(), padding.begin(), ::tolower);
  if (padding != "valid" && padding != "same") {
    return InvalidArgument("padding '", padding, "'");
  }
  LocalGeometry g;
  g.kernel = GetWindow(cfg, "kernel_size", n, 1);
  g.strides = GetWindow(cfg, "strides", n, 1);
  g.same = padding == "same";
  if (impl == 1 && g.same) {
    return InvalidArgument("padding 'same' with implementation 1 (tf-keras allows 'valid' only)");
  }
  for (int d = 0; d <= n; ++d) {
    if (x.shape[1 + d] <= 0) {
      return InvalidArgument("input of unknown or empty size ", ShapeString(x.shape));
    }
  }
  g.in.assign(x.shape.begin() + 1, x.shape.end() - 1);
  g.channels = x.shape.back();
  for (int d = 0; d < n; ++d) {
    if (!g.same && g.in[d] < g.kernel[d]) {
      return InvalidArgument("kernel larger than the input ", ShapeString(x.shape));
    }
    int64_t o = ConvOut(g.in[d], g.kernel[d], g.strides[d], 1, padding);
    if (o <= 0) return InvalidArgument("kernel larger than the input ", ShapeString(x.shape));
    g.out.push_back(o);
  }
  g.filters = Get<int64_t>(cfg, "filters", -1);
  const int64_t kernel_elems = LocalGeometry::Product(g.kernel) * g.channels;
  if (g.filters <= 0 || !FitsInt32(g.InSize()) || !FitsInt32(LocalGeometry::Product(g.out)) ||
      !FitsInt32(kernel_elems) || !FitsInt32(g.OutSize())) {
    return InvalidArgument("filters ", g.filters, " on an input ", ShapeString(x.shape));
  }
  const std::string p = c.scope + "/local_conv";
  const std::vector<Shape> outs = LocalGeometry::Positions(g.out);
  std::string y;
  if (impl == 1) {
    // kernel [P, k... * C, F]: per output position p, the window flattened (row-major, channels
    // last) times its own matrix; as a batched matmul over positions.
    const int64_t positions = static_cast<int64_t>(outs.size());
    GRT_ASSIGN_OR_RETURN(Tensor kernel,
                         c.weights->Next("kernel", {positions, kernel_elems, g.filters}));
    if (!FitsInt32(positions * kernel_elems)) return InvalidArgument("too many windows");
    std::vector<int32_t> idx;
    idx.reserve(positions * kernel_elems);
    for (const Shape& o : outs) {
      for (const Shape& i : g.Connected(o)) {
        for (int64_t ch = 0; ch < g.channels; ++ch) {
          idx.push_back(static_cast<int32_t>(g.Flat(i, g.in, g.channels, ch)));
        }
      }
    }
    std::string flat =
        emit.Reshape(p + "/flatten", x.tensor,
                     emit.Ints(p + "/flat_shape", {-1, static_cast<int32_t>(g.InSize())}));
    NodeDef* gather =
        emit.Add("GatherV2", p + "/windows",
                 {flat, emit.Ints(p + "/window_indices", idx), emit.Int(p + "/axis", 1)});
    SetNodeAttr(gather, "Tparams", kFloat);
    SetNodeAttr(gather, "Tindices", kInt32);
    SetNodeAttr(gather, "Taxis", kInt32);
    SetNodeAttr(gather, "batch_dims", 0);
    std::string windows = emit.Reshape(
        p + "/windows_3d", gather->name(),
        emit.Ints(p + "/windows_shape",
                  {-1, static_cast<int32_t>(positions), static_cast<int32_t>(kernel_elems)}));
    windows = emit.Transpose(p + "/by_position", windows, {1, 0, 2});
    NodeDef* mm = emit.Add("BatchMatMulV2", p + "/MatMul",
                           {windows, emit.Weight(c.scope + "/kernel", kernel)});
    SetNodeAttr(mm, "T", kFloat);
    SetNodeAttr(mm, "adj_x", false);
    SetNodeAttr(mm, "adj_y", false);
    y = emit.Transpose(p + "/by_batch", mm->name(), {1, 0, 2});
    std::vector<int32_t> shape = {-1};
    for (int64_t d : g.out) shape.push_back(static_cast<int32_t>(d));
    shape.push_back(static_cast<int32_t>(g.filters));
    y = emit.Reshape(p + "/Reshape", y, emit.Ints(p + "/out_shape", shape));
  } else if (impl == 2) {
    // kernel [in..., C, out..., F], a dense matrix masked to the windows (mask [in..., 1,
    // out..., 1]).
    Shape kshape = g.in;
    kshape.push_back(g.channels);
    kshape.insert(kshape.end(), g.out.begin(), g.out.end());
    kshape.push_back(g.filters);
    GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next("kernel", kshape));
    Shape mshape = g.in;
    mshape.push_back(1);
    mshape.insert(mshape.end(), g.out.begin(), g.out.end());
    mshape.push_back(1);
    const int64_t in_pos = LocalGeometry::Product(g.in);
    const int64_t out_pos = LocalGeometry::Product(g.out);
    Tensor mask(kFloat, TensorShape(mshape));
    std::fill(mask.data<float>(), mask.data<float>() + in_pos * out_pos, 0.0f);
    for (int64_t oi = 0; oi < out_pos; ++oi) {
      for (const Shape& i : g.Connected(outs[oi])) {
        mask.data<float>()[g.Flat(i, g.in, 1, 0) * out_pos + oi] = 1.0f;
      }
    }
    std::string masked =
        emit.Binary("Mul", p + "/masked_kernel", emit.Weight(c.scope + "/kernel", kernel),
                    emit.Const(p + "/kernel_mask", mask));
    std::string matrix = emit.Reshape(
        p + "/kernel_2d", masked,
        emit.Ints(p + "/kernel_2d_shape",
                  {static_cast<int32_t>(g.InSize()), static_cast<int32_t>(g.OutSize())}));
    y = DenseLocal(emit, p, x.tensor, matrix, g);
  } else {
    // kernel: the nonzero entries of the [out_size, in_size] matrix, in the order of the sorted
    // (output index, input index) pairs.
    std::vector<std::pair<int64_t, int64_t>> pairs;
    int64_t count = 0;
    for (const Shape& o : outs) {
      count += static_cast<int64_t>(g.Connected(o).size()) * g.channels * g.filters;
    }
    if (!FitsInt32(2 * count)) return InvalidArgument("too many connections");
    GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next("kernel", {count}));
    pairs.reserve(count);
    for (const Shape& o : outs) {
      for (const Shape& i : g.Connected(o)) {
        for (int64_t ci = 0; ci < g.channels; ++ci) {
          for (int64_t co = 0; co < g.filters; ++co) {
            pairs.emplace_back(g.Flat(o, g.out, g.filters, co), g.Flat(i, g.in, g.channels, ci));
          }
        }
      }
    }
    std::sort(pairs.begin(), pairs.end());
    Tensor indices(kInt32, TensorShape({count, 2}));
    for (int64_t j = 0; j < count; ++j) {
      indices.data<int32_t>()[2 * j] = static_cast<int32_t>(pairs[j].second);
      indices.data<int32_t>()[2 * j + 1] = static_cast<int32_t>(pairs[j].first);
    }
    NodeDef* scatter = emit.Add(
        "ScatterNd", p + "/dense_kernel",
        {emit.Const(p + "/kernel_indices", indices), emit.Weight(c.scope + "/kernel", kernel),
         emit.Ints(p + "/dense_shape",
                   {static_cast<int32_t>(g.InSize()), static_cast<int32_t>(g.OutSize())})});
    SetNodeAttr(scatter, "T", kFloat);
    SetNodeAttr(scatter, "Tindices", kInt32);
    y = DenseLocal(emit, p, x.tensor, scatter->name(), g);
  }
  Shape out_shape = {x.shape[0]};
  out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
  out_shape.push_back(g.filters);
  if (Get<bool>(cfg, "use_bias", true)) {
    Shape bshape(g.out);
    bshape.push_back(g.filters);
    GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", bshape));
    y = emit.Binary("AddV2", c.scope + "/add_bias", y, emit.Weight(c.scope + "/bias", bias));
  }
  GRT_ASSIGN_OR_RETURN(
      y, Activate(emit, c.scope, ActivationName(cfg, "activation", "linear"), y, c.name));
  out->push_back(Value{y, out_shape});
  return Status::OK();
}

// At inference tf-keras's SpectralNormalization calls the wrapped layer with its stored kernel
// (training divides the kernel by its spectral norm and stores the result); vector_u, the power
// iteration's state, is unused.
Status SpectralNormalization(LayerCall& c, std::vector<Value>* out) {
  GRT_ASSIGN_OR_RETURN(const Json* inner, Member(*c.config, "layer", c.name));
  GRT_RETURN_IF_ERROR(
      c.walker->CallLayer(*inner, c.scope + "/", c.inputs, c.kwargs, c.weights, out));
  GRT_ASSIGN_OR_RETURN(Tensor u, c.weights->Next("vector_u", {1, -1}));
  (void)u;
  return Status::OK();
}

// tf-keras: cos(x @ (unscaled_kernel / kernel_scale) + bias).
Status RandomFourierFeatures(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  if (x.rank() != 2) return InvalidArgument("input of rank ", x.rank(), ", expected 2");
  int64_t units = Get<int64_t>(*c.config, "output_dim", -1);
  GRT_ASSIGN_OR_RETURN(Tensor scale, c.weights->Next("kernel_scale", {1}));
  GRT_ASSIGN_OR_RETURN(Tensor kernel, c.weights->Next("unscaled_kernel", {x.shape[1], units}));
  units = kernel.dim_size(1);
  GRT_ASSIGN_OR_RETURN(Tensor bias, c.weights->Next("bias", {units}));
  const std::string& p = c.scope;
  std::string inv = emit.Binary("RealDiv", p + "/truediv", emit.Float(p + "/one", 1.0f),
                                emit.Weight(p + "/kernel_scale", scale));
  std::string k = emit.Binary("Mul", p + "/mul", inv, emit.Weight(p + "/unscaled_kernel", kernel));
  std::string y = emit.MatMul(p + "/MatMul", ToFloat(emit, p, x), k);
  y = emit.BiasAdd(p + "/BiasAdd", y, emit.Weight(p + "/bias", bias));
  out->push_back(Value{emit.Unary("Cos", p + "/Cos", y), {x.shape[0], units}});
  return Status::OK();
}

// tf-keras: tf.sparse.cross_hashed of the inputs (each a batch of scalars, [B] or [B, 1]) to
// a dense [B, 1] (or [B]) of bins, then the output mode: "int" (cast to the layer's dtype) or
// "one_hot" (a binary bincount to [B, num_bins] floats).
Status HashedCrossing(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  constexpr DataType kInt64 = ::tensorflow::DT_INT64;
  constexpr DataType kString = ::tensorflow::DT_STRING;
  if (c.inputs.size() < 2) return InvalidArgument("HashedCrossing of ", c.inputs.size(), " input");
  int64_t bins = Get<int64_t>(cfg, "num_bins", -1);
  if (bins <= 0) return InvalidArgument("num_bins ", bins);
  std::string mode = Get<std::string>(cfg, "output_mode", "int");
  if (mode != "int" && mode != "one_hot") return InvalidArgument("output_mode '", mode, "'");
  if (Get<bool>(cfg, "sparse", false)) return Unimplemented("sparse outputs");
  const int rank = c.inputs[0].rank();
  std::vector<std::string> dense;
  std::vector<DataType> types;
  // As tf.sparse.cross_hashed: the internal type is int64 when any input holds integers.
  bool all_strings = true;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Value& v = c.inputs[i];
    if (v.rank() != rank || rank < 1 || rank > 2 || (rank == 2 && v.shape[1] != 1)) {
      return InvalidArgument("inputs must all be [batch] or [batch, 1], got ",
                             ShapeString(v.shape));
    }
    std::string t = v.tensor;
    DataType type = v.dtype;
    if (type == kInt32) {
      NodeDef* cast = emit.Add("Cast", c.scope + StrCat("/Cast_", i), {t});
      SetNodeAttr(cast, "SrcT", kInt32);
      SetNodeAttr(cast, "DstT", kInt64);
      SetNodeAttr(cast, "Truncate", false);
      t = cast->name();
      type = kInt64;
    } else if (type != kInt64 && type != kString) {
      return InvalidArgument("input ", i, " is not of integers or strings");
    }
    all_strings = all_strings && type == kString;
    if (rank == 1) {
      NodeDef* e = emit.Add("ExpandDims", c.scope + StrCat("/ExpandDims_", i),
                            {t, emit.Int(c.scope + StrCat("/ExpandDims_", i, "/dim"), -1)});
      SetNodeAttr(e, "T", type);
      SetNodeAttr(e, "Tdim", kInt32);
      t = e->name();
    }
    dense.push_back(t);
    types.push_back(type);
  }
  const std::string p = c.scope + "/SparseCross";
  NodeDef* cross = emit.Add("SparseCross", p, dense);
  SetNodeAttr(cross, "N", 0);
  SetNodeAttr(cross, "hashed_output", true);
  SetNodeAttr(cross, "num_buckets", bins);
  SetNodeAttr(cross, "hash_key", int64_t{0xDECAFCAFFE});  // tf.sparse's default
  SetNodeAttr(cross, "sparse_types", std::vector<DataType>{});
  SetNodeAttr(cross, "dense_types", types);
  SetNodeAttr(cross, "out_type", kInt64);
  SetNodeAttr(cross, "internal_type", all_strings ? kString : kInt64);
  NodeDef* zero = emit.Add("Const", p + "/default", {});
  SetNodeAttr(zero, "dtype", kInt64);
  SetNodeAttr(zero, "value", Tensor::Scalar<int64_t>(0));
  NodeDef* to_dense = emit.Add("SparseToDense", c.scope + "/SparseToDense",
                               {p + ":0", p + ":2", p + ":1", zero->name()});
  SetNodeAttr(to_dense, "T", kInt64);
  SetNodeAttr(to_dense, "Tindices", kInt64);
  SetNodeAttr(to_dense, "validate_indices", true);
  // one_hot counts each row's bin: [B, 1] whatever the inputs' rank.
  std::vector<int32_t> shape =
      rank == 2 || mode == "one_hot" ? std::vector<int32_t>{-1, 1} : std::vector<int32_t>{-1};
  std::string y = emit.Reshape(c.scope + "/Reshape", to_dense->name(),
                               emit.Ints(c.scope + "/shape", shape), kInt64);
  const int64_t batch = c.inputs[0].shape[0];
  if (mode == "one_hot") {
    NodeDef* size = emit.Add("Const", c.scope + "/bincount/size", {});
    SetNodeAttr(size, "dtype", kInt64);
    SetNodeAttr(size, "value", Tensor::Scalar<int64_t>(bins));
    NodeDef* bc =
        emit.Add("DenseBincount", c.scope + "/bincount",
                 {y, size->name(),
                  emit.Const(c.scope + "/bincount/weights", Tensor(kFloat, TensorShape({0})))});
    SetNodeAttr(bc, "Tidx", kInt64);
    SetNodeAttr(bc, "T", kFloat);
    SetNodeAttr(bc, "binary_output", true);
    out->push_back(Value{bc->name(), {batch, bins}, kFloat});
    return Status::OK();
  }
  Shape out_shape = rank == 2 ? Shape{batch, 1} : Shape{batch};
  if (Get<std::string>(cfg, "dtype", "int64") == "int32") {
    NodeDef* cast = emit.Add("Cast", c.scope + "/Cast", {y});
    SetNodeAttr(cast, "SrcT", kInt64);
    SetNodeAttr(cast, "DstT", kInt32);
    SetNodeAttr(cast, "Truncate", false);
    out->push_back(Value{cast->name(), out_shape, kInt32});
    return Status::OK();
  }
  out->push_back(Value{emit.Identity(c.scope + "/Identity", y, kInt64), out_shape, kInt64});
  return Status::OK();
}

// DenseFeatures of numeric columns only: each feature cast to float and flattened to
// [batch, prod(shape)], concatenated in the order of the columns' names. The walker hands a dict
// of inputs over in the order of its keys, which for numeric columns are the columns' names.
Status FeatureColumnLayer(LayerCall& c, std::vector<Value>* out) {
  auto refuse = [&](const std::string& why) {
    return Unimplemented(c.class_name, " of ", why,
                         " (graphrt runs DenseFeatures of numeric columns only; rebuild the model "
                         "with Input layers and Keras preprocessing layers)");
  };
  if (c.class_name != "DenseFeatures") return refuse("sequence feature columns");
  GRT_ASSIGN_OR_RETURN(const Json* columns, Member(*c.config, "feature_columns", c.name));
  if (!columns->is_array() || columns->empty()) return refuse("no feature columns");
  std::vector<std::pair<std::string, int64_t>> numeric;  // key, elements per example
  for (const Json& col : *columns) {
    std::string cls = Get<std::string>(col, "class_name", "");
    if (cls != "NumericColumn") return refuse(StrCat("a ", cls, " column"));
    GRT_ASSIGN_OR_RETURN(const Json* cfg, Member(col, "config", c.name));
    if (cfg->contains("normalizer_fn") && !(*cfg)["normalizer_fn"].is_null()) {
      return refuse("a numeric column with a normalizer_fn");
    }
    int64_t elems = 1;
    for (int64_t d : GetWindow(*cfg, "shape", 0, 1)) elems *= d;
    numeric.emplace_back(Get<std::string>(*cfg, "key", ""), elems);
  }
  std::sort(numeric.begin(), numeric.end());
  if (numeric.size() != c.inputs.size()) {
    return refuse(StrCat(numeric.size(), " columns fed ", c.inputs.size(), " features"));
  }
  std::vector<std::string> parts;
  int64_t total = 0;
  for (size_t i = 0; i < numeric.size(); ++i) {
    const Value& v = c.inputs[i];
    const int64_t elems = numeric[i].second;
    int64_t have = 1;
    for (int d = 1; d < v.rank(); ++d) have = v.shape[d] < 0 || have < 0 ? -1 : have * v.shape[d];
    if (have >= 0 && have != elems) {
      return InvalidArgument("feature '", numeric[i].first, "' of shape ", ShapeString(v.shape),
                             " for a numeric column of ", elems, " values");
    }
    const std::string p = c.scope + "/" + numeric[i].first;
    parts.push_back(FlatFloat(c, p, v, elems));
    total += elems;
  }
  out->push_back(
      Value{c.emit->Concat(c.scope + "/concat", parts, 1), {c.inputs[0].shape[0], total}});
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
