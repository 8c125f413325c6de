// The rewrite of a graph for one kind of call (as TensorFlow's graph/subgraph.cc): each fed tensor
// is replaced by an _Arg node, each fetched one is read by a _Retval node, and the graph is pruned
// to what the fetches and targets need. Placement and device copies come after it.
#ifndef GRAPHRT_RUNTIME_GRAPH_SUBGRAPH_H_
#define GRAPHRT_RUNTIME_GRAPH_SUBGRAPH_H_

#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor_shape.h"
#include "runtime/core/types.h"
#include "runtime/graph/graph.h"

namespace graphrt {

// What the rewritten graph takes and gives, in _Arg / _Retval index order.
struct CallSignature {
  std::vector<std::string> feeds;  // as the caller named them
  std::vector<DataType> feed_types;
  std::vector<PartialTensorShape> feed_shapes;  // a Placeholder's declared shape, else unknown
  std::vector<std::string> fetches;
};

// Feeds may name any tensor ("node:index"), not only placeholders; a fetch that is also fed
// returns the fed value. NOT_FOUND names a feed, fetch or target missing from the graph, an output
// index out of range, or an op graphrt does not know among the nodes that remain.
Status RewriteGraphForCall(Graph* graph, const std::vector<std::string>& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets, CallSignature* signature);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_GRAPH_SUBGRAPH_H_
