#include "migrate/checkpoint_migration.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "formats/file_util.h"
#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/bundle_writer.h"
#include "migrate/dtype_cast.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace migrate {

namespace {

using ::tensorflow::BundleEntryProto;

struct Pattern {
  RulePattern re;
  int hits = 0;
};

StatusOr<std::vector<Pattern>> CompilePatterns(const std::vector<std::string>& patterns,
                                               const std::string& flag) {
  std::vector<Pattern> out;
  for (const std::string& p : patterns) {
    GRT_ASSIGN_OR_RETURN(RulePattern re, RulePattern::Compile(p, flag));
    out.push_back({std::move(re), 0});
  }
  return out;
}

std::string JoinActions(const std::vector<std::string>& actions) {
  return actions.empty() ? "copy" : StrJoin(actions, "+");
}

void SplitPrefix(const std::string& prefix, std::string* dir, std::string* base) {
  const size_t slash = prefix.find_last_of('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *base = prefix;
  } else {
    *dir = slash == 0 ? "/" : prefix.substr(0, slash);
    *base = prefix.substr(slash + 1);
  }
}

std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

// Removes the plain files in `dir`, then `dir`. Best effort: this is cleanup after a failure.
void RemoveFolder(const std::string& dir) {
  for (const std::string& name : ListDirectory(dir)) std::remove((dir + "/" + name).c_str());
  ::rmdir(dir.c_str());
}

std::string RealDirectory(const std::string& dir) {
  char buf[PATH_MAX];
  if (::realpath(dir.c_str(), buf) == nullptr) return dir;
  return buf;
}

// Hidden work folders are ".<base>.migrate-<pid>-<random>"; those whose process is gone were
// left by a killed run.
void RemoveStaleWorkFolders(const std::string& dir, const std::string& base) {
  const std::string lead = "." + base + ".migrate-";
  for (const std::string& name : ListDirectory(dir)) {
    if (name.compare(0, lead.size(), lead) != 0) continue;
    const long pid = std::strtol(name.c_str() + lead.size(), nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;
    RemoveFolder(dir + "/" + name);
  }
}

// `dir` and its missing parents.
Status CreateDirectories(const std::string& dir) {
  struct stat st;
  if (dir.empty() || ::stat(dir.c_str(), &st) == 0) return Status::OK();
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    GRT_RETURN_IF_ERROR(CreateDirectories(dir.substr(0, slash)));
  }
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return Status(Code::kUnknown,
                  StrCat("cannot create directory ", dir, ": ", std::strerror(errno)));
  }
  return Status::OK();
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return Status(Code::kUnknown,
                  StrCat("cannot rename ", from, " to ", to, ": ", std::strerror(errno)));
  }
  return Status::OK();
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> FixedSizePartitions(int64_t rows, int parts) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t start = 0;
  for (int i = 0; i < parts; ++i) {
    const int64_t len = rows / parts + (i < rows % parts ? 1 : 0);
    out.emplace_back(start, len);
    start += len;
  }
  return out;
}

static StatusOr<MigrationPlan> PlanMigrationUnguarded(BundleReader* reader,
                                                      const MigrationRules& rules);

StatusOr<MigrationPlan> PlanMigration(BundleReader* reader, const MigrationRules& rules) {
  return StatusFromExceptions("PlanMigration",
                              [&] { return PlanMigrationUnguarded(reader, rules); });
}

