// Loading a SavedModel as TensorFlow's C++ loader does (cc/saved_model/loader.cc): the
// MetaGraphDef whose tags match exactly, a Session created with its graph, variables restored
// through the SaverDef (restore op fed EXPORT_DIR/variables/variables; skipped when the model has
// no variables), asset files fed to their placeholders, and the init op run
// (__saved_model_init_op, saved_model_main_op or legacy_init_op).
//
//   graphrt::SavedModelBundle bundle;
//   GRT_RETURN_IF_ERROR(graphrt::LoadSavedModel(options, graphrt::RunOptions(), dir, {"serve"},
//                                               &bundle));
//   bundle.session->Run({{"x:0", x}}, {"y:0"}, {}, &outputs);
#ifndef GRAPHRT_SAVED_MODEL_H_
#define GRAPHRT_SAVED_MODEL_H_

#include <memory>
#include <string>
#include <unordered_set>

#include <graphrt/config.h>
#include <graphrt/export.h>
#include <graphrt/session.h>
#include <graphrt/status.h>

#include "meta_graph.pb.h"

namespace graphrt {

using MetaGraphDef = ::tensorflow::MetaGraphDef;
using SignatureDef = ::tensorflow::SignatureDef;

struct GRAPHRT_EXPORT SavedModelBundle {
  std::unique_ptr<Session> session;
  MetaGraphDef meta_graph_def;
  std::string export_dir;

  // The signature with `key`; NOT_FOUND listing the keys present.
  StatusOr<const SignatureDef*> GetSignature(const std::string& key) const;
};

GRAPHRT_EXPORT Status LoadSavedModel(const SessionOptions& session_options,
                                     const RunOptions& run_options, const std::string& export_dir,
                                     const std::unordered_set<std::string>& tags,
                                     SavedModelBundle* bundle);

// A MetaGraphDef (e.g. model.ckpt.meta) with its variables restored from `checkpoint_prefix`
// through its SaverDef, as tf.train.import_meta_graph + Saver.restore do. An empty prefix skips
// the restore.
GRAPHRT_EXPORT Status LoadMetaGraph(const SessionOptions& session_options,
                                    const MetaGraphDef& meta_graph,
                                    const std::string& checkpoint_prefix,
                                    std::unique_ptr<Session>* session);

}  // namespace graphrt

#endif  // GRAPHRT_SAVED_MODEL_H_
