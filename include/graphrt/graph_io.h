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
// Binary unless the path ends in ".pbtxt" (or `text` is set).
GRAPHRT_EXPORT Status WriteGraphDef(const std::string& path,
                                    const ::tensorflow::GraphDef& graph_def, bool text = false);

}  // namespace graphrt

#endif  // GRAPHRT_GRAPH_IO_H_
