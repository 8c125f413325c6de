// Functions of a graph's FunctionDefLibrary, instantiated on demand: each (name, attrs) becomes a
// Graph with _Arg/_Retval nodes, placed and compiled into an Executor once, then called by the
// functional ops (PartitionedCall, If, While, Case, ...). Calls run on the caller's thread.
#ifndef GRAPHRT_RUNTIME_EXEC_FUNCTION_LIBRARY_H_
#define GRAPHRT_RUNTIME_EXEC_FUNCTION_LIBRARY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "function.pb.h"
#include "runtime/exec/executor.h"
#include "runtime/kernels/op_kernel.h"
#include "runtime/placement/placer.h"

namespace graphrt {

class ResourceMgr;

class FunctionLibrary : public FunctionRuntime {
 public:
  FunctionLibrary(::tensorflow::FunctionDefLibrary library, std::vector<Device*> devices,
                  ResourceMgr* resources, PlacerOptions placer_options);
  ~FunctionLibrary() override;

  Status Call(const ::tensorflow::NameAttrList& function, const std::vector<Tensor>& args,
              std::vector<Tensor>* results, OpKernelContext* caller) override;

  const ::tensorflow::FunctionDef* Find(const std::string& name) const;

  // Placement decisions of every instantiated body, node names prefixed "function/".
  PlacementReport Report() const;

 private:
  struct Instance {
    std::unique_ptr<Executor> executor;
    size_t num_results = 0;
  };
  StatusOr<const Instance*> Instantiate(const ::tensorflow::NameAttrList& function);

  ::tensorflow::FunctionDefLibrary library_;
  std::map<std::string, const ::tensorflow::FunctionDef*> by_name_;
  std::vector<Device*> devices_;
  ResourceMgr* resources_;
  PlacerOptions placer_options_;

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Instance>> instances_;
  PlacementReport report_;
};

// The body of `fdef`, with attr placeholders replaced by `attrs`, as a GraphDef: one _Arg per
// input, one _Retval per output, node inputs "node:out_arg:i" rewritten to "node:k".
StatusOr<::tensorflow::GraphDef> FunctionBodyToGraphDef(
    const ::tensorflow::FunctionDef& fdef,
    const google::protobuf::Map<std::string, ::tensorflow::AttrValue>& attrs,
    const ::tensorflow::FunctionDefLibrary& library);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_EXEC_FUNCTION_LIBRARY_H_
