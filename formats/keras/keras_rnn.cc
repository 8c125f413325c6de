// Recurrent layers (SimpleRNN, LSTM, GRU, and Bidirectional around them) as TensorFlow v1
// while loops over the time axis, so the time length may vary from run to run.
#include "formats/keras/keras_builder_internal.h"

#include <algorithm>
#include <set>

#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace internal {

using ::tensorflow::NodeDef;

namespace {

struct RnnCellSpec {
  std::string kind;  // SimpleRNN, LSTM, GRU
  int64_t units = 0;
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  bool reset_after = false;
  bool go_backwards = false;
  bool return_sequences = false;
  bool return_state = false;
  bool stateful = false;
  bool zero_output_for_mask = false;  // masked steps output zeros, not the previous output
  Tensor kernel, recurrent_kernel, bias;
  int num_states() const { return kind == "LSTM" ? 2 : 1; }
};

StatusOr<RnnCellSpec> ReadCell(const std::string& class_name, const Json& cfg, int64_t input_dim,
                               WeightCursor* weights, const std::string& layer) {
  RnnCellSpec cell;
  cell.kind = class_name == "CuDNNLSTM" ? "LSTM" : class_name == "CuDNNGRU" ? "GRU" : class_name;
  const Json& c = cfg.contains("cell") && cfg["cell"].is_object() && cfg["cell"].contains("config")
                      ? cfg["cell"]["config"]
                      : cfg;
  cell.units = Get<int64_t>(c, "units", Get<int64_t>(cfg, "units", -1));
  cell.activation = ActivationName(c, "activation", "tanh");
  cell.recurrent_activation =
      ActivationName(c, "recurrent_activation", cell.kind == "SimpleRNN" ? "" : "sigmoid");
  cell.use_bias = Get<bool>(c, "use_bias", true);
  cell.reset_after = Get<bool>(c, "reset_after", false);
  cell.go_backwards = Get<bool>(cfg, "go_backwards", false);
  cell.return_sequences = Get<bool>(cfg, "return_sequences", false);
  cell.return_state = Get<bool>(cfg, "return_state", false);
  cell.stateful = Get<bool>(cfg, "stateful", false);
  cell.zero_output_for_mask = Get<bool>(cfg, "zero_output_for_mask", false);
  if (Get<bool>(cfg, "time_major", false)) return Unimplemented("time_major recurrent layers");
  if (class_name.rfind("CuDNN", 0) == 0) {
    return Unimplemented("layer '", layer, "': ", class_name, " weights (CuDNN layout)");
  }
  int gates = cell.kind == "LSTM" ? 4 : cell.kind == "GRU" ? 3 : 1;
  int64_t u = cell.units;
  GRT_ASSIGN_OR_RETURN(cell.kernel, weights->Next("kernel", {input_dim, gates * u}));
  GRT_ASSIGN_OR_RETURN(cell.recurrent_kernel, weights->Next("recurrent_kernel", {u, gates * u}));
  if (cell.use_bias) {
    Shape bshape = cell.kind == "GRU" && cell.reset_after ? Shape{2, 3 * u} : Shape{gates * u};
    GRT_ASSIGN_OR_RETURN(cell.bias, weights->Next("bias", bshape));
  }
  return cell;
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
  auto split = [&](const std::string& name, const std::string& v, int n) {
    NodeDef* s = emit.Add("Split", name, {emit.Int(name + "/split_dim", 1), v});
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
  if (cell.kind == "LSTM") {
    std::string z = emit.MatMul(p + "/MatMul", x, kernel);
    z = emit.Binary("AddV2", p + "/add", z, emit.MatMul(p + "/MatMul_1", h, recurrent));
    if (cell.use_bias) z = emit.BiasAdd(p + "/BiasAdd", z, bias);
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

// A TensorFlow v1 while loop over the time axis of x [batch, time, features]:
//   outputs: the sequence [batch, time, units] (return_sequences) or the last output, then
//   the final states (return_state).
Status EmitRnn(Emitter& emit, const std::string& scope, const RnnCellSpec& cell, const Value& x,
               std::vector<std::string> initial_states, std::vector<Value>* outputs) {
  if (x.rank() != 3) return InvalidArgument("recurrent input of rank ", x.rank(), ", expected 3");
  // Checked now so that the step builder cannot fail half-way through the loop.
  static const std::set<std::string> kKnown = {
      "tanh",     "sigmoid", "hard_sigmoid", "relu", "linear",      "elu",   "selu", "softplus",
      "softsign", "swish",   "silu",         "gelu", "exponential", "relu6", "mish"};
  // Keras 3's (keras3_config.cc renames its hard_sigmoid).
  static const std::set<std::string> kKeras3 = {"keras3_hard_sigmoid", "hard_silu", "hard_swish"};
  for (const std::string& a : {cell.activation, cell.recurrent_activation}) {
    if (!a.empty() && kKnown.count(a) == 0 && kKeras3.count(a) == 0) {
      return Unimplemented("activation '", a, "' in a recurrent cell");
    }
  }
  const std::string p = scope;
  const std::string frame = p + "/while/";
  const int64_t u = cell.units;
  std::string xt = emit.Transpose(p + "/transpose", ToFloat(emit, p, x), {1, 0, 2});
  if (cell.go_backwards) {
    NodeDef* rev = emit.Add("ReverseV2", p + "/ReverseV2", {xt, emit.Ints(p + "/rev_axis", {0})});
    SetNodeAttr(rev, "T", kFloat);
    SetNodeAttr(rev, "Tidx", kInt32);
    xt = rev->name();
  }
  std::string shape = emit.ShapeOf(p + "/Shape", xt);
  std::string steps = emit.Element(p + "/time_steps", shape, 0);
  std::string batch = emit.Element(p + "/batch_size", shape, 1);
  // A stateful layer keeps its final states in variables; a run starts from them (or from the
  // initial states it is given) and leaves its final states there.
  std::vector<std::string> state_vars;
  if (cell.stateful) {
    if (x.shape.empty() || x.shape[0] < 0) {
      return InvalidArgument("stateful recurrent layer without a fixed batch size");
    }
    Tensor zeros(kFloat, TensorShape({x.shape[0], u}));
    std::fill(zeros.data<float>(), zeros.data<float>() + zeros.NumElements(), 0.0f);
    std::vector<std::string> reads;
    for (int i = 0; i < cell.num_states(); ++i) {
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
        NodeDef* ne = emit.Add("NotEqual", StrCat(p, "/states_", i, "/NotEqual"),
                               {reads[i], emit.Float(StrCat(p, "/states_", i, "/zero"), 0.0f)});
        SetNodeAttr(ne, "T", kFloat);
        SetNodeAttr(ne, "incompatible_shape_error", true);
        NodeDef* a = emit.Add("Any", StrCat(p, "/states_", i, "/Any"),
                              {ne->name(), emit.Ints(StrCat(p, "/states_", i, "/axes"), {0, 1})});
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
    std::string dims = emit.Pack(p + "/zeros/shape",
                                 {batch, emit.Int(p + "/units", static_cast<int32_t>(u))}, kInt32);
    NodeDef* fill = emit.Add("Fill", p + "/zeros", {dims, emit.Float(p + "/zeros/value", 0.0f)});
    SetNodeAttr(fill, "T", kFloat);
    SetNodeAttr(fill, "index_type", kInt32);
    for (int i = 0; i < cell.num_states(); ++i) initial_states.push_back(fill->name());
  }
  if (static_cast<int>(initial_states.size()) != cell.num_states()) {
    return InvalidArgument("recurrent layer given ", initial_states.size(),
                           " initial states; its cell has ", cell.num_states());
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
  std::string kernel = enter("kernel", emit.Weight(p + "/kernel", cell.kernel), true);
  std::string recurrent;
  if (cell.kind == "GRU" && !cell.reset_after) {
    // Split U into its z|r columns and its h columns.
    Tensor zr(kFloat, TensorShape({u, 2 * u})), hpart(kFloat, TensorShape({u, u}));
    const float* src = cell.recurrent_kernel.data<float>();
    for (int64_t i = 0; i < u; ++i) {
      for (int64_t j = 0; j < 2 * u; ++j) zr.data<float>()[i * 2 * u + j] = src[i * 3 * u + j];
      for (int64_t j = 0; j < u; ++j) hpart.data<float>()[i * u + j] = src[i * 3 * u + 2 * u + j];
    }
    recurrent = enter("recurrent_kernel_zr", emit.Weight(p + "/recurrent_kernel_zr", zr), true) +
                "|" +
                enter("recurrent_kernel_h", emit.Weight(p + "/recurrent_kernel_h", hpart), true);
  } else {
    recurrent = enter("recurrent_kernel",
                      emit.Weight(p + "/recurrent_kernel", cell.recurrent_kernel), true);
  }
  std::string bias;
  if (cell.use_bias) {
    if (cell.kind == "GRU" && cell.reset_after) {
      Tensor in(kFloat, TensorShape({3 * u})), rec(kFloat, TensorShape({3 * u}));
      const float* src = cell.bias.data<float>();
      std::copy(src, src + 3 * u, in.data<float>());
      std::copy(src + 3 * u, src + 6 * u, rec.data<float>());
      bias = enter("input_bias", emit.Weight(p + "/input_bias", in), true) + "|" +
             enter("recurrent_bias", emit.Weight(p + "/recurrent_bias", rec), true);
    } else {
      bias = enter("bias", emit.Weight(p + "/bias", cell.bias), true);
    }
  }
  std::string x_in = enter("input", xt, true);
  // A mask [batch, time] goes time-major (and backwards with the input).
  std::string mask_in;
  if (!x.mask.empty()) {
    std::string mt = emit.Transpose(p + "/mask_transpose", x.mask, {1, 0}, ::tensorflow::DT_BOOL);
    if (cell.go_backwards) {
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
  if (cell.return_sequences) {
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
  if (cell.return_sequences) {
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
  std::vector<std::string> states(body.begin() + 1, body.begin() + 1 + cell.num_states());
  std::vector<std::string> new_states;
  std::string y = CellStep(emit, frame + "cell", cell, gather->name(), states, kernel, recurrent,
                           bias, &new_states);
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
    std::string prev = states[0];
    for (size_t i = 0; i < new_states.size(); ++i) {
      new_states[i] = select(StrCat(frame, "masked_state_", i), new_states[i], states[i]);
    }
    y = select(frame + "masked_output", y,
               cell.zero_output_for_mask ? emit.Unary("ZerosLike", frame + "zeros", y) : prev);
  }
  std::vector<std::string> next_values = {
      emit.Binary("AddV2", frame + "time_next", body[0], emit.Int(frame + "one", 1), kInt32)};
  for (const std::string& s : new_states) next_values.push_back(s);
  if (cell.return_sequences) {
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
  Value main;
  if (cell.return_sequences) {
    NodeDef* range =
        emit.Add("Range", p + "/range",
                 {emit.Int(p + "/range/start", 0), steps, emit.Int(p + "/range/delta", 1)});
    SetNodeAttr(range, "Tidx", kInt32);
    NodeDef* g = emit.Add("TensorArrayGatherV3", p + "/TensorArrayGather",
                          {ta_handle, range->name(), exits.back()});
    SetNodeAttr(g, "dtype", kFloat);
    SetNodeAttr(g, "element_shape", PartialTensorShape());
    main.tensor = after_store(emit.Transpose(p + "/transpose_1", g->name(), {1, 0, 2}));
    main.shape = {x.shape[0], x.shape[1], u};
    main.mask = x.mask;
  } else {
    main.tensor = after_store(exits[1]);
    main.shape = {x.shape[0], u};
  }
  outputs->push_back(main);
  if (cell.return_state) {
    for (int i = 0; i < cell.num_states(); ++i) {
      outputs->push_back(Value{after_store(exits[1 + i]), {x.shape[0], u}});
    }
  }
  return Status::OK();
}

}  // namespace

Status Recurrent(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Value& x = c.inputs[0];
  GRT_ASSIGN_OR_RETURN(RnnCellSpec cell,
                       ReadCell(c.class_name, *c.config, x.shape.back(), c.weights, c.name));
  std::vector<std::string> states;
  for (size_t i = 1; i < c.inputs.size(); ++i) states.push_back(c.inputs[i].tensor);
  return EmitRnn(emit, c.scope, cell, x, states, out);
}

Status BidirectionalLayer(LayerCall& c, std::vector<Value>* out) {
  Emitter& emit = *c.emit;
  const Json& cfg = *c.config;
  GRT_ASSIGN_OR_RETURN(const Json* inner, Member(cfg, "layer", c.name));
  std::string cls = Get<std::string>(*inner, "class_name", "");
  if (cls != "LSTM" && cls != "GRU" && cls != "SimpleRNN") {
    return Unimplemented("Bidirectional around ", cls);
  }
  const Value& x = c.inputs[0];
  GRT_ASSIGN_OR_RETURN(const Json* inner_cfg, Member(*inner, "config", c.name));
  GRT_ASSIGN_OR_RETURN(RnnCellSpec fwd,
                       ReadCell(cls, *inner_cfg, x.shape.back(), c.weights, c.name));
  const Json* back_cfg = inner_cfg;
  if (cfg.contains("backward_layer")) {
    GRT_ASSIGN_OR_RETURN(const Json* backward, Member(cfg, "backward_layer", c.name));
    GRT_ASSIGN_OR_RETURN(back_cfg, Member(*backward, "config", c.name));
  }
  GRT_ASSIGN_OR_RETURN(RnnCellSpec bwd,
                       ReadCell(cls, *back_cfg, x.shape.back(), c.weights, c.name));
  if (!cfg.contains("backward_layer")) bwd.go_backwards = !fwd.go_backwards;
  // Keras's Bidirectional makes both directions output zeros at masked steps of sequences.
  fwd.zero_output_for_mask = fwd.return_sequences;
  bwd.zero_output_for_mask = bwd.return_sequences;
  std::vector<std::string> fstates, bstates;
  size_t n_states = c.inputs.size() - 1;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    (i - 1 < n_states / 2 ? fstates : bstates).push_back(c.inputs[i].tensor);
  }
  std::vector<Value> fo, bo;
  GRT_RETURN_IF_ERROR(EmitRnn(emit, c.scope + "/forward", fwd, x, fstates, &fo));
  GRT_RETURN_IF_ERROR(EmitRnn(emit, c.scope + "/backward", bwd, x, bstates, &bo));
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
