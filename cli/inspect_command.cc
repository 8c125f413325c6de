// graphrt inspect PATH [--json]: what is inside a model file.
#include <iostream>
#include <map>
#include <set>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/model.h"
#include "formats/graph_def.h"
#include "formats/file_util.h"
#include "formats/saved_model.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/checkpoint_state.h"
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
      GRT_RETURN_IF_ERROR(GetNodeAttrOr(node, "dtype", &dtype));
      PartialTensorShape shape;
      GRT_RETURN_IF_ERROR(PlaceholderShape(node, graph.versions().producer(), &shape));
      s.placeholders.push_back({node.name(), CliDtypeName(dtype), shape.DebugString()});
    }
  }
  return s;
}

// The GraphDef summary's fields of a JSON document (after its "kind" and "path").
std::string GraphJsonFields(const GraphSummary& s) {
  std::vector<std::string> ops, phs, sinks, devices;
  for (const auto& [op, n] : s.op_histogram) ops.push_back(StrCat(JsonString(op), ": ", n));
  for (const auto& p : s.placeholders) {
    phs.push_back(StrCat("{\"name\": ", JsonString(p.name), ", \"dtype\": ", JsonString(p.dtype),
                         ", \"shape\": ", JsonString(p.shape), "}"));
  }
  for (const auto& n : s.sinks) sinks.push_back(JsonString(n));
  for (const auto& [d, n] : s.devices) devices.push_back(StrCat(JsonString(d), ": ", n));
  return StrCat("\"nodes\": ", s.num_nodes, ", \"functions\": ", s.num_functions,
                ", \"producer\": ", s.producer, ", \"ops\": {", StrJoin(ops, ", "),
                "}, \"placeholders\": [", StrJoin(phs, ", "), "], \"sinks\": [",
                StrJoin(sinks, ", "), "], \"requested_devices\": {", StrJoin(devices, ", "), "}");
}

// The summary's ops (most frequent first), placeholders, sinks and requested devices.
void PrintGraphText(const GraphSummary& s) {
  std::cout << "ops:\n";
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [op, n] : s.op_histogram) by_count.emplace_back(-n, op);
  std::sort(by_count.begin(), by_count.end());
  for (const auto& [n, op] : by_count) std::cout << "  " << op << ": " << -n << "\n";
  std::cout << "placeholders:\n";
  for (const auto& p : s.placeholders) {
    std::cout << "  " << p.name << ": " << p.dtype << p.shape << "\n";
  }
  std::cout << "sinks:\n";
  for (const auto& n : s.sinks) std::cout << "  " << n << "\n";
  std::cout << "requested devices:" << (s.devices.empty() ? " (none)" : "") << "\n";
  for (const auto& [d, n] : s.devices) std::cout << "  " << d << ": " << n << " nodes\n";
  std::cout.flush();
}

int InspectGraphDef(const std::string& path, bool json) {
  GraphDef graph;
  Status st = ReadGraphDef(path, &graph);
  if (!st.ok()) return ReportError(st);
  StatusOr<GraphSummary> s = Summarize(graph);
  if (!s.ok()) {
    Status error = s.status();
    return ReportError(error.Prepend(path));
  }
  if (json) {
    std::cout << "{\"kind\": \"GraphDef\", \"path\": " << JsonString(path) << ", "
              << GraphJsonFields(*s) << "}" << std::endl;
    return kExitOk;
  }
  std::cout << "GraphDef " << path << ": " << s->num_nodes << " nodes, " << s->num_functions
            << " functions, producer " << s->producer << "\n";
  PrintGraphText(*s);
  return kExitOk;
}

std::string ShapeText(const ::tensorflow::TensorShapeProto& shape) {
  return PartialTensorShape::FromProto(shape).DebugString();
}

