// graphrt run MODEL --input NAME=VALUE ... --output NAME ... [--out-dir DIR] [--json]
#include <fstream>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/model.h"
#include "formats/example_json.h"
#include "formats/file_util.h"
#include "formats/npy.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace cli {

namespace po = boost::program_options;

namespace {

// A Chrome trace (chrome://tracing, Perfetto) of one traced run.
std::string ChromeTrace(const ::tensorflow::StepStats& stats) {
  std::vector<std::string> events;
  int pid = 0;
  for (const auto& dev : stats.dev_stats()) {
    events.push_back(StrCat("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": ", pid,
                            ", \"args\": {\"name\": ", JsonString(dev.device()), "}}"));
    for (const auto& ns : dev.node_stats()) {
      events.push_back(StrCat("{\"name\": ", JsonString(ns.node_name()),
                              ", \"cat\": \"Op\", \"ph\": \"X\", \"pid\": ", pid, ", \"tid\": ",
                              ns.thread_id() % 100000, ", \"ts\": ", ns.all_start_micros(),
                              ", \"dur\": ", ns.all_end_rel_micros(),
                              ", \"args\": {\"label\": ", JsonString(ns.timeline_label()), "}}"));
    }
    ++pid;
  }
  return StrCat("{\"traceEvents\": [", StrJoin(events, ",\n"), "]}\n");
}

// The signature input that takes serialized tf.Examples: the only string input, or among
// several the one keyed "inputs" (classify, regress) or "examples" (Estimator predict).
StatusOr<ModelInput> ExamplesInput(const LoadedModel& model) {
  std::vector<const ModelInput*> strings;
  for (const ModelInput& input : model.inputs) {
    if (input.dtype == ::tensorflow::DT_STRING) strings.push_back(&input);
  }
  if (strings.size() == 1) return *strings[0];
  for (const ModelInput* input : strings) {
    if (input->key == "inputs" || input->key == "examples") return *input;
  }
  std::vector<std::string> keys;
  for (const ModelInput* input : strings) keys.push_back(input->key);
  if (keys.empty()) {
    return InvalidArgument(
        "--example: the model has no string input to take serialized "
        "tf.Examples: ",
        model.path);
  }
  return InvalidArgument("--example: several string inputs (", StrJoin(keys, ", "),
                         "); use --input for all but one: ", model.path);
}

// The serialized Examples of --example (repeatable) and --examples FILE.jsonl, in order.
StatusOr<std::vector<std::string>> ExamplesFromFlags(const po::variables_map& vm) {
  std::vector<std::string> out;
  if (vm.count("example")) {
    int i = 0;
    for (const std::string& json : vm["example"].as<std::vector<std::string>>()) {
      GRT_ASSIGN_OR_RETURN(::tensorflow::Example e,
                           ExampleFromJson(json, StrCat("--example ", ++i)));
      out.push_back(e.SerializeAsString());
    }
  }
  if (vm.count("examples")) {
    GRT_ASSIGN_OR_RETURN(std::vector<std::string> more,
                         SerializedExamplesFromJsonLines(vm["examples"].as<std::string>()));
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace

int RunCommand(int argc, char** argv) {
  po::options_description desc(
      "graphrt run MODEL [--input NAME=VALUE]... [--output NAME]... [options]");
  desc.add_options()("help,h", "describe this command")(
      "model", po::value<std::string>(),
      "a frozen GraphDef (.pb, .pbtxt), a SavedModel folder, a MetaGraphDef (.meta) or a Keras "
      ".h5 or .keras")(
      "tag", po::value<std::vector<std::string>>()->composing(),
      "SavedModel tag (repeatable or comma-separated; the set must match; default serve)")(
      "signature", po::value<std::string>(), "SavedModel signature (default serving_default)")(
      "checkpoint", po::value<std::string>(), "checkpoint PREFIX to restore a .meta graph from")(
      "keras-config", po::value<std::string>(),
      "architecture JSON (model.to_json()) for a weights-only Keras .h5 or .weights.h5")(
      "input", po::value<std::vector<std::string>>()->composing(),
      "NAME=VALUE: inline value ([[1,2],[3,4]], 3, \"text\", true), a .npy file, or @FILE: "
      "FILE's raw bytes as one scalar string (--input wav_data=@clip.wav)")(
      "example", po::value<std::vector<std::string>>()->composing(),
      "a tf.Example as JSON ({\"x\": [2.0]}), repeatable: the batch for a signature "
      "taking serialized Examples")("examples", po::value<std::string>(),
                                    "FILE.jsonl: one tf.Example as JSON per line")(
      "output", po::value<std::vector<std::string>>()->composing(), "a tensor to fetch")(
      "out-dir", po::value<std::string>(), "also write each output as DIR/<name>.npy")(
      "json", po::bool_switch(), "print one JSON document instead of lines")(
      "summarize", po::value<int64_t>(), "print at most N values of each output")(
      "trace", po::value<std::string>(), "write a Chrome trace of the run to FILE.json");
  AddSessionFlags(&desc);
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  if (std::optional<int> done =
          ParseCommandLine(argc, argv, desc, positional, {"model"},
                           "run needs a MODEL path (see graphrt run --help)", &vm)) {
    return *done;
  }
  StatusOr<SessionFlags> flags = ReadSessionFlags(vm);
  if (!flags.ok()) return ReportError(flags.status());
  SessionOptions options;
  options.config = flags->config;
  const std::string path = vm["model"].as<std::string>();
  ModelFlags model_flags;
  if (vm.count("tag")) {
    model_flags.tags.clear();
    for (const std::string& tag : vm["tag"].as<std::vector<std::string>>()) {
      for (const std::string& t : StrSplit(tag, ',', /*skip_empty=*/true))
        model_flags.tags.push_back(t);
    }
  }
  if (vm.count("signature")) model_flags.signature = vm["signature"].as<std::string>();
  if (vm.count("checkpoint")) model_flags.checkpoint = vm["checkpoint"].as<std::string>();
  if (vm.count("keras-config")) model_flags.keras_config = vm["keras-config"].as<std::string>();
  StatusOr<LoadedModel> model = LoadModel(path, options, model_flags);
  if (!model.ok()) return ReportError(model.status());

  std::vector<std::pair<std::string, Tensor>> feeds;
  if (vm.count("input")) {
    for (const std::string& item : vm["input"].as<std::vector<std::string>>()) {
      std::string name, value;
      Status s = SplitAssignment(item, "--input", &name, &value);
      if (!s.ok()) return ReportError(s.message());
      StatusOr<ModelInput> input = FindInput(*model, name);
      if (!input.ok()) return ReportError(input.status());
      StatusOr<Tensor> tensor = ParseInputValue(name, value, input->dtype);
      if (!tensor.ok()) return ReportError(tensor.status());
      feeds.emplace_back(input->tensor, *tensor);
    }
  }
  if (vm.count("example") || vm.count("examples")) {
    StatusOr<std::vector<std::string>> examples = ExamplesFromFlags(vm);
    if (!examples.ok()) return ReportError(examples.status());
    StatusOr<ModelInput> input = ExamplesInput(*model);
    if (!input.ok()) return ReportError(input.status());
    feeds.emplace_back(input->tensor, Tensor::Vector<std::string>(*examples));
  }
  std::vector<std::string> outputs;
  if (vm.count("output")) outputs = vm["output"].as<std::vector<std::string>>();
  if (outputs.empty()) outputs = model->default_outputs;
  if (outputs.empty()) return ReportError("--output is required for a GraphDef: " + path);
  std::vector<std::string> fetches;
  for (const std::string& name : outputs) fetches.push_back(OutputTensor(*model, name));

  RunOptions run_options;
  RunMetadata metadata;
  if (vm.count("trace")) run_options.set_trace_level(RunOptions::FULL_TRACE);
  std::vector<Tensor> results;
  Status s = model->session->Run(run_options, feeds, fetches, {}, &results, &metadata);
  if (flags->log_placement && !flags->log_placement_file.empty()) {
    Status w = WriteStringToFile(flags->log_placement_file,
                                 model->session->GetPlacementReport().LogLines());
    if (!w.ok()) return ReportError(w);
  }
  if (!s.ok()) return ReportError(s);
  if (vm.count("trace")) {
    Status w = WriteStringToFile(vm["trace"].as<std::string>(), ChromeTrace(metadata.step_stats()));
    if (!w.ok()) return ReportError(w);
  }
  if (vm.count("out-dir")) {
    const std::string dir = vm["out-dir"].as<std::string>();
    if (!IsDirectory(dir)) return ReportError(StrCat("--out-dir is not a directory: ", dir));
    for (size_t i = 0; i < outputs.size(); ++i) {
      Status w = WriteNpy(dir + "/" + OutputFileName(outputs[i]), results[i]);
      if (!w.ok()) return ReportError(w);
    }
  }
  int64_t summarize = vm.count("summarize") ? vm["summarize"].as<int64_t>() : -1;
  if (vm["json"].as<bool>()) {
    std::vector<std::string> items;
    for (size_t i = 0; i < outputs.size(); ++i) {
      items.push_back(TensorJson(outputs[i], results[i], summarize));
    }
    std::string placement;
    if (flags->log_placement) {
      // With --log-placement, the placement report: every node, its device and why.
      std::vector<std::string> nodes;
      for (const PlacementDecision& d : model->session->GetPlacementReport().decisions()) {
        nodes.push_back(StrCat(
            "{\"node\": ", JsonString(d.node), ", \"op\": ", JsonString(d.op),
            ", \"requested\": ", JsonString(d.requested),
            ", \"assigned\": ", JsonString(d.assigned), ", \"reason\": ", JsonString(d.reason),
            d.precision.empty() ? std::string()
                                : StrCat(", \"precision\": ", JsonString(d.precision)),
            "}"));
      }
      placement = StrCat(", \"placement\": [", StrJoin(nodes, ", "), "]");
    }
    std::cout << "{\"outputs\": [" << StrJoin(items, ", ") << "]" << placement << "}" << std::endl;
  } else {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::cout << FormatTensorLine(outputs[i], results[i], summarize) << "\n";
    }
    std::cout.flush();
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace graphrt
