// Shape and array ops: Reshape and its kin, shape queries, Fill/Range, and the data-movement
// ops (Pack, Concat, Split, Slice, StridedSlice, Transpose, Pad, Tile, Gather, Reverse, OneHot).
// Declarations match TensorFlow's OpDefs: input, output and attr order, types and defaults.
#include <algorithm>

#include "runtime/ops/op_registry.h"

namespace graphrt {

namespace {

// The integer values of a constant input (int32 or int64), or false when unknown.
bool ConstIntValues(const InferenceContext* c, int input, std::vector<int64_t>* values) {
  const Tensor* t = c->input_tensor(input);
  if (t == nullptr) return false;
  values->clear();
  if (t->dtype() == ::tensorflow::DT_INT32) {
    for (int64_t i = 0; i < t->NumElements(); ++i) values->push_back(t->data<int32_t>()[i]);
  } else if (t->dtype() == ::tensorflow::DT_INT64) {
    for (int64_t i = 0; i < t->NumElements(); ++i) values->push_back(t->data<int64_t>()[i]);
  } else {
    return false;
  }
  return true;
}

int64_t MulDims(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : a * b; }

// Output 0 is a vector holding input 0's shape.
Status ShapeOfShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    int rank = c->input(i).dims();
    c->set_output(i, PartialTensorShape(std::vector<int64_t>{rank}));
  }
  return Status::OK();
}

// Output 0's shape is the value of input `shape_input` (unknown when not a constant).
ShapeFn ShapeFromInput(int shape_input) {
  return [shape_input](InferenceContext* c) {
    std::vector<int64_t> dims;
    if (!ConstIntValues(c, shape_input, &dims)) {
      c->set_output(0, PartialTensorShape());
      return Status::OK();
    }
    for (int64_t& d : dims) d = std::max<int64_t>(d, -1);
    c->set_output(0, PartialTensorShape(std::move(dims)));
    return Status::OK();
  };
}

Status ReshapeShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (!ConstIntValues(c, 1, &dims)) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  const PartialTensorShape& in = c->input(0);
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      unknown = static_cast<int>(i);
      dims[i] = -1;
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0 && in.IsFullyDefined() && known > 0) {
    int64_t total = 1;
    for (int64_t d : in.dim_sizes()) total *= d;
    if (total % known == 0) dims[unknown] = total / known;
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  std::vector<int64_t> axis;
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank() || !ConstIntValues(c, 1, &axis) || axis.size() != 1) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  int64_t a = axis[0] < 0 ? axis[0] + in.dims() + 1 : axis[0];
  if (a < 0 || a > in.dims()) {
    return InvalidArgument("Tried to expand dim index ", axis[0], " for tensor with ", in.dims(),
                           " dimensions.");
  }
  std::vector<int64_t> dims = in.dim_sizes();
  dims.insert(dims.begin() + a, 1);
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  std::vector<int64_t> squeeze;
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "squeeze_dims", &squeeze));
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<bool> drop(in.dims(), false);
  for (int64_t d : squeeze) {
    if (d < -in.dims() || d >= in.dims()) {
      return InvalidArgument("Tried to squeeze dim index ", d, " for tensor with ", in.dims(),
                             " dimensions.");
    }
    drop[d < 0 ? d + in.dims() : d] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.dims(); ++i) {
    int64_t d = in.dim_size(i);
    if (squeeze.empty() ? d == 1 : drop[i]) continue;
    if (squeeze.empty() && d < 0) {  // might be 1: the rank is unknown
      c->set_output(0, PartialTensorShape());
      return Status::OK();
    }
    dims.push_back(d);
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status PackShape(InferenceContext* c) {
  int64_t axis = 0;
  GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "axis", &axis));
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  int rank = in.dims() + 1;
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis = ", axis, " not in [", -rank, ", ", rank, ")");
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims = in.dim_sizes();
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// ConcatV2 (axis last) and Concat (axis first).
ShapeFn ConcatShape(bool axis_first) {
  return [axis_first](InferenceContext* c) {
    int axis_input = axis_first ? 0 : c->num_inputs() - 1;
    int first = axis_first ? 1 : 0;
    int count = c->num_inputs() - 1;
    std::vector<int64_t> axis;
    const PartialTensorShape& in0 = c->input(first);
    if (in0.unknown_rank() || !ConstIntValues(c, axis_input, &axis) || axis.size() != 1) {
      c->set_output(0, PartialTensorShape());
      return Status::OK();
    }
    int rank = in0.dims();
    int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
    if (a < 0 || a >= rank) {
      c->set_output(0, PartialTensorShape());
      return Status::OK();
    }
    std::vector<int64_t> dims = in0.dim_sizes();
    for (int i = first + 1; i < first + count; ++i) {
      const PartialTensorShape& in = c->input(i);
      if (in.unknown_rank() || in.dims() != rank) {
        if (in.unknown_rank()) {
          dims[a] = -1;
          continue;
        }
        c->set_output(0, PartialTensorShape());
        return Status::OK();
      }
      for (int d = 0; d < rank; ++d) {
        if (d == a) {
          dims[d] = dims[d] < 0 || in.dim_size(d) < 0 ? -1 : dims[d] + in.dim_size(d);
        } else if (dims[d] < 0) {
          dims[d] = in.dim_size(d);
        }
      }
    }
    c->set_output(0, PartialTensorShape(std::move(dims)));
    return Status::OK();
  };
}