// A checkpoint: per tensor its dtype, shape, shard, bytes and slices; --verify checks every
// checksum (exit 1 naming the first failing file and tensor).
int InspectCheckpoint(std::string prefix, bool json, bool verify) {
  if (IsDirectory(prefix)) {
    StatusOr<std::string> latest = LatestCheckpoint(prefix);
    if (!latest.ok()) return ReportError(latest.status());
    prefix = *latest;
  }
  StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
  if (!reader.ok()) return ReportError(reader.status());
  std::vector<std::string> items;
  if (!json)
    std::cout << "checkpoint " << prefix << ": " << (*reader)->num_shards() << " shard(s)\n";
  for (const std::string& key : (*reader)->Keys()) {
    StatusOr<::tensorflow::BundleEntryProto> entry = (*reader)->Entry(key);
    if (!entry.ok()) return ReportError(entry.status());
    std::string dtype = CliDtypeName(entry->dtype());
    std::string shape = ShapeText(entry->shape());
    if (json) {
      items.push_back(StrCat("{\"name\": ", JsonString(key), ", \"dtype\": \"", dtype,
                             "\", \"shape\": ", JsonString(shape),
                             ", \"shard\": ", entry->shard_id(), ", \"bytes\": ", entry->size(),
                             ", \"slices\": ", entry->slices_size(), "}"));
    } else if (entry->slices_size() > 0) {
      std::cout << "  " << key << ": " << dtype << shape << " partitioned, " << entry->slices_size()
                << " slices\n";
    } else {
      std::cout << "  " << key << ": " << dtype << shape << " shard " << entry->shard_id() << ", "
                << entry->size() << " bytes\n";
    }
  }
  int code = kExitOk;
  std::string verdict;
  if (verify) {
    std::string failing;
    Status s = (*reader)->VerifyAll(&failing);
    if (!s.ok()) {
      ReportError(s);
      code = kExitDifference;
      verdict = StrCat("failed: ", s.ToString());
    } else {
      verdict = "all checksums verified";
    }
  }
  if (json) {
    std::cout << "{\"kind\": \"checkpoint\", \"prefix\": " << JsonString(prefix)
              << ", \"shards\": " << (*reader)->num_shards() << ", \"tensors\": ["
              << StrJoin(items, ", ") << "]"
              << (verify ? StrCat(", \"verify\": ", JsonString(verdict)) : "") << "}" << std::endl;
  } else if (verify) {
    std::cout << "verify: " << verdict << std::endl;
  }
  return code;
}

// Prints a meta graph's signatures (keys sorted) unless `json`; returns them as JSON objects.
std::vector<std::string> DescribeSignatures(const ::tensorflow::MetaGraphDef& mg, bool json) {
  std::vector<std::string> sigs;
  std::map<std::string, ::tensorflow::SignatureDef> sorted(mg.signature_def().begin(),
                                                           mg.signature_def().end());
  for (const auto& [key, sig] : sorted) {
    std::vector<std::string> ins, outs;
    if (!json) std::cout << "  signature_def['" << key << "'] (" << sig.method_name() << "):\n";
    for (const auto& [name, info] : sig.inputs()) {
      if (!json) {
        std::cout << "    input  " << name << ": " << info.name() << " "
                  << CliDtypeName(info.dtype()) << ShapeText(info.tensor_shape()) << "\n";
      }
      ins.push_back(StrCat("{\"key\": ", JsonString(name), ", \"name\": ", JsonString(info.name()),
                           ", \"dtype\": \"", CliDtypeName(info.dtype()),
                           "\", \"shape\": ", JsonString(ShapeText(info.tensor_shape())), "}"));
    }
    for (const auto& [name, info] : sig.outputs()) {
      if (!json) {
        std::cout << "    output " << name << ": " << info.name() << " "
                  << CliDtypeName(info.dtype()) << ShapeText(info.tensor_shape()) << "\n";
      }
      outs.push_back(StrCat("{\"key\": ", JsonString(name), ", \"name\": ", JsonString(info.name()),
                            ", \"dtype\": \"", CliDtypeName(info.dtype()),
                            "\", \"shape\": ", JsonString(ShapeText(info.tensor_shape())), "}"));
    }
    sigs.push_back(StrCat("{\"key\": ", JsonString(key),
                          ", \"method\": ", JsonString(sig.method_name()), ", \"inputs\": [",
                          StrJoin(ins, ", "), "], \"outputs\": [", StrJoin(outs, ", "), "]}"));
  }
  return sigs;
}