static StatusOr<MigrationPlan> PlanMigrationUnguarded(BundleReader* reader,
                                                      const MigrationRules& rules) {
  MigrationPlan plan;
  plan.source_prefix = reader->prefix();
  plan.source_shards = reader->num_shards();
  plan.output_shards = rules.num_shards > 0 ? rules.num_shards : std::max(1, reader->num_shards());

  GRT_ASSIGN_OR_RETURN(Renamer renamer, Renamer::Create(rules));
  GRT_ASSIGN_OR_RETURN(std::vector<Pattern> keep, CompilePatterns(rules.keep, "--keep"));
  GRT_ASSIGN_OR_RETURN(std::vector<Pattern> drop, CompilePatterns(rules.drop, "--drop"));
  std::vector<int> cast_hits(rules.casts.size(), 0);
  std::vector<int> partition_hits(rules.partitions.size(), 0);
  int slots = 0, steps = 0, shadows = 0;

  const std::vector<std::string> keys = reader->Keys();
  std::map<std::string, std::string> shadow_of;  // variable -> its EMA shadow
  for (const std::string& key : keys) {
    std::string variable;
    if (rules.use_ema && EmaShadowOf(key, &variable)) shadow_of[variable] = key;
  }

  for (const std::string& key : keys) {
    GRT_ASSIGN_OR_RETURN(BundleEntryProto entry, reader->Entry(key));
    PlannedTensor t;
    t.source = key;
    t.source_dtype = entry.dtype();
    t.dtype = entry.dtype();
    GRT_ASSIGN_OR_RETURN(t.shape, TensorShape::FromProto(entry.shape()));
    t.source_slices = entry.slices_size();
    std::vector<std::string> actions;

    std::string value_name = key;
    std::string variable, drop_reason;
    const bool ema_value = rules.use_ema && EmaShadowOf(key, &variable);
    if (ema_value) {
      value_name = variable;
      ++shadows;
    } else if (rules.use_ema && shadow_of.count(key) != 0) {
      drop_reason = StrCat("replaced by its EMA shadow ", shadow_of[key]);
    }
    for (Pattern& p : drop) {
      if (!p.re.Search(key)) continue;
      ++p.hits;
      if (drop_reason.empty()) drop_reason = StrCat("--drop ", p.re.pattern());
    }
    if (!keep.empty()) {
      bool kept = false;
      for (Pattern& p : keep) {
        if (!p.re.Search(key)) continue;
        ++p.hits;
        kept = true;
      }
      if (!kept && drop_reason.empty()) drop_reason = "not matched by any --keep";
    }
    if (rules.drop_optimizer_slots && IsOptimizerSlot(key)) {
      ++slots;
      if (drop_reason.empty()) drop_reason = "optimizer slot";
    }
    if (rules.drop_global_step && IsGlobalStep(key)) {
      ++steps;
      if (drop_reason.empty()) drop_reason = "global_step";
    }
    if (!drop_reason.empty()) {
      t.reason = drop_reason;
      t.action = "drop";
      plan.tensors.push_back(std::move(t));
      continue;
    }
    if (ema_value) {
      actions.push_back("ema");
      t.reason = StrCat("EMA shadow: the value of ", variable);
    }

    t.name = renamer.Rename(value_name);
    if (t.name.empty())
      return InvalidArgument("renames turn tensor '", key, "' into an empty name");
    if (t.name != value_name) actions.push_back("rename");
    for (size_t i = 0; i < rules.casts.size(); ++i) {
      if (rules.casts[i].first == t.dtype && rules.casts[i].first != rules.casts[i].second) {
        if (!CanCast(t.dtype, rules.casts[i].second)) {
          return InvalidArgument("--cast ", DataTypeString(rules.casts[i].first), "=",
                                 DataTypeString(rules.casts[i].second), ": not supported");
        }
        ++cast_hits[i];
        t.dtype = rules.casts[i].second;
        actions.push_back("cast");
        break;
      }
    }
    int parts = 0;
    for (size_t i = 0; i < rules.partitions.size(); ++i) {
      const std::string& which = rules.partitions[i].first;
      if (which == t.name || which == key) {
        ++partition_hits[i];
        parts = rules.partitions[i].second;
      }
    }
    if (parts > 0) {
      if (t.shape.dims() < 1 || t.shape.dim_size(0) < parts) {
        return InvalidArgument("--partition ", t.name, "=", parts, ": tensor '", key,
                               "' has shape ", t.shape.DebugString(), ", too few rows");
      }
      if (t.dtype == ::tensorflow::DT_STRING) {
        return InvalidArgument("--partition: string tensor '", key, "' cannot be partitioned");
      }
      t.output_slices = parts == 1 ? 0 : parts;
      actions.push_back("partition");
    } else if (t.source_slices > 0) {
      if (rules.merge_partitions) {
        actions.push_back("merge");
      } else {
        t.output_slices = t.source_slices;
      }
    }
    if (t.dtype == ::tensorflow::DT_STRING) {
      t.bytes = entry.size();
    } else {
      t.bytes = t.shape.num_elements() * DataTypeSize(t.dtype);
    }
    t.action = JoinActions(actions);
    plan.output_bytes += t.bytes;
    plan.tensors.push_back(std::move(t));
  }

  // Collisions, before anything is written.
  std::map<std::string, std::string> source_of;
  for (const PlannedTensor& t : plan.tensors) {
    if (t.dropped()) continue;
    auto [it, inserted] = source_of.emplace(t.name, t.source);
    if (!inserted) {
      return InvalidArgument("renames collide: tensors '", it->second, "' and '", t.source,
                             "' both become '", t.name, "'");
    }
  }

  for (const std::string& rule : renamer.UnusedRules()) plan.warnings.push_back(rule);
  for (const Pattern& p : keep) {
    if (p.hits == 0) plan.warnings.push_back(StrCat("--keep ", p.re.pattern()));
  }
  for (const Pattern& p : drop) {
    if (p.hits == 0) plan.warnings.push_back(StrCat("--drop ", p.re.pattern()));
  }
  for (size_t i = 0; i < rules.casts.size(); ++i) {
    if (cast_hits[i] == 0) {
      plan.warnings.push_back(StrCat("--cast ", DataTypeString(rules.casts[i].first), "=",
                                     DataTypeString(rules.casts[i].second)));
    }
  }
  for (size_t i = 0; i < rules.partitions.size(); ++i) {
    if (partition_hits[i] == 0) {
      plan.warnings.push_back(
          StrCat("--partition ", rules.partitions[i].first, "=", rules.partitions[i].second));
    }
  }
  if (rules.use_ema && shadows == 0) plan.warnings.push_back("--use-ema");
  if (rules.drop_optimizer_slots && slots == 0) plan.warnings.push_back("--drop-optimizer-slots");
  if (rules.drop_global_step && steps == 0) plan.warnings.push_back("--drop-global-step");
  for (std::string& w : plan.warnings) w = StrCat("rule matches nothing: ", w);
  if (rules.strict && !plan.warnings.empty()) {
    return InvalidArgument(plan.warnings.front(), " (--strict)");
  }
  return plan;
}

