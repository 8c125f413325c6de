// Recurrent layers (SimpleRNN, LSTM, GRU, CuDNNLSTM, CuDNNGRU, RNN over cells, ConvLSTM1D/2D/3D,
// and Bidirectional around any of them) as TensorFlow v1 while loops over the time axis, so the
// time length may vary from run to run.
#include "formats/keras/keras_builder_internal.h"
#include "formats/keras/keras_rnn_spec.h"

#include <algorithm>
#include <set>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

constexpr int64_t kMaxStateElements = int64_t{1} << 28;

// A convolution of a ConvLSTM cell: NHWC Conv2D (with a height of 1 for 1-D) or NDHWC Conv3D.
std::string ConvNd(Emitter& emit, const std::string& name, const std::string& x,
                   const std::string& w, int spatial, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& dilations, const std::string& padding) {
  std::string in = spatial == 1 ? emit.ExpandDims(name + "/ExpandDims", x, 1) : x;
  std::vector<int64_t> st = {1}, dl = {1};
  if (spatial == 1) {
    st.push_back(1);
    dl.push_back(1);
  }
  for (int i = 0; i < spatial; ++i) {
    st.push_back(strides.empty() ? 1 : strides[i]);
    dl.push_back(dilations.empty() ? 1 : dilations[i]);
  }
  st.push_back(1);
  dl.push_back(1);
  NodeDef* n = emit.Add(spatial == 3 ? "Conv3D" : "Conv2D", name, {in, w});
  SetNodeAttr(n, "T", kFloat);
  SetNodeAttr(n, "strides", st);
  SetNodeAttr(n, "dilations", dl);
  SetNodeAttr(n, "padding", padding == "same" ? "SAME" : "VALID");
  SetNodeAttr(n, "data_format", spatial == 3 ? "NDHWC" : "NHWC");
  if (spatial != 3) {
    SetNodeAttr(n, "use_cudnn_on_gpu", true);
    SetNodeAttr(n, "explicit_paddings", std::vector<int64_t>{});
  }
  return spatial == 1 ? emit.Squeeze(name + "/Squeeze", n->name(), {1}) : n->name();
}