// How many items a collection holds, and of which list kind.
std::pair<const char*, int> CollectionItems(const ::tensorflow::CollectionDef& c) {
  switch (c.kind_case()) {
    case ::tensorflow::CollectionDef::kNodeList:
      return {"node_list", c.node_list().value_size()};
    case ::tensorflow::CollectionDef::kBytesList:
      return {"bytes_list", c.bytes_list().value_size()};
    case ::tensorflow::CollectionDef::kInt64List:
      return {"int64_list", c.int64_list().value_size()};
    case ::tensorflow::CollectionDef::kFloatList:
      return {"float_list", c.float_list().value_size()};
    case ::tensorflow::CollectionDef::kAnyList:
      return {"any_list", c.any_list().value_size()};
    default:
      return {"empty", 0};
  }
}

const char* SaverVersionName(int version) {
  switch (version) {
    case ::tensorflow::SaverDef::LEGACY:
      return "LEGACY";
    case ::tensorflow::SaverDef::V1:
      return "V1";
    case ::tensorflow::SaverDef::V2:
      return "V2";
    default:
      return "unknown";
  }
}

// A MetaGraphDef (.meta): what tf.compat.v1.train.import_meta_graph restores from it (the
// collections, the Saver, signatures if any), then its graph as for a GraphDef.
int InspectMetaGraph(const std::string& path, bool json) {
  ::tensorflow::MetaGraphDef meta;
  Status st = ReadBinaryOrTextProto(path, "MetaGraphDef", &meta);
  if (!st.ok()) return ReportError(st);
  StatusOr<GraphSummary> s = Summarize(meta.graph_def());
  if (!s.ok()) {
    Status error = s.status();
    return ReportError(error.Prepend(path));
  }
  const ::tensorflow::MetaGraphDef::MetaInfoDef& info = meta.meta_info_def();
  std::vector<std::string> tags(info.tags().begin(), info.tags().end());
  std::map<std::string, ::tensorflow::CollectionDef> collections(meta.collection_def().begin(),
                                                                 meta.collection_def().end());
  const ::tensorflow::SaverDef& saver = meta.saver_def();
  if (json) {
    std::vector<std::string> quoted, items;
    for (const auto& t : tags) quoted.push_back(JsonString(t));
    for (const auto& [key, c] : collections) {
      auto [kind, count] = CollectionItems(c);
      items.push_back(
          StrCat(JsonString(key), ": {\"kind\": \"", kind, "\", \"count\": ", count, "}"));
    }
    std::string saver_json = "null";
    if (meta.has_saver_def()) {
      saver_json = StrCat("{\"filename_tensor_name\": ", JsonString(saver.filename_tensor_name()),
                          ", \"save_tensor_name\": ", JsonString(saver.save_tensor_name()),
                          ", \"restore_op_name\": ", JsonString(saver.restore_op_name()),
                          ", \"max_to_keep\": ", saver.max_to_keep(),
                          ", \"sharded\": ", saver.sharded() ? "true" : "false",
                          ", \"version\": \"", SaverVersionName(saver.version()), "\"}");
    }
    std::vector<std::string> sigs = DescribeSignatures(meta, /*json=*/true);
    std::cout << "{\"kind\": \"MetaGraphDef\", \"path\": " << JsonString(path) << ", \"tags\": ["
              << StrJoin(quoted, ", ")
              << "], \"tensorflow_version\": " << JsonString(info.tensorflow_version())
              << ", \"saver\": " << saver_json << ", \"collections\": {" << StrJoin(items, ", ")
              << "}, \"signatures\": [" << StrJoin(sigs, ", ") << "], " << GraphJsonFields(*s)
              << "}" << std::endl;
    return kExitOk;
  }
  std::cout << "MetaGraphDef " << path << ": " << s->num_nodes << " nodes, " << s->num_functions
            << " functions, producer " << s->producer << "\n";
  std::cout << "tags: " << (tags.empty() ? "(none)" : StrJoin(tags, ", ")) << "\n";
  if (!info.tensorflow_version().empty()) {
    std::cout << "written by TensorFlow " << info.tensorflow_version() << "\n";
  }
  if (meta.has_saver_def()) {
    std::cout << "saver: " << SaverVersionName(saver.version()) << ", filename "
              << saver.filename_tensor_name() << ", save " << saver.save_tensor_name()
              << ", restore " << saver.restore_op_name() << ", max_to_keep " << saver.max_to_keep()
              << (saver.sharded() ? ", sharded" : "") << "\n";
  } else {
    std::cout << "saver: (none)\n";
  }
  std::cout << "collections:" << (collections.empty() ? " (none)" : "") << "\n";
  for (const auto& [key, c] : collections) {
    auto [kind, count] = CollectionItems(c);
    std::cout << "  " << key << ": " << count << " (" << kind << ")\n";
  }
  std::cout << "signatures:" << (meta.signature_def().empty() ? " (none)" : "") << "\n";
  DescribeSignatures(meta, /*json=*/false);
  PrintGraphText(*s);
  return kExitOk;
}