std::string PlanText(const MigrationPlan& plan) {
  std::string out =
      StrCat("plan for ", plan.source_prefix, ": ", plan.source_shards, " shard(s) in, ",
             plan.output_shards, " out, ", plan.output_bytes, " bytes of tensors\n");
  for (const PlannedTensor& t : plan.tensors) {
    if (t.dropped()) {
      out += StrCat("  drop     ", t.source, "  ", DataTypeString(t.source_dtype),
                    t.shape.DebugString(), "  (", t.reason, ")\n");
      continue;
    }
    std::string dtype = DataTypeString(t.dtype);
    if (t.dtype != t.source_dtype) dtype = StrCat(DataTypeString(t.source_dtype), "->", dtype);
    out += StrCat("  ", t.action, std::string(t.action.size() < 8 ? 8 - t.action.size() : 0, ' '),
                  " ", t.source, t.source == t.name ? "" : StrCat(" -> ", t.name), "  ", dtype,
                  t.shape.DebugString(), "  ", t.bytes, " bytes",
                  t.output_slices > 0 ? StrCat("  ", t.output_slices, " slices") : "",
                  t.reason.empty() ? "" : StrCat("  (", t.reason, ")"), "\n");
  }
  for (const std::string& w : plan.warnings) out += StrCat("warning: ", w, "\n");
  return out;
}

std::string PlanJson(const MigrationPlan& plan) {
  nlohmann::json doc;
  doc["source"] = plan.source_prefix;
  doc["source_shards"] = plan.source_shards;
  doc["output_shards"] = plan.output_shards;
  doc["output_bytes"] = plan.output_bytes;
  nlohmann::json tensors = nlohmann::json::array();
  for (const PlannedTensor& t : plan.tensors) {
    nlohmann::json j;
    j["source"] = t.source;
    j["name"] = t.dropped() ? nlohmann::json(nullptr) : nlohmann::json(t.name);
    j["source_dtype"] = DataTypeString(t.source_dtype);
    j["dtype"] = DataTypeString(t.dtype);
    j["shape"] = t.shape.dim_sizes();
    j["bytes"] = t.bytes;
    j["action"] = t.action;
    j["reason"] = t.reason;
    j["source_slices"] = t.source_slices;
    j["slices"] = t.output_slices;
    tensors.push_back(std::move(j));
  }
  doc["tensors"] = std::move(tensors);
  doc["warnings"] = plan.warnings;
  return doc.dump();
}