// One step of the cell. `kernel`, `recurrent` and `bias` are tensors in the loop's frame;
// returns the step's output.
std::string CellStep(Emitter& emit, const std::string& p, const RnnCellSpec& cell,
                     const std::string& x, const std::vector<std::string>& states,
                     const std::string& kernel, const std::string& recurrent,
                     const std::string& bias, std::vector<std::string>* new_states) {
  auto act = [&](const std::string& gate, const std::string& fn, const std::string& v) {
    // EmitRnn checked the activation names before it started the loop.
    StatusOr<std::string> y = Activate(emit, p + "/" + gate, fn, v, "");
    return y.ok() ? *y : v;
  };
  // Gates lie along the last axis: 1 for dense cells, past the spatial axes for ConvLSTM.
  const int gate_axis = cell.kind == "ConvLSTM" ? cell.spatial + 1 : 1;
  auto split = [&](const std::string& name, const std::string& v, int n) {
    NodeDef* s = emit.Add("Split", name, {emit.Int(name + "/split_dim", gate_axis), v});
    SetNodeAttr(s, "T", kFloat);
    SetNodeAttr(s, "num_split", n);
    std::vector<std::string> parts;
    for (int i = 0; i < n; ++i) parts.push_back(i == 0 ? s->name() : StrCat(s->name(), ":", i));
    return parts;
  };
  const std::string& h = states[0];
  if (cell.kind == "SimpleRNN") {
    std::string y = emit.MatMul(p + "/MatMul", x, kernel);
    if (cell.use_bias) y = emit.BiasAdd(p + "/BiasAdd", y, bias);
    y = emit.Binary("AddV2", p + "/add", y, emit.MatMul(p + "/MatMul_1", h, recurrent));
    y = act("activation", cell.activation, y);
    new_states->push_back(y);
    return y;
  }
  if (cell.kind == "LSTM" || cell.kind == "ConvLSTM") {
    std::string z;
    if (cell.kind == "LSTM") {
      z = emit.MatMul(p + "/MatMul", x, kernel);
      z = emit.Binary("AddV2", p + "/add", z, emit.MatMul(p + "/MatMul_1", h, recurrent));
      if (cell.use_bias) z = emit.BiasAdd(p + "/BiasAdd", z, bias);
    } else {
      // As Keras's ConvLSTMCell: the input convolution has the layer's window, the recurrent
      // one strides 1 and "same" padding.
      z = ConvNd(emit, p + "/input_conv", x, kernel, cell.spatial, cell.strides, cell.dilations,
                 cell.padding);
      if (cell.use_bias) z = emit.BiasAdd(p + "/BiasAdd", z, bias);
      z = emit.Binary(
          "AddV2", p + "/add", z,
          ConvNd(emit, p + "/recurrent_conv", h, recurrent, cell.spatial, {}, {}, "same"));
    }
    std::vector<std::string> g = split(p + "/split", z, 4);
    std::string i = act("i", cell.recurrent_activation, g[0]);
    std::string f = act("f", cell.recurrent_activation, g[1]);
    std::string cc =
        emit.Binary("AddV2", p + "/c", emit.Binary("Mul", p + "/mul", f, states[1]),
                    emit.Binary("Mul", p + "/mul_1", i, act("g", cell.activation, g[2])));
    std::string o = act("o", cell.recurrent_activation, g[3]);
    std::string hh = emit.Binary("Mul", p + "/h", o, act("c", cell.activation, cc));
    new_states->push_back(hh);
    new_states->push_back(cc);
    return hh;
  }
  // GRU. `bias` is [3u] (reset_after=false) or [2, 3u] split into input and recurrent parts by
  // the caller (bias holds both names joined by '|').
  std::string in_bias, rec_bias;
  if (cell.use_bias) {
    size_t bar = bias.find('|');
    in_bias = bias.substr(0, bar);
    rec_bias = bar == std::string::npos ? "" : bias.substr(bar + 1);
  }
  std::string mx = emit.MatMul(p + "/MatMul", x, kernel);
  if (cell.use_bias) mx = emit.BiasAdd(p + "/BiasAdd", mx, in_bias);
  std::vector<std::string> xs = split(p + "/split", mx, 3);
  std::string z, r, hh;
  if (cell.reset_after) {
    std::string mi = emit.MatMul(p + "/MatMul_1", h, recurrent);
    if (cell.use_bias) mi = emit.BiasAdd(p + "/BiasAdd_1", mi, rec_bias);
    std::vector<std::string> rs = split(p + "/split_1", mi, 3);
    z = act("z", cell.recurrent_activation, emit.Binary("AddV2", p + "/add", xs[0], rs[0]));
    r = act("r", cell.recurrent_activation, emit.Binary("AddV2", p + "/add_1", xs[1], rs[1]));
    hh = emit.Binary("AddV2", p + "/add_2", xs[2], emit.Binary("Mul", p + "/mul", r, rs[2]));
  } else {
    // `recurrent` holds the [u, 2u] z|r part and the [u, u] h part, joined by '|'.
    size_t bar = recurrent.find('|');
    std::string rzr = recurrent.substr(0, bar), rh = recurrent.substr(bar + 1);
    std::vector<std::string> rs = split(p + "/split_1", emit.MatMul(p + "/MatMul_1", h, rzr), 2);
    z = act("z", cell.recurrent_activation, emit.Binary("AddV2", p + "/add", xs[0], rs[0]));
    r = act("r", cell.recurrent_activation, emit.Binary("AddV2", p + "/add_1", xs[1], rs[1]));
    std::string rh_in = emit.MatMul(p + "/MatMul_2", emit.Binary("Mul", p + "/mul", r, h), rh);
    hh = emit.Binary("AddV2", p + "/add_2", xs[2], rh_in);
  }
  hh = act("hh", cell.activation, hh);
  // h = z * h_prev + (1 - z) * hh
  std::string one = emit.Float(p + "/one", 1.0f);
  std::string out =
      emit.Binary("AddV2", p + "/h", emit.Binary("Mul", p + "/mul_1", z, h),
                  emit.Binary("Mul", p + "/mul_2", emit.Binary("Sub", p + "/sub", one, z), hh));
  new_states->push_back(out);
  return out;
}

