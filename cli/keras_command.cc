// Keras subcommands: `graphrt convert MODEL.h5 OUT_DIR` (a SavedModel TensorFlow loads) and
// the Keras part of `graphrt inspect`.
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "runtime/core/str_util.h"
#include "formats/file_util.h"
#include "formats/keras/zip_archive.h"
#include "runtime/session/keras_model.h"
#include "migrate/keras_weights.h"

namespace graphrt {
namespace cli {

namespace po = boost::program_options;

namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(d < 0 ? "None" : std::to_string(d));
  return "(" + StrJoin(dims, ", ") + (dims.size() == 1 ? ",)" : ")");
}

nlohmann::json ShapeJson(const std::vector<int64_t>& shape) {
  nlohmann::json dims = nlohmann::json::array();
  for (int64_t d : shape) dims.push_back(d < 0 ? nlohmann::json() : nlohmann::json(d));
  return dims;
}

}  // namespace

int InspectKeras(const std::string& path, const std::string& config, bool json) {
  KerasModelOptions options;
  options.config_path = config;
  // A crafted .h5 can crash libhdf5: the command reads every .h5 in a child process.
  options.read_hdf5_in_subprocess = true;
  keras::KerasH5File file;
  StatusOr<keras::KerasGraph> graph = BuildKerasModelGraph(path, options, &file);
  if (!graph.ok()) return ReportError(graph.status());
  if (json) {
    nlohmann::json doc;
    doc["format"] = file.layout == keras::KerasWeightsLayout::kLegacyH5 ? "keras_h5"
                    : keras::LooksLikeZip(path)                         ? "keras_archive"
                                                                        : "keras3_weights_h5";
    doc["keras_version"] = file.keras_version;
    doc["backend"] = file.backend;
    doc["model_class"] = graph->model_class;
    doc["weights_only"] = file.model_config.empty();
    doc["has_training_config"] = !file.training_config.empty();
    doc["has_optimizer_weights"] = file.has_optimizer_weights;
    for (const auto* list : {&graph->inputs, &graph->outputs}) {
      nlohmann::json items = nlohmann::json::array();
      for (const keras::KerasTensorInfo& t : *list) {
        items.push_back({{"name", t.name},
                         {"tensor", t.tensor},
                         {"dtype", CliDtypeName(t.dtype)},
                         {"shape", ShapeJson(t.shape)}});
      }
      doc[list == &graph->inputs ? "inputs" : "outputs"] = items;
    }
    nlohmann::json layers = nlohmann::json::array();
    for (const keras::KerasLayerInfo& l : graph->layers) {
      nlohmann::json shapes = nlohmann::json::array(), weights = nlohmann::json::array();
      for (const auto& s : l.output_shapes) shapes.push_back(ShapeJson(s));
      for (const auto& [name, shape] : l.weights) {
        weights.push_back({{"name", name}, {"shape", ShapeJson(shape)}});
      }
      layers.push_back({{"name", l.name},
                        {"class_name", l.class_name},
                        {"output_shapes", shapes},
                        {"weights", weights}});
    }
    doc["layers"] = layers;
    std::cout << doc.dump(1) << std::endl;
    return kExitOk;
  }
  std::cout << (keras::LooksLikeZip(path) ? "Keras archive (.keras): " : "Keras model: ") << path
            << "\n";
  std::cout << "  keras_version: " << file.keras_version << ", backend: " << file.backend
            << ", class: " << graph->model_class
            << (file.model_config.empty() ? " (weights-only file)" : "") << "\n";
  if (!file.training_config.empty() || file.has_optimizer_weights) {
    std::cout << "  training_config: " << (file.training_config.empty() ? "no" : "yes")
              << ", optimizer_weights: " << (file.has_optimizer_weights ? "yes" : "no")
              << " (not needed to run)\n";
  }
  std::cout << "layers:\n";
  int64_t total = 0;
  for (const keras::KerasLayerInfo& l : graph->layers) {
    std::vector<std::string> shapes;
    for (const auto& s : l.output_shapes) shapes.push_back(ShapeText(s));
    std::cout << "  " << l.name << " (" << l.class_name << ") -> " << StrJoin(shapes, ", ") << "\n";
    for (const auto& [name, shape] : l.weights) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      total += n;
      std::cout << "      " << name << " " << ShapeText(shape) << "\n";
    }
  }
  std::cout << "weights: " << total << " values\n";
  for (const auto* list : {&graph->inputs, &graph->outputs}) {
    std::cout << (list == &graph->inputs ? "inputs:\n" : "outputs:\n");
    for (const keras::KerasTensorInfo& t : *list) {
      std::cout << "  " << t.name << ": " << CliDtypeName(t.dtype) << ShapeText(t.shape)
                << " (tensor " << t.tensor << ")\n";
    }
  }
  return kExitOk;
}