Status TransposeShape(InferenceContext* c) {
  std::vector<int64_t> perm;
  const PartialTensorShape& in = c->input(0);
  if (!ConstIntValues(c, 1, &perm)) {
    if (in.unknown_rank()) {
      c->set_output(0, PartialTensorShape());
    } else {
      c->set_output(0, PartialTensorShape(std::vector<int64_t>(in.dims(), -1)));
    }
    return Status::OK();
  }
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape(std::vector<int64_t>(perm.size(), -1)));
    return Status::OK();
  }
  if (static_cast<int>(perm.size()) != in.dims()) {
    return InvalidArgument("transpose expects a vector of size ", in.dims(),
                           ". But input(1) is a vector of size ", perm.size());
  }
  std::vector<int64_t> dims;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.dims()) {
      return InvalidArgument(p, " is out of range [0 .. ", in.dims(), ")");
    }
    dims.push_back(in.dim_size(static_cast<int>(p)));
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// Pad, PadV2, MirrorPad: input dims plus the constant paddings.
Status PadShape(InferenceContext* c) {
  std::vector<int64_t> pads;
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (!ConstIntValues(c, 1, &pads) || pads.size() != 2 * static_cast<size_t>(in.dims())) {
    c->set_output(0, PartialTensorShape(std::vector<int64_t>(in.dims(), -1)));
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dim_sizes();
  for (int i = 0; i < in.dims(); ++i) {
    if (dims[i] >= 0) dims[i] += pads[2 * i] + pads[2 * i + 1];
  }
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  std::vector<int64_t> multiples;
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (!ConstIntValues(c, 1, &multiples) || multiples.size() != static_cast<size_t>(in.dims())) {
    c->set_output(0, PartialTensorShape(std::vector<int64_t>(in.dims(), -1)));
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dim_sizes();
  for (int i = 0; i < in.dims(); ++i) dims[i] = MulDims(dims[i], multiples[i]);
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext* c) {
  std::vector<int64_t> axis;
  int64_t batch_dims = 0;
  GRT_RETURN_IF_ERROR(GetNodeAttrOr(c->node(), "batch_dims", &batch_dims));
  const PartialTensorShape& params = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  bool has_axis = c->num_inputs() == 3;
  if (has_axis && (!ConstIntValues(c, 2, &axis) || axis.size() != 1)) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (params.unknown_rank() || indices.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  if (batch_dims < 0) batch_dims += indices.dims();
  int64_t a = has_axis ? axis[0] : 0;
  if (a < 0) a += params.dims();
  if (a < 0 || a >= params.dims() || batch_dims < 0 || batch_dims > a ||
      batch_dims > indices.dims()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> dims(params.dim_sizes().begin(), params.dim_sizes().begin() + a);
  dims.insert(dims.end(), indices.dim_sizes().begin() + batch_dims, indices.dim_sizes().end());
  dims.insert(dims.end(), params.dim_sizes().begin() + a + 1, params.dim_sizes().end());
  c->set_output(0, PartialTensorShape(std::move(dims)));
  return Status::OK();
}

// Pack's inverse: `num` outputs, each input 0 without dim `axis`.
Status UnpackShape(InferenceContext* c) {
  int64_t axis = 0;
  GRT_RETURN_IF_ERROR(GetNodeAttr(c->node(), "axis", &axis));
  const PartialTensorShape& in = c->input(0);
  PartialTensorShape out;
  if (!in.unknown_rank()) {
    int rank = in.dims();
    if (axis < -rank || axis >= rank) {
      return InvalidArgument("axis = ", axis, " not in [", -rank, ", ", rank, ")");
    }
    if (axis < 0) axis += rank;
    std::vector<int64_t> dims = in.dim_sizes();
    dims.erase(dims.begin() + axis);
    out = PartialTensorShape(std::move(dims));
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status::OK();
}

}  // namespace

void RegisterArrayOps(OpRegistry* r) {
  // Shapes and metadata.
  r->Register(OpDefBuilder("Reshape")
                  .Input("tensor: T")
                  .Input("shape: Tshape")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tshape: {int32, int64} = DT_INT32")
                  .SetShapeFn(ReshapeShape));
  r->Register(OpDefBuilder("Squeeze")
                  .Input("input: T")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("squeeze_dims: list(int) >= 0 = []")
                  .SetShapeFn(SqueezeShape));
  r->Register(OpDefBuilder("ExpandDims")
                  .Input("input: T")
                  .Input("dim: Tdim")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tdim: {int32, int64} = DT_INT32")
                  .SetShapeFn(ExpandDimsShape));
  for (const char* op : {"Shape", "Size"}) {
    r->Register(
        OpDefBuilder(op)
            .Input("input: T")
            .Output("output: out_type")
            .Attr("T: type")
            .Attr("out_type: {int32, int64} = DT_INT32")
            .SetShapeFn(std::string(op) == "Shape" ? ShapeFn(ShapeOfShape) : ShapeFn(ScalarShape)));
  }
  r->Register(OpDefBuilder("ShapeN")
                  .Input("input: N * T")
                  .Output("output: N * out_type")
                  .Attr("N: int >= 1")
                  .Attr("T: type")
                  .Attr("out_type: {int32, int64} = DT_INT32")
                  .SetShapeFn(ShapeOfShape));
  r->Register(OpDefBuilder("Rank")
                  .Input("input: T")
                  .Output("output: int32")
                  .Attr("T: type")
                  .SetShapeFn(ScalarShape));
  r->Register(OpDefBuilder("Fill")
                  .Input("dims: index_type")
                  .Input("value: T")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("index_type: {int32, int64} = DT_INT32")
                  .SetShapeFn(ShapeFromInput(0)));
  r->Register(OpDefBuilder("ZerosLike")
                  .Input("x: T")
                  .Output("y: T")
                  .Attr("T: type")
                  .SetShapeFn(UnchangedShape));
  r->Register(OpDefBuilder("OnesLike")
                  .Input("x: T")
                  .Output("y: T")
                  .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
                        "uint32, int64, uint64, complex64, complex128, bool}")
                  .SetShapeFn(UnchangedShape));
  r->Register(OpDefBuilder("Range")
                  .Input("start: Tidx")
                  .Input("limit: Tidx")
                  .Input("delta: Tidx")
                  .Output("output: Tidx")
                  .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, "
                        "uint32} = DT_INT32")
                  .SetShapeFn([](InferenceContext* c) {
                    c->set_output(0, PartialTensorShape(std::vector<int64_t>{-1}));
                    return Status::OK();
                  }));
  r->Register(OpDefBuilder("BroadcastTo")
                  .Input("input: T")
                  .Input("shape: Tidx")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tidx: {int32, int64} = DT_INT32")
                  .SetShapeFn(ShapeFromInput(1)));
  r->Register(OpDefBuilder("BroadcastArgs")
                  .Input("s0: T")
                  .Input("s1: T")
                  .Output("r0: T")
                  .Attr("T: {int32, int64} = DT_INT32")
                  .SetShapeFn([](InferenceContext* c) {
                    c->set_output(0, PartialTensorShape(std::vector<int64_t>{-1}));
                    return Status::OK();
                  }));

  // Joining and splitting.
  r->Register(OpDefBuilder("Pack")
                  .Input("values: N * T")
                  .Output("output: T")
                  .Attr("N: int >= 1")
                  .Attr("T: type")
                  .Attr("axis: int = 0")
                  .SetShapeFn(PackShape));
  r->Register(OpDefBuilder("Unpack")
                  .Input("value: T")
                  .Output("output: num * T")
                  .Attr("num: int >= 0")
                  .Attr("T: type")
                  .Attr("axis: int = 0")
                  .SetShapeFn(UnpackShape));
  r->Register(OpDefBuilder("ConcatV2")
                  .Input("values: N * T")
                  .Input("axis: Tidx")
                  .Output("output: T")
                  .Attr("N: int >= 2")
                  .Attr("T: type")
                  .Attr("Tidx: {int32, int64} = DT_INT32")
                  .SetShapeFn(ConcatShape(/*axis_first=*/false)));
  r->Register(OpDefBuilder("Concat")
                  .Input("concat_dim: int32")
                  .Input("values: N * T")
                  .Output("output: T")
                  .Attr("N: int >= 2")
                  .Attr("T: type")
                  .SetShapeFn(ConcatShape(/*axis_first=*/true)));
  r->Register(OpDefBuilder("Split")
                  .Input("split_dim: int32")
                  .Input("value: T")
                  .Output("output: num_split * T")
                  .Attr("num_split: int >= 1")
                  .Attr("T: type"));
  r->Register(OpDefBuilder("SplitV")
                  .Input("value: T")
                  .Input("size_splits: Tlen")
                  .Input("split_dim: int32")
                  .Output("output: num_split * T")
                  .Attr("num_split: int >= 1")
                  .Attr("T: type")
                  .Attr("Tlen: {int8, int32, int64} = DT_INT64"));

  // Slicing and rearranging.
  r->Register(OpDefBuilder("Slice")
                  .Input("input: T")
                  .Input("begin: Index")
                  .Input("size: Index")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Index: {int32, int64}"));
  r->Register(OpDefBuilder("StridedSlice")
                  .Input("input: T")
                  .Input("begin: Index")
                  .Input("end: Index")
                  .Input("strides: Index")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Index: {int16, int32, int64}")
                  .Attr("begin_mask: int = 0")
                  .Attr("end_mask: int = 0")
                  .Attr("ellipsis_mask: int = 0")
                  .Attr("new_axis_mask: int = 0")
                  .Attr("shrink_axis_mask: int = 0"));
  for (const char* op : {"Transpose", "ConjugateTranspose"}) {
    r->Register(OpDefBuilder(op)
                    .Input("x: T")
                    .Input("perm: Tperm")
                    .Output("y: T")
                    .Attr("T: type")
                    .Attr("Tperm: {int32, int64} = DT_INT32")
                    .SetShapeFn(TransposeShape));
  }
  r->Register(OpDefBuilder("Pad")
                  .Input("input: T")
                  .Input("paddings: Tpaddings")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tpaddings: {int32, int64} = DT_INT32")
                  .SetShapeFn(PadShape));
  r->Register(OpDefBuilder("PadV2")
                  .Input("input: T")
                  .Input("paddings: Tpaddings")
                  .Input("constant_values: T")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tpaddings: {int32, int64} = DT_INT32")
                  .SetShapeFn(PadShape));
  r->Register(OpDefBuilder("MirrorPad")
                  .Input("input: T")
                  .Input("paddings: Tpaddings")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tpaddings: {int32, int64} = DT_INT32")
                  .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
                  .SetShapeFn(PadShape));
  r->Register(OpDefBuilder("Tile")
                  .Input("input: T")
                  .Input("multiples: Tmultiples")
                  .Output("output: T")
                  .Attr("T: type")
                  .Attr("Tmultiples: {int32, int64} = DT_INT32")
                  .SetShapeFn(TileShape));
  r->Register(OpDefBuilder("GatherV2")
                  .Input("params: Tparams")
                  .Input("indices: Tindices")
                  .Input("axis: Taxis")
                  .Output("output: Tparams")
                  .Attr("batch_dims: int = 0")
                  .Attr("Tparams: type")
                  .Attr("Tindices: {int16, int32, int64}")
                  .Attr("Taxis: {int32, int64}")
                  .SetShapeFn(GatherV2Shape));
  r->Register(OpDefBuilder("Gather")
                  .Input("params: Tparams")
                  .Input("indices: Tindices")
                  .Output("output: Tparams")
                  .Attr("validate_indices: bool = true")
                  .Attr("Tparams: type")
                  .Attr("Tindices: {int32, int64}")
                  .SetShapeFn(GatherV2Shape));
  r->Register(OpDefBuilder("Reverse")
                  .Input("tensor: T")
                  .Input("dims: bool")
                  .Output("output: T")
                  .Attr("T: {uint8, int8, uint16, int16, uint32, int32, uint64, int64, bool, "
                        "bfloat16, half, float, double, complex64, complex128, string}")
                  .SetShapeFn(UnchangedShape));
  r->Register(OpDefBuilder("ReverseV2")
                  .Input("tensor: T")
                  .Input("axis: Tidx")
                  .Output("output: T")
                  .Attr("Tidx: {int32, int64} = DT_INT32")
                  .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, "
                        "bfloat16, half, float, double, complex64, complex128, string}")
                  .SetShapeFn(UnchangedShape));
  r->Register(OpDefBuilder("OneHot")
                  .Input("indices: TI")
                  .Input("depth: int32")
                  .Input("on_value: T")
                  .Input("off_value: T")
                  .Output("output: T")
                  .Attr("axis: int = -1")
                  .Attr("T: type")
                  .Attr("TI: {uint8, int8, int32, int64} = DT_INT64"));
}

}  // namespace graphrt