// A TensorFlow v1 while loop over the time axis of x [batch, time, features...]:
//   outputs: the sequence [batch, time, ...] (return_sequences) or the last output, then the
//   final states of every cell (return_state).
Status EmitRnn(Emitter& emit, const std::string& scope, const RnnSpec& spec, const Value& x,
               std::vector<std::string> initial_states, const std::string& layer,
               std::vector<Value>* outputs) {
  const RnnCellSpec& first = spec.cells.front();
  const int rank = first.kind == "ConvLSTM" ? first.spatial + 3 : 3;
  if (x.rank() != rank) {
    return InvalidArgument("layer '", layer, "': recurrent input ", ShapeString(x.shape),
                           ", expected rank ", rank);
  }
  // Checked now so that the step builder cannot fail half-way through the loop.
  static const std::set<std::string> kKnown = {
      "tanh",     "sigmoid", "hard_sigmoid", "relu", "linear",      "elu",   "selu", "softplus",
      "softsign", "swish",   "silu",         "gelu", "exponential", "relu6", "mish"};
  // Keras 3's (keras3_config.cc renames its hard_sigmoid).
  static const std::set<std::string> kKeras3 = {"keras3_hard_sigmoid", "hard_silu", "hard_swish"};
  for (const RnnCellSpec& cell : spec.cells) {
    for (const std::string& a : {cell.activation, cell.recurrent_activation}) {
      if (!a.empty() && kKnown.count(a) == 0 && kKeras3.count(a) == 0) {
        return Unimplemented("layer '", layer, "': activation '", a, "' in a recurrent cell");
      }
    }
  }
  const std::string p = scope;
  const std::string frame = p + "/while/";
  std::vector<int32_t> perm = {1, 0};
  for (int i = 2; i < rank; ++i) perm.push_back(i);
  std::string xt = emit.Transpose(p + "/transpose", ToFloat(emit, p, x), perm);
  if (spec.go_backwards) {
    NodeDef* rev = emit.Add("ReverseV2", p + "/ReverseV2", {xt, emit.Ints(p + "/rev_axis", {0})});
    SetNodeAttr(rev, "T", kFloat);
    SetNodeAttr(rev, "Tidx", kInt32);
    xt = rev->name();
  }
  std::string shape = emit.ShapeOf(p + "/Shape", xt);
  std::string steps = emit.Element(p + "/time_steps", shape, 0);
  std::string batch = emit.Element(p + "/batch_size", shape, 1);
  // Each state's shape past the batch, as Keras knows it; and which cell owns it.
  std::vector<Shape> state_shapes;
  std::vector<int> state_cell;
  for (size_t ci = 0; ci < spec.cells.size(); ++ci) {
    const RnnCellSpec& cell = spec.cells[ci];
    Shape s;
    if (cell.kind == "ConvLSTM") {
      for (int i = 0; i < cell.spatial; ++i) {
        int64_t k = cell.kernel.dim_size(i + (cell.spatial == 1 ? 1 : 0));
        s.push_back(ConvOut(x.shape[2 + i], k, cell.strides[i], cell.dilations[i], cell.padding));
      }
    }
    s.push_back(cell.units);
    for (int i = 0; i < cell.num_states(); ++i) {
      state_shapes.push_back(s);
      state_cell.push_back(static_cast<int>(ci));
    }
  }
  // A stateful layer keeps its final states in variables; a run starts from them (or from the
  // initial states it is given) and leaves its final states there.
  std::vector<std::string> state_vars;
  if (spec.stateful) {
    std::vector<std::string> reads;
    for (size_t i = 0; i < state_shapes.size(); ++i) {
      std::vector<int64_t> dims = {x.shape[0]};
      dims.insert(dims.end(), state_shapes[i].begin(), state_shapes[i].end());
      if (*std::min_element(dims.begin(), dims.end()) < 0) {
        return InvalidArgument("layer '", layer, "': stateful recurrent layer without a fixed ",
                               "batch size and state shape");
      }
      // The batch size comes from the config alone: bound it before allocating the states.
      int64_t elements = 1;
      for (int64_t d : dims) {
        if (d != 0 && elements > kMaxStateElements / d) {
          return InvalidArgument("layer '", layer, "': states of shape ", ShapeString(dims),
                                 " are too large");
        }
        elements *= d;
      }
      Tensor zeros(kFloat, TensorShape(dims));
      std::fill(zeros.data<float>(), zeros.data<float>() + zeros.NumElements(), 0.0f);
      std::string var = emit.StateVariable(StrCat(p, "/states_", i), zeros);
      state_vars.push_back(var);
      reads.push_back(emit.Identity(var + "/read", var));
    }
    if (initial_states.empty()) {
      initial_states = reads;
    } else {
      // As Keras: given initial states are used only while the recorded states are all zero.
      std::string any;
      for (size_t i = 0; i < reads.size(); ++i) {
        std::vector<int32_t> axes;
        for (size_t a = 0; a <= state_shapes[i].size(); ++a)
          axes.push_back(static_cast<int32_t>(a));
        NodeDef* ne = emit.Add("NotEqual", StrCat(p, "/states_", i, "/NotEqual"),
                               {reads[i], emit.Float(StrCat(p, "/states_", i, "/zero"), 0.0f)});
        SetNodeAttr(ne, "T", kFloat);
        SetNodeAttr(ne, "incompatible_shape_error", true);
        NodeDef* a = emit.Add("Any", StrCat(p, "/states_", i, "/Any"),
                              {ne->name(), emit.Ints(StrCat(p, "/states_", i, "/axes"), axes)});
        SetNodeAttr(a, "Tidx", kInt32);
        SetNodeAttr(a, "keep_dims", false);
        any = any.empty()
                  ? a->name()
                  : emit.Add("LogicalOr", StrCat(p, "/states_any"), {any, a->name()})->name();
      }
      for (size_t i = 0; i < initial_states.size() && i < reads.size(); ++i) {
        NodeDef* sel = emit.Add("SelectV2", StrCat(p, "/initial_state_", i),
                                {any, reads[i], initial_states[i]});
        SetNodeAttr(sel, "T", kFloat);
        initial_states[i] = sel->name();
      }
    }
  }
  if (initial_states.empty()) {
    for (size_t ci = 0; ci < spec.cells.size(); ++ci) {
      const RnnCellSpec& cell = spec.cells[ci];
      const std::string q = spec.cells.size() == 1 ? p : StrCat(p, "/cell_", ci);
      std::string zeros;
      if (cell.kind == "ConvLSTM") {
        // As Keras: the first step's zeros through the input convolution (with a zero kernel),
        // which gives the states their spatial size.
        NodeDef* x0 =
            emit.Add("GatherV2", q + "/zeros/step",
                     {xt, emit.Int(q + "/zeros/index", 0), emit.Int(q + "/zeros/axis", 0)});
        SetNodeAttr(x0, "Tparams", kFloat);
        SetNodeAttr(x0, "Tindices", kInt32);
        SetNodeAttr(x0, "Taxis", kInt32);
        SetNodeAttr(x0, "batch_dims", 0);
        std::vector<int64_t> kdims;
        for (int i = 0; i < cell.kernel.dims() - 1; ++i) kdims.push_back(cell.kernel.dim_size(i));
        kdims.push_back(cell.units);
        Tensor zk(kFloat, TensorShape(kdims));
        std::fill(zk.data<float>(), zk.data<float>() + zk.NumElements(), 0.0f);
        zeros = ConvNd(emit, q + "/zeros", emit.Unary("ZerosLike", q + "/zeros/like", x0->name()),
                       emit.Const(q + "/zeros/kernel", zk), cell.spatial, cell.strides,
                       cell.dilations, cell.padding);
      } else {
        std::string dims =
            emit.Pack(q + "/zeros/shape",
                      {batch, emit.Int(q + "/units", static_cast<int32_t>(cell.units))}, kInt32);
        NodeDef* fill =
            emit.Add("Fill", q + "/zeros", {dims, emit.Float(q + "/zeros/value", 0.0f)});
        SetNodeAttr(fill, "T", kFloat);
        SetNodeAttr(fill, "index_type", kInt32);
        zeros = fill->name();
      }
      for (int i = 0; i < cell.num_states(); ++i) initial_states.push_back(zeros);
    }
  }
  if (static_cast<int>(initial_states.size()) != spec.num_states()) {
    return InvalidArgument("layer '", layer, "': given ", initial_states.size(),
                           " initial states; its cells have ", spec.num_states());
  }
  // Weights, entered into the frame as constants.
  auto enter = [&](const std::string& name, const std::string& v, bool constant,
                   DataType t = kFloat) {
    NodeDef* n = emit.Add("Enter", p + "/while/" + name, {v});
    SetNodeAttr(n, "T", t);
    SetNodeAttr(n, "frame_name", frame);
    SetNodeAttr(n, "is_constant", constant);
    SetNodeAttr(n, "parallel_iterations", 32);
    return n->name();
  };
  struct Entered {
    std::string kernel, recurrent, bias;
  };
  std::vector<Entered> entered;
  for (size_t ci = 0; ci < spec.cells.size(); ++ci) {
    const RnnCellSpec& cell = spec.cells[ci];
    const int64_t u = cell.units;
    const std::string w = spec.cells.size() == 1 ? "" : StrCat("cell_", ci, "/");
    Entered e;
    e.kernel = enter(w + "kernel", emit.Weight(p + "/" + w + "kernel", cell.kernel), true);
    if (cell.kind == "GRU" && !cell.reset_after) {
      // Split U into its z|r columns and its h columns.
      Tensor zr(kFloat, TensorShape({u, 2 * u})), hpart(kFloat, TensorShape({u, u}));
      const float* src = cell.recurrent_kernel.data<float>();
      for (int64_t i = 0; i < u; ++i) {
        for (int64_t j = 0; j < 2 * u; ++j) zr.data<float>()[i * 2 * u + j] = src[i * 3 * u + j];
        for (int64_t j = 0; j < u; ++j) {
          hpart.data<float>()[i * u + j] = src[i * 3 * u + 2 * u + j];
        }
      }
      e.recurrent = enter(w + "recurrent_kernel_zr",
                          emit.Weight(p + "/" + w + "recurrent_kernel_zr", zr), true) +
                    "|" +
                    enter(w + "recurrent_kernel_h",
                          emit.Weight(p + "/" + w + "recurrent_kernel_h", hpart), true);
    } else {
      e.recurrent =
          enter(w + "recurrent_kernel",
                emit.Weight(p + "/" + w + "recurrent_kernel", cell.recurrent_kernel), true);
    }
    if (cell.use_bias) {
      if (cell.kind == "GRU" && cell.reset_after) {
        Tensor in(kFloat, TensorShape({3 * u})), rec(kFloat, TensorShape({3 * u}));
        const float* src = cell.bias.data<float>();
        std::copy(src, src + 3 * u, in.data<float>());
        std::copy(src + 3 * u, src + 6 * u, rec.data<float>());
        e.bias =
            enter(w + "input_bias", emit.Weight(p + "/" + w + "input_bias", in), true) + "|" +
            enter(w + "recurrent_bias", emit.Weight(p + "/" + w + "recurrent_bias", rec), true);
      } else {
        e.bias = enter(w + "bias", emit.Weight(p + "/" + w + "bias", cell.bias), true);
      }
    }
    entered.push_back(e);
  }
  std::string x_in = enter("input", xt, true);
  // A mask [batch, time] goes time-major (and backwards with the input).
  std::string mask_in;
  if (!x.mask.empty()) {
    std::string mt = emit.Transpose(p + "/mask_transpose", x.mask, {1, 0}, ::tensorflow::DT_BOOL);
    if (spec.go_backwards) {
      NodeDef* rev =
          emit.Add("ReverseV2", p + "/mask_reverse", {mt, emit.Ints(p + "/mask_rev_axis", {0})});
      SetNodeAttr(rev, "T", ::tensorflow::DT_BOOL);
      SetNodeAttr(rev, "Tidx", kInt32);
      mt = rev->name();
    }
    mask_in = enter("mask", mt, true, ::tensorflow::DT_BOOL);
  }
  std::string steps_in = enter("time_steps", steps, true, kInt32);
  std::string ta_handle, ta_flow;
  if (spec.return_sequences) {
    NodeDef* ta = emit.Add("TensorArrayV3", p + "/TensorArray", {steps});
    SetNodeAttr(ta, "dtype", kFloat);
    SetNodeAttr(ta, "element_shape", PartialTensorShape());
    SetNodeAttr(ta, "dynamic_size", false);
    SetNodeAttr(ta, "clear_after_read", true);
    SetNodeAttr(ta, "identical_element_shapes", true);
    SetNodeAttr(ta, "tensor_array_name", "");
    ta_handle = ta->name();
    ta_flow = ta->name() + ":1";
  }
  // Loop variables: time, states..., the TensorArray's flow.
  std::vector<std::string> init = {emit.Int(p + "/time", 0)};
  std::vector<DataType> types = {kInt32};
  for (const std::string& s : initial_states) {
    init.push_back(s);
    types.push_back(kFloat);
  }
  if (spec.return_sequences) {
    init.push_back(ta_flow);
    types.push_back(kFloat);
  }
  std::vector<std::string> merges, switches, nexts;
  for (size_t i = 0; i < init.size(); ++i) {
    std::string e = enter(StrCat("Enter_", i), init[i], false, types[i]);
    std::string next_name = emit.Unique(StrCat(frame, "NextIteration_", i));
    nexts.push_back(next_name);
    NodeDef* m = emit.Add("Merge", StrCat(frame, "Merge_", i), {e, next_name});
    SetNodeAttr(m, "T", types[i]);
    SetNodeAttr(m, "N", 2);
    merges.push_back(m->name());
  }
  NodeDef* less = emit.Add("Less", frame + "Less", {merges[0], steps_in});
  SetNodeAttr(less, "T", kInt32);
  NodeDef* cond = emit.Add("LoopCond", frame + "LoopCond", {less->name()});
  std::vector<std::string> body;
  for (size_t i = 0; i < init.size(); ++i) {
    NodeDef* s = emit.Add("Switch", StrCat(frame, "Switch_", i), {merges[i], cond->name()});
    SetNodeAttr(s, "T", types[i]);
    switches.push_back(s->name());
    body.push_back(emit.Identity(StrCat(frame, "Identity_", i), s->name() + ":1", types[i]));
  }
  emit.set_pivot(body[0]);
  NodeDef* gather =
      emit.Add("GatherV2", frame + "input_t", {x_in, body[0], emit.Int(frame + "input_t/axis", 0)});
  SetNodeAttr(gather, "Tparams", kFloat);
  SetNodeAttr(gather, "Tindices", kInt32);
  SetNodeAttr(gather, "Taxis", kInt32);
  SetNodeAttr(gather, "batch_dims", 0);
  std::vector<std::string> states(body.begin() + 1, body.begin() + 1 + spec.num_states());
  std::vector<std::string> new_states;
  std::string y = gather->name();
  size_t last_h = 0;  // the last cell's first state: its output
  for (size_t ci = 0, first_state = 0; ci < spec.cells.size(); ++ci) {
    const RnnCellSpec& cell = spec.cells[ci];
    std::vector<std::string> cell_states(states.begin() + first_state,
                                         states.begin() + first_state + cell.num_states());
    last_h = first_state;
    first_state += cell.num_states();
    y = CellStep(emit, spec.cells.size() == 1 ? frame + "cell" : StrCat(frame, "cell_", ci), cell,
                 y, cell_states, entered[ci].kernel, entered[ci].recurrent, entered[ci].bias,
                 &new_states);
  }
  if (!mask_in.empty()) {
    // As Keras's backend.rnn: at a masked step the states stay as they were, and the step's
    // output is the previous output (or zeros, with zero_output_for_mask).
    NodeDef* m = emit.Add("GatherV2", frame + "mask_t",
                          {mask_in, body[0], emit.Int(frame + "mask_t/axis", 0)});
    SetNodeAttr(m, "Tparams", ::tensorflow::DT_BOOL);
    SetNodeAttr(m, "Tindices", kInt32);
    SetNodeAttr(m, "Taxis", kInt32);
    SetNodeAttr(m, "batch_dims", 0);
    NodeDef* m2 = emit.Add("ExpandDims", frame + "mask_t/ExpandDims",
                           {m->name(), emit.Int(frame + "mask_t/dim", 1)});
    SetNodeAttr(m2, "T", ::tensorflow::DT_BOOL);
    SetNodeAttr(m2, "Tdim", kInt32);
    auto select = [&](const std::string& name, const std::string& a, const std::string& b) {
      NodeDef* sel = emit.Add("SelectV2", name, {m2->name(), a, b});
      SetNodeAttr(sel, "T", kFloat);
      return sel->name();
    };
    std::string prev = states[last_h];
    for (size_t i = 0; i < new_states.size(); ++i) {
      new_states[i] = select(StrCat(frame, "masked_state_", i), new_states[i], states[i]);
    }
    y = select(frame + "masked_output", y,
               spec.zero_output_for_mask ? emit.Unary("ZerosLike", frame + "zeros", y) : prev);
  }
  std::vector<std::string> next_values = {
      emit.Binary("AddV2", frame + "time_next", body[0], emit.Int(frame + "one", 1), kInt32)};
  for (const std::string& s : new_states) next_values.push_back(s);
  if (spec.return_sequences) {
    NodeDef* write = emit.Add("TensorArrayWriteV3", frame + "TensorArrayWrite",
                              {enter("TensorArray", ta_handle, true, ::tensorflow::DT_RESOURCE),
                               body[0], y, body.back()});
    SetNodeAttr(write, "T", kFloat);
    next_values.push_back(write->name());
  }
  emit.set_pivot("");
  std::vector<std::string> exits;
  for (size_t i = 0; i < init.size(); ++i) {
    NodeDef* n = emit.AddReserved("NextIteration", nexts[i], {next_values[i]});
    SetNodeAttr(n, "T", types[i]);
    NodeDef* e = emit.Add("Exit", StrCat(frame, "Exit_", i), {switches[i]});
    SetNodeAttr(e, "T", types[i]);
    exits.push_back(e->name());
  }
  std::vector<std::string> saved;  // control inputs: the stateful layer's final states stored
  for (size_t i = 0; i < state_vars.size(); ++i) {
    NodeDef* assign = emit.Add("Assign", state_vars[i] + "/store", {state_vars[i], exits[1 + i]});
    SetNodeAttr(assign, "T", kFloat);
    SetNodeAttr(assign, "validate_shape", true);
    SetNodeAttr(assign, "use_locking", true);
    saved.push_back("^" + assign->name());
  }
  auto after_store = [&](const std::string& t) {
    if (saved.empty()) return t;
    NodeDef* n = emit.Add("Identity", t.substr(0, t.find(':')) + "/stored", {t});
    for (const std::string& c : saved) n->add_input(c);
    SetNodeAttr(n, "T", kFloat);
    return n->name();
  };
  auto batched = [&](const Shape& s) {
    Shape out = {x.shape[0]};
    out.insert(out.end(), s.begin(), s.end());
    return out;
  };
  Value main;
  if (spec.return_sequences) {
    NodeDef* range =
        emit.Add("Range", p + "/range",
                 {emit.Int(p + "/range/start", 0), steps, emit.Int(p + "/range/delta", 1)});
    SetNodeAttr(range, "Tidx", kInt32);
    NodeDef* g = emit.Add("TensorArrayGatherV3", p + "/TensorArrayGather",
                          {ta_handle, range->name(), exits.back()});
    SetNodeAttr(g, "dtype", kFloat);
    SetNodeAttr(g, "element_shape", PartialTensorShape());
    main.tensor = after_store(emit.Transpose(p + "/transpose_1", g->name(), perm));
    main.shape = {x.shape[0], x.shape[1]};
    main.shape.insert(main.shape.end(), state_shapes[last_h].begin(), state_shapes[last_h].end());
    main.mask = x.mask;
  } else {
    main.tensor = after_store(exits[1 + last_h]);
    main.shape = batched(state_shapes[last_h]);
  }
  outputs->push_back(main);
  if (spec.return_state) {
    for (size_t i = 0; i < state_shapes.size(); ++i) {
      outputs->push_back(Value{after_store(exits[1 + i]), batched(state_shapes[i])});
    }
  }
  return Status::OK();
}