namespace {

// Writes the plan's tensors into `writer`, one tensor or slice in memory at a time.
Status WriteTensors(BundleReader* reader, const MigrationPlan& plan,
                    const MigrationOptions& options, BundleWriter* writer,
                    MigrationResult* result) {
  for (const PlannedTensor& t : plan.tensors) {
    if (t.dropped()) continue;
    auto convert = [&](const Tensor& in) { return CastTensor(in, t.dtype); };
    if (t.output_slices > 0 && t.source_slices > 0 && t.output_slices == t.source_slices &&
        t.action.find("partition") == std::string::npos) {
      // Kept as stored: slice by slice.
      GRT_ASSIGN_OR_RETURN(BundleEntryProto entry, reader->Entry(t.source));
      for (const auto& proto : entry.slices()) {
        GRT_ASSIGN_OR_RETURN(TensorSlice slice, TensorSlice::FromProto(proto));
        GRT_ASSIGN_OR_RETURN(Tensor part, reader->ReadSlice(t.source, slice));
        GRT_ASSIGN_OR_RETURN(Tensor out, convert(part));
        GRT_RETURN_IF_ERROR(writer->AddSlice(t.name, t.shape, proto, out));
      }
    } else if (t.output_slices > 0) {
      for (const auto& [start, length] :
           FixedSizePartitions(t.shape.dim_size(0), t.output_slices)) {
        std::vector<std::pair<int64_t, int64_t>> extents(t.shape.dims(),
                                                         {0, TensorSlice::kFullExtent});
        extents[0] = {start, length};
        const TensorSlice slice(extents);
        GRT_ASSIGN_OR_RETURN(Tensor part, reader->ReadSlice(t.source, slice));
        GRT_ASSIGN_OR_RETURN(Tensor out, convert(part));
        ::tensorflow::TensorSliceProto proto;
        slice.AsProto(&proto);
        GRT_RETURN_IF_ERROR(writer->AddSlice(t.name, t.shape, proto, out));
      }
    } else {
      GRT_ASSIGN_OR_RETURN(Tensor whole, reader->Read(t.source));
      GRT_ASSIGN_OR_RETURN(Tensor out, convert(whole));
      GRT_RETURN_IF_ERROR(writer->Add(t.name, out));
    }
    result->bytes_written += t.bytes;
    ++result->tensors_written;
    if (options.kill_after_tensors >= 0 && result->tensors_written >= options.kill_after_tensors) {
      ::kill(::getpid(), SIGKILL);
    }
    if (options.fail_after_tensors >= 0 && result->tensors_written >= options.fail_after_tensors) {
      return Status(Code::kUnknown,
                    StrCat("injected write failure after ", result->tensors_written, " tensors"));
    }
    if (options.progress) options.progress(result->bytes_written, plan.output_bytes, t.name);
  }
  return Status::OK();
}

// Reopens the written bundle, checks every checksum and that it holds what the plan says.
Status VerifyWritten(const std::string& prefix, const MigrationPlan& plan) {
  BundleReader::Options ropts;
  ropts.use_mmap = false;
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(prefix, ropts));
  std::string failing;
  Status verified = reader->VerifyAll(&failing);
  if (!verified.ok()) {
    return DataLoss("the written checkpoint does not read back (tensor '", failing,
                    "'): ", verified.message());
  }
  std::set<std::string> expected;
  for (const PlannedTensor& t : plan.tensors) {
    if (t.dropped()) continue;
    expected.insert(t.name);
    GRT_ASSIGN_OR_RETURN(BundleEntryProto entry, reader->Entry(t.name));
    GRT_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(entry.shape()));
    if (entry.dtype() != t.dtype || shape != t.shape) {
      return Internal("written tensor '", t.name, "' is ", DataTypeString(entry.dtype()),
                      shape.DebugString(), ", the plan says ", DataTypeString(t.dtype),
                      t.shape.DebugString());
    }
  }
  const std::vector<std::string> keys = reader->Keys();
  if (std::set<std::string>(keys.begin(), keys.end()) != expected) {
    return Internal("the written checkpoint holds ", keys.size(), " tensors, the plan ",
                    expected.size());
  }
  return Status::OK();
}

}  // namespace

static StatusOr<MigrationResult> RunMigrationUnguarded(BundleReader* reader,
                                                       const MigrationPlan& plan,
                                                       const std::string& dst_prefix,
                                                       const MigrationOptions& options);

