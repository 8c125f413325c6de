// graphrt inspect PATH [--json]: what is inside a model file.
#include <iostream>
#include <map>
#include <set>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/model.h"
#include "formats/graph_def.h"
#include "runtime/core/attr_util.h"
#include "runtime/core/str_util.h"
#include "runtime/graph/graph.h"

namespace graphrt {
namespace cli {

namespace po = boost::program_options;

namespace {

struct GraphSummary {
  std::map<std::string, int> op_histogram;
  struct Placeholder {
    std::string name, dtype, shape;
  };
  std::vector<Placeholder> placeholders;
  std::vector<std::string> sinks;
  std::map<std::string, int> devices;  // requested device -> node count
  int num_nodes = 0;
  int num_functions = 0;
  int producer = 0;
};

StatusOr<GraphSummary> Summarize(const GraphDef& graph) {
  GraphSummary s;
  s.num_nodes = graph.node_size();
  s.num_functions = graph.library().function_size();
  s.producer = graph.versions().producer();
  std::set<std::string> consumed;
  for (const auto& node : graph.node()) {
    for (const std::string& input : node.input()) {
      StatusOr<TensorId> id = ParseTensorName(input);
      if (id.ok()) consumed.insert(id->node);
    }
  }
  for (const auto& node : graph.node()) {
    s.op_histogram[node.op()]++;
    if (!node.device().empty()) s.devices[node.device()]++;
    if (consumed.count(node.name()) == 0) s.sinks.push_back(node.name());
    if (node.op() == "Placeholder" || node.op() == "PlaceholderV2" ||
        node.op() == "PlaceholderWithDefault") {
      DataType dtype = ::tensorflow::DT_INVALID;
      GetNodeAttrOr(node, "dtype", &dtype).IgnoreError();
      PartialTensorShape shape;
      GetNodeAttrOr(node, "shape", &shape).IgnoreError();
      s.placeholders.push_back({node.name(), CliDtypeName(dtype), shape.DebugString()});
    }
  }
  return s;
}

int InspectGraphDef(const std::string& path, bool json) {
  GraphDef graph;
  Status st = ReadGraphDef(path, &graph);
  if (!st.ok()) return ReportError(st);
  StatusOr<GraphSummary> s = Summarize(graph);
  if (!s.ok()) return ReportError(s.status());
  if (json) {
    std::vector<std::string> ops, phs, sinks, devices;
    for (const auto& [op, n] : s->op_histogram) ops.push_back(StrCat(JsonString(op), ": ", n));
    for (const auto& p : s->placeholders) {
      phs.push_back(StrCat("{\"name\": ", JsonString(p.name), ", \"dtype\": ",
                           JsonString(p.dtype), ", \"shape\": ", JsonString(p.shape), "}"));
    }
    for (const auto& n : s->sinks) sinks.push_back(JsonString(n));
    for (const auto& [d, n] : s->devices) devices.push_back(StrCat(JsonString(d), ": ", n));
    std::cout << "{\"kind\": \"GraphDef\", \"path\": " << JsonString(path)
              << ", \"nodes\": " << s->num_nodes << ", \"functions\": " << s->num_functions
              << ", \"producer\": " << s->producer << ", \"ops\": {" << StrJoin(ops, ", ")
              << "}, \"placeholders\": [" << StrJoin(phs, ", ") << "], \"sinks\": ["
              << StrJoin(sinks, ", ") << "], \"requested_devices\": {" << StrJoin(devices, ", ")
              << "}}" << std::endl;
    return kExitOk;
  }
  std::cout << "GraphDef " << path << ": " << s->num_nodes << " nodes, " << s->num_functions
            << " functions, producer " << s->producer << "\n";
  std::cout << "ops:\n";
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [op, n] : s->op_histogram) by_count.emplace_back(-n, op);
  std::sort(by_count.begin(), by_count.end());
  for (const auto& [n, op] : by_count) std::cout << "  " << op << ": " << -n << "\n";
  std::cout << "placeholders:\n";
  for (const auto& p : s->placeholders) {
    std::cout << "  " << p.name << ": " << p.dtype << p.shape << "\n";
  }
  std::cout << "sinks:\n";
  for (const auto& n : s->sinks) std::cout << "  " << n << "\n";
  std::cout << "requested devices:" << (s->devices.empty() ? " (none)" : "") << "\n";
  for (const auto& [d, n] : s->devices) std::cout << "  " << d << ": " << n << " nodes\n";
  std::cout.flush();
  return kExitOk;
}

}  // namespace

int InspectCommand(int argc, char** argv) {
  po::options_description desc("graphrt inspect PATH [--json]");
  desc.add_options()
      ("help,h", "describe this command")
      ("path", po::value<std::string>(), "a GraphDef")
      ("json", po::bool_switch(), "print one JSON document")
      ("verify", po::bool_switch(), "check every checksum (checkpoints, SavedModels)");
  po::positional_options_description positional;
  positional.add("path", 1);
  po::variables_map vm;
  Status s = ParseArgs(argc, argv, desc, positional, &vm);
  if (!s.ok()) return ReportError(s.message());
  if (vm.count("help")) {
    std::cout << desc << std::endl;
    return kExitOk;
  }
  if (!vm.count("path")) return ReportError("inspect needs a PATH (see graphrt inspect --help)");
  const std::string path = vm["path"].as<std::string>();
  StatusOr<ModelKind> kind = ClassifyModelPath(path);
  if (!kind.ok()) return ReportError(kind.status());
  if (*kind != ModelKind::kGraphDef) {
    return ReportError(Unimplemented("inspecting this kind of artefact is not supported by this "
                                     "build yet: ", path));
  }
  return InspectGraphDef(path, vm["json"].as<bool>());
}

}  // namespace cli
}  // namespace graphrt