// `v` with its channel axis moved: after its `lead` leading axes (batch, time) to the end
// (to_last), or back.
Value MoveChannels(Emitter& emit, const std::string& name, const Value& v, int lead, bool to_last) {
  std::vector<int32_t> perm;
  for (int i = 0; i < v.rank(); ++i) perm.push_back(i);
  if (to_last) {
    std::rotate(perm.begin() + lead, perm.begin() + lead + 1, perm.end());
  } else {
    std::rotate(perm.begin() + lead, perm.end() - 1, perm.end());
  }
  Value out = v;
  out.tensor = emit.Transpose(name, ToFloat(emit, name, v), perm);
  for (int i = 0; i < v.rank(); ++i) out.shape[i] = v.shape[perm[i]];
  return out;
}

// EmitRnn, for a channels_first ConvLSTM between transposes.
Status RunRnn(Emitter& emit, const std::string& scope, const RnnSpec& spec, const Value& x,
              const std::vector<Value>& initial_states, const std::string& layer,
              std::vector<Value>* outputs) {
  std::vector<std::string> states;
  if (!spec.channels_first) {
    for (const Value& s : initial_states) states.push_back(s.tensor);
    return EmitRnn(emit, scope, spec, x, states, layer, outputs);
  }
  if (x.rank() < 4) {
    return InvalidArgument("layer '", layer, "': input ", ShapeString(x.shape), " of a ConvLSTM");
  }
  for (size_t i = 0; i < initial_states.size(); ++i) {
    states.push_back(
        MoveChannels(emit, StrCat(scope, "/initial_state_", i, "/nhwc"), initial_states[i], 1, true)
            .tensor);
  }
  std::vector<Value> outs;
  GRT_RETURN_IF_ERROR(EmitRnn(emit, scope, spec,
                              MoveChannels(emit, scope + "/input_nhwc", x, 2, true), states, layer,
                              &outs));
  for (size_t i = 0; i < outs.size(); ++i) {
    int lead = i == 0 && spec.return_sequences ? 2 : 1;
    outputs->push_back(
        MoveChannels(emit, StrCat(scope, "/output_", i, "/nchw"), outs[i], lead, false));
  }
  return Status::OK();
}

}  // namespace