StatusOr<MigrationResult> RunMigration(BundleReader* reader, const MigrationPlan& plan,
                                       const std::string& dst_prefix,
                                       const MigrationOptions& options) {
  return StatusFromExceptions(
      "RunMigration", [&] { return RunMigrationUnguarded(reader, plan, dst_prefix, options); });
}

static StatusOr<MigrationResult> RunMigrationUnguarded(BundleReader* reader,
                                                       const MigrationPlan& plan,
                                                       const std::string& dst_prefix,
                                                       const MigrationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::string dst_dir, base, src_dir, src_base;
  SplitPrefix(dst_prefix, &dst_dir, &base);
  SplitPrefix(reader->prefix(), &src_dir, &src_base);
  if (base.empty()) return InvalidArgument("output prefix ", dst_prefix, " has no file name");
  if (base == src_base && RealDirectory(dst_dir) == RealDirectory(src_dir)) {
    return InvalidArgument("output prefix ", dst_prefix,
                           " is the input checkpoint; the input is "
                           "never modified, choose another output");
  }
  const std::string dst_index = bundle::IndexFilename(dst_prefix);
  if (FileExists(dst_index) && !options.force) {
    return AlreadyExists("output checkpoint exists: ", dst_index, " (--force replaces it)");
  }

  // Every data file the plan reads must be there before anything is written.
  std::map<int, std::string> needed;  // shard -> one tensor it holds
  for (const PlannedTensor& t : plan.tensors) {
    if (t.dropped()) continue;
    GRT_ASSIGN_OR_RETURN(BundleEntryProto entry, reader->Entry(t.source));
    if (entry.slices_size() == 0) {
      needed.emplace(entry.shard_id(), t.source);
      continue;
    }
    for (const auto& proto : entry.slices()) {
      GRT_ASSIGN_OR_RETURN(TensorSlice slice, TensorSlice::FromProto(proto));
      GRT_ASSIGN_OR_RETURN(BundleEntryProto part,
                           reader->Entry(EncodeTensorNameSlice(t.source, slice)));
      needed.emplace(part.shard_id(), t.source);
    }
  }
  for (const auto& [shard, tensor] : needed) {
    const std::string file = bundle::DataFilename(reader->prefix(), shard, reader->num_shards());
    if (!FileExists(file)) {
      return NotFound("missing data file ", file, " (it holds tensor '", tensor,
                      "'); nothing was written");
    }
  }

  GRT_RETURN_IF_ERROR(CreateDirectories(dst_dir));
  RemoveStaleWorkFolders(dst_dir, base);
  std::mt19937_64 rng(std::random_device{}());
  const std::string work =
      StrCat(dst_dir, "/.", base, ".migrate-", ::getpid(), "-", rng() % 1000000);
  if (::mkdir(work.c_str(), 0777) != 0) {
    return Status(Code::kUnknown,
                  StrCat("cannot create directory ", work, ": ", std::strerror(errno)));
  }
  const std::string temp_prefix = work + "/" + base;

  MigrationResult result;
  Status status;
  {
    BundleWriter writer(temp_prefix, {plan.output_shards});
    status = WriteTensors(reader, plan, options, &writer, &result);
    if (status.ok()) status = writer.Finish();
  }
  if (status.ok()) status = VerifyWritten(temp_prefix, plan);
  std::vector<std::string> moved;  // DST files already renamed into place
  if (status.ok() && options.force) {
    // The new checkpoint is complete and verified; only now is the old one removed, index first
    // so that no reader sees an index whose data is gone.
    std::remove(dst_index.c_str());
    const std::string data_lead = base + ".data-";
    for (const std::string& name : ListDirectory(dst_dir)) {
      if (name.compare(0, data_lead.size(), data_lead) == 0) {
        std::remove((dst_dir + "/" + name).c_str());
      }
    }
  }
  for (int i = 0; status.ok() && i < plan.output_shards; ++i) {
    const std::string to = bundle::DataFilename(dst_prefix, i, plan.output_shards);
    status = RenameFile(bundle::DataFilename(temp_prefix, i, plan.output_shards), to);
    if (status.ok()) moved.push_back(to);
  }
  if (status.ok()) {
    status = RenameFile(bundle::IndexFilename(temp_prefix), dst_index);
    if (status.ok()) moved.push_back(dst_index);
  }
  if (!status.ok()) {
    for (const std::string& file : moved) std::remove(file.c_str());
    RemoveFolder(work);
    return status;
  }
  RemoveFolder(work);
  result.files = moved;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace migrate
}  // namespace graphrt
