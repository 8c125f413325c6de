// Runs one kernel outside any graph, for unit tests of kernels:
//
//   NodeDef node = MakeNode("Relu", {{"T", DT_FLOAT}});
//   StatusOr<std::vector<Tensor>> out = RunKernel(node, {x});
#ifndef GRAPHRT_TESTS_KERNEL_TEST_UTIL_H_
#define GRAPHRT_TESTS_KERNEL_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "attr_value.pb.h"
#include "node_def.pb.h"
#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {
namespace testing {

// A NodeDef for `op` named "n" with the given attrs; missing attrs get their defaults.
::tensorflow::NodeDef MakeNode(
    const std::string& op,
    const std::vector<std::pair<std::string, ::tensorflow::AttrValue>>& attrs);

::tensorflow::AttrValue AttrType(DataType t);
::tensorflow::AttrValue AttrInt(int64_t i);
::tensorflow::AttrValue AttrFloat(float f);
::tensorflow::AttrValue AttrBool(bool b);
::tensorflow::AttrValue AttrString(const std::string& s);
::tensorflow::AttrValue AttrInts(const std::vector<int64_t>& values);
::tensorflow::AttrValue AttrTypes(const std::vector<DataType>& types);

// Builds the CPU kernel for `node` and runs it once on `inputs` with `threads` intra-op threads.
StatusOr<std::vector<Tensor>> RunKernel(const ::tensorflow::NodeDef& node,
                                        const std::vector<Tensor>& inputs, int threads = 1);

}  // namespace testing
}  // namespace graphrt

#endif  // GRAPHRT_TESTS_KERNEL_TEST_UTIL_H_