Status Recurrent(LayerCall& c, std::vector<Value>* out) {
  const Value& x = c.inputs[0];
  GRT_ASSIGN_OR_RETURN(RnnSpec spec, ReadRnn(c.class_name, *c.config, x.shape, c.weights, c.name));
  std::vector<Value> states(c.inputs.begin() + 1, c.inputs.end());
  return RunRnn(*c.emit, c.scope, spec, x, states, c.name, out);
}

Status BidirectionalLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  const Value& x = c.inputs[0];
  GRT_ASSIGN_OR_RETURN(const Json* inner, Member(cfg, "layer", c.name));
  std::string cls = Get<std::string>(*inner, "class_name", "");
  GRT_ASSIGN_OR_RETURN(const Json* inner_cfg, Member(*inner, "config", c.name));
  GRT_ASSIGN_OR_RETURN(RnnSpec fwd, ReadRnn(cls, *inner_cfg, x.shape, c.weights, c.name));
  // A backward_layer of its own (any recurrent class) runs as configured; otherwise the
  // backward direction is the forward layer's config, reversed.
  std::string back_cls = cls;
  const Json* back_cfg = inner_cfg;
  auto backward = cfg.find("backward_layer");
  bool own_backward = backward != cfg.end() && !backward->is_null();
  if (own_backward) {
    back_cls = Get<std::string>(*backward, "class_name", "");
    GRT_ASSIGN_OR_RETURN(back_cfg, Member(*backward, "config", c.name));
  }
  GRT_ASSIGN_OR_RETURN(RnnSpec bwd, ReadRnn(back_cls, *back_cfg, x.shape, c.weights, c.name));
  if (!own_backward) bwd.go_backwards = !fwd.go_backwards;
  // Keras's Bidirectional makes both directions output zeros at masked steps of sequences.
  fwd.zero_output_for_mask = fwd.return_sequences;
  bwd.zero_output_for_mask = bwd.return_sequences;
  std::vector<Value> fstates, bstates;
  size_t n_states = c.inputs.size() - 1;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    (i - 1 < n_states / 2 ? fstates : bstates).push_back(c.inputs[i]);
  }
  std::vector<Value> fo, bo;
  GRT_RETURN_IF_ERROR(RunRnn(emit, c.scope + "/forward", fwd, x, fstates, c.name, &fo));
  GRT_RETURN_IF_ERROR(RunRnn(emit, c.scope + "/backward", bwd, x, bstates, c.name, &bo));
  Value b = bo[0];
  if (fwd.return_sequences) {
    NodeDef* rev = emit.Add("ReverseV2", c.scope + "/ReverseV2",
                            {b.tensor, emit.Ints(c.scope + "/rev_axis", {1})});
    SetNodeAttr(rev, "T", kFloat);
    SetNodeAttr(rev, "Tidx", kInt32);
    b.tensor = rev->name();
  }
  std::string mode = Get<std::string>(cfg, "merge_mode", "concat");
  if (cfg.contains("merge_mode") && cfg["merge_mode"].is_null()) mode = "";
  const Value& f = fo[0];
  if (mode == "concat") {
    Shape s = f.shape;
    s.back() = f.shape.back() + b.shape.back();
    out->push_back(Value{emit.Concat(c.scope + "/concat", {f.tensor, b.tensor}, f.rank() - 1), s});
  } else if (mode == "sum") {
    out->push_back(Value{emit.Binary("AddV2", c.scope + "/add", f.tensor, b.tensor), f.shape});
  } else if (mode == "mul") {
    out->push_back(Value{emit.Binary("Mul", c.scope + "/mul", f.tensor, b.tensor), f.shape});
  } else if (mode == "ave") {
    std::string s = emit.Binary("AddV2", c.scope + "/add", f.tensor, b.tensor);
    out->push_back(Value{
        emit.Binary("Mul", c.scope + "/mul", s, emit.Float(c.scope + "/half", 0.5f)), f.shape});
  } else if (mode.empty()) {
    out->push_back(f);
    out->push_back(b);
  } else {
    return Unimplemented("Bidirectional merge_mode '", mode, "'");
  }
  if (fwd.return_sequences) (*out)[0].mask = x.mask;
  for (size_t i = 1; i < fo.size(); ++i) out->push_back(fo[i]);
  for (size_t i = 1; i < bo.size(); ++i) out->push_back(bo[i]);
  return Status::OK();
}

}  // namespace internal
}  // namespace keras
}  // namespace graphrt
