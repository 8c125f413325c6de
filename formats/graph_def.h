// Protocol buffers on disk, binary or text. A file is read as binary when it parses as such and
// as text otherwise, so both `.pb` and `.pbtxt` GraphDefs load from either extension.
#ifndef GRAPHRT_FORMATS_GRAPH_DEF_H_
#define GRAPHRT_FORMATS_GRAPH_DEF_H_

#include <string>

#include <google/protobuf/message.h>

#include "graph.pb.h"
#include "runtime/core/status.h"

namespace graphrt {

using GraphDef = ::tensorflow::GraphDef;

// Reads `message` from `path`; `what` names the message in errors ("GraphDef").
Status ReadBinaryOrTextProto(const std::string& path, const std::string& what,
                             google::protobuf::Message* message);
Status ReadGraphDef(const std::string& path, ::tensorflow::GraphDef* graph_def);
struct WriteProtoOptions {
  bool text = false;  // text format; also when the path ends in ".pbtxt"
  // When false, an existing file is ALREADY_EXISTS and is left as it is.
  bool overwrite = true;
};
// Writes `message` to a temporary file beside `path`, syncs it and renames it over `path`
// (WriteStringToFile), so that `path` is never half-written: a failed write leaves what was there
// and no temporary file.
Status WriteBinaryOrTextProto(const std::string& path, const google::protobuf::Message& message,
                              const WriteProtoOptions& options = {});
Status WriteGraphDef(const std::string& path, const ::tensorflow::GraphDef& graph_def,
                     const WriteProtoOptions& options = {});

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_GRAPH_DEF_H_