int ConvertCommand(int argc, char** argv) {
  po::options_description desc("graphrt convert MODEL.h5 OUT_DIR [--keras-config FILE.json]");
  desc.add_options()("help,h", "describe this command")(
      "model", po::value<std::string>(), "a Keras .h5 or .keras model (or weights-only file)")(
      "out", po::value<std::string>(), "the SavedModel folder to write (must not exist)")(
      "keras-config", po::value<std::string>(),
      "architecture JSON (model.to_json(), or a .keras archive's config.json) for a weights-only "
      ".h5 or Keras 3 .weights.h5");
  po::positional_options_description positional;
  positional.add("model", 1).add("out", 1);
  po::variables_map vm;
  if (std::optional<int> done = ParseCommandLine(
          argc, argv, desc, positional, {"model", "out"},
          "convert needs MODEL.h5 and OUT_DIR (see graphrt convert --help)", &vm)) {
    return *done;
  }
  KerasModelOptions options;
  options.read_hdf5_in_subprocess = true;
  if (vm.count("keras-config")) options.config_path = vm["keras-config"].as<std::string>();
  const std::string out = vm["out"].as<std::string>();
  Status s = ExportKerasSavedModel(vm["model"].as<std::string>(), options, out);
  if (!s.ok()) return ReportError(s);
  std::cout << "wrote SavedModel " << out << " (tag serve, signature serving_default)\n";
  return kExitOk;
}

int LoadWeightsCommand(int argc, char** argv) {
  po::options_description desc(
      "graphrt load-weights MODEL WEIGHTS.h5 -o OUT [--name-map FILE.json] [--checkpoint PREFIX]");
  desc.add_options()("help,h", "describe this command")("model", po::value<std::string>(),
                                                        "a SavedModel folder or a .meta graph")(
      "weights", po::value<std::string>(), "a Keras .h5 (full model or save_weights)")(
      "output,o", po::value<std::string>(),
      "OUT: a new SavedModel folder (for a SavedModel) or a checkpoint prefix (for a .meta)")(
      "name-map", po::value<std::string>(),
      "JSON object: Keras weight name (or prefix ending in /) -> variable name (or prefix)")(
      "checkpoint", po::value<std::string>(),
      "for a .meta: the checkpoint holding variables the .h5 does not cover")(
      "keras-config", po::value<std::string>(),
      "architecture JSON for a Keras 3 .weights.h5 (its weights are named after it)")(
      "json", po::bool_switch(), "print one JSON document");
  po::positional_options_description positional;
  positional.add("model", 1).add("weights", 1);
  po::variables_map vm;
  if (std::optional<int> done =
          ParseCommandLine(argc, argv, desc, positional, {"model", "weights", "output"},
                           "load-weights needs MODEL, WEIGHTS.h5 and -o OUT (see --help)", &vm)) {
    return *done;
  }
  LoadWeightsOptions options;
  options.read_hdf5_in_subprocess = true;
  if (vm.count("checkpoint")) options.checkpoint = vm["checkpoint"].as<std::string>();
  if (vm.count("keras-config")) options.keras_config = vm["keras-config"].as<std::string>();
  if (vm.count("name-map")) {
    const std::string path = vm["name-map"].as<std::string>();
    StatusOr<std::string> text = ReadFileToString(path);
    if (!text.ok()) return ReportError(text.status());
    nlohmann::json map = nlohmann::json::parse(*text, nullptr, false);
    if (!map.is_object()) return ReportError("--name-map is not a JSON object: " + path);
    for (const auto& [k, v] : map.items()) {
      if (!v.is_string()) return ReportError("--name-map value for '" + k + "' is not a string");
      options.name_map[k] = v.get<std::string>();
    }
  }
  LoadWeightsReport report;
  Status s =
      LoadKerasWeightsIntoGraph(vm["model"].as<std::string>(), vm["weights"].as<std::string>(),
                                vm["output"].as<std::string>(), options, &report);
  if (!s.ok()) return ReportError(s);
  if (vm["json"].as<bool>()) {
    nlohmann::json doc;
    doc["assigned"] = nlohmann::json::object();
    for (const auto& [k, v] : report.assigned) doc["assigned"][k] = v;
    doc["unmatched_keras"] = report.unmatched_keras;
    doc["unmatched_variables"] = report.unmatched_variables;
    std::cout << doc.dump(1) << std::endl;
    return kExitOk;
  }
  std::cout << "assigned " << report.assigned.size() << " variables\n";
  for (const auto& [k, v] : report.assigned) std::cout << "  " << k << " -> " << v << "\n";
  std::cout << "Keras weights no variable takes: "
            << (report.unmatched_keras.empty() ? "(none)" : StrJoin(report.unmatched_keras, ", "))
            << "\n";
  std::cout << "variables kept as they were: "
            << (report.unmatched_variables.empty() ? "(none)"
                                                   : StrJoin(report.unmatched_variables, ", "))
            << "\n";
  return kExitOk;
}

}  // namespace cli
}  // namespace graphrt