// A SavedModel: tag sets and signatures with keys, tensor names, dtypes and shapes.
int InspectSavedModel(const std::string& path, bool json, bool verify) {
  StatusOr<std::string> dir = ResolveSavedModelDir(path);
  if (!dir.ok()) return ReportError(dir.status());
  ::tensorflow::SavedModel saved_model;
  Status s = ReadSavedModel(*dir, &saved_model);
  if (!s.ok()) return ReportError(s);
  std::vector<std::string> graphs;
  for (const auto& mg : saved_model.meta_graphs()) {
    std::vector<std::string> tags(mg.meta_info_def().tags().begin(),
                                  mg.meta_info_def().tags().end());
    if (!json) std::cout << "MetaGraphDef with tag-set: '" << StrJoin(tags, ", ") << "'\n";
    std::vector<std::string> sigs = DescribeSignatures(mg, json);
    std::vector<std::string> quoted;
    for (const auto& t : tags) quoted.push_back(JsonString(t));
    graphs.push_back(StrCat("{\"tags\": [", StrJoin(quoted, ", "), "], \"signatures\": [",
                            StrJoin(sigs, ", "), "]}"));
  }
  if (json) {
    std::cout << "{\"kind\": \"SavedModel\", \"path\": " << JsonString(*dir)
              << ", \"meta_graphs\": [" << StrJoin(graphs, ", ") << "]}" << std::endl;
  }
  std::string prefix = *dir + "/" + kSavedModelVariablesPrefix;
  if (verify && FileExists(prefix + ".index")) return InspectCheckpoint(prefix, false, true);
  return kExitOk;
}

}  // namespace

int InspectCommand(int argc, char** argv) {
  po::options_description desc("graphrt inspect PATH [--json]");
  desc.add_options()("help,h", "describe this command")(
      "path", po::value<std::string>(), "a GraphDef, SavedModel folder or checkpoint prefix")(
      "json", po::bool_switch(), "print one JSON document")(
      "verify", po::bool_switch(), "check every checksum (checkpoints, SavedModels)")(
      "keras-config", po::value<std::string>(),
      "architecture JSON (model.to_json()) for a weights-only Keras .h5 or .weights.h5");
  po::positional_options_description positional;
  positional.add("path", 1);
  po::variables_map vm;
  if (std::optional<int> done =
          ParseCommandLine(argc, argv, desc, positional, {"path"},
                           "inspect needs a PATH (see graphrt inspect --help)", &vm)) {
    return *done;
  }
  const std::string path = vm["path"].as<std::string>();
  StatusOr<ModelKind> kind = ClassifyModelPath(path);
  if (!kind.ok()) return ReportError(kind.status());
  bool json = vm["json"].as<bool>();
  bool verify = vm["verify"].as<bool>();
  switch (*kind) {
    case ModelKind::kCheckpoint:
      return InspectCheckpoint(path, json, verify);
    case ModelKind::kSavedModel:
      return InspectSavedModel(path, json, verify);
    case ModelKind::kGraphDef:
      return InspectGraphDef(path, json);
    case ModelKind::kMetaGraph:
      return InspectMetaGraph(path, json);
    case ModelKind::kKeras:
      return InspectKeras(
          path, vm.count("keras-config") ? vm["keras-config"].as<std::string>() : "", json);
  }
  return ReportError(Internal("unhandled model kind of ", path));
}

}  // namespace cli
}  // namespace graphrt
