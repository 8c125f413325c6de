// Protocol buffers on disk, binary or text. A file is read as binary when it parses as such and
// as text otherwise, so both `.pb` and `.pbtxt` GraphDefs load from either extension.
#ifndef GRAPHRT_GRAPH_IO_H_
#define GRAPHRT_GRAPH_IO_H_

#include <string>

#include <google/protobuf/message.h>

#include <graphrt/export.h>
#include <graphrt/status.h>

#include "graph.pb.h"

namespace graphrt {

using GraphDef = ::tensorflow::GraphDef;

// Reads `message` from `path`; `what` names the message in errors ("GraphDef").
GRAPHRT_EXPORT Status ReadBinaryOrTextProto(const std::string& path, const std::string& what,
                                            google::protobuf::Message* message);
GRAPHRT_EXPORT Status ReadGraphDef(const std::string& path, ::tensorflow::GraphDef* graph_def);
struct WriteProtoOptions {
  bool text = false;  // text format; also when the path ends in ".pbtxt"
  // When false, an existing file is ALREADY_EXISTS and is left as it is.
  bool overwrite = true;
};
// Writes `message` to a temporary file beside `path`, syncs it and renames it over `path`, so
// that `path` is never half-written: a failed write leaves what was there and no temporary file.
GRAPHRT_EXPORT Status WriteBinaryOrTextProto(const std::string& path,
                                             const google::protobuf::Message& message,
                                             const WriteProtoOptions& options = {});
GRAPHRT_EXPORT Status WriteGraphDef(const std::string& path,
                                    const ::tensorflow::GraphDef& graph_def,
                                    const WriteProtoOptions& options = {});

}  // namespace graphrt

#endif  // GRAPHRT_GRAPH_IO_H_
