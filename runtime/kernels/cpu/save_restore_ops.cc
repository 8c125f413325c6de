// SaveV2 / RestoreV2 / MergeV2Checkpoints over formats/tensor_bundle, and the string helpers a
// Saver's graph computes its file names with.
#include <cstdio>

#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/bundle_writer.h"
#include "formats/tensor_bundle/tensor_slice.h"
#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

Status CheckStringVector(const Tensor& t, int64_t n, const char* what) {
  if (t.dtype() != ::tensorflow::DT_STRING || t.dims() != 1 || t.NumElements() != n) {
    return InvalidArgument(what, " must be a vector of ", n, " strings, got ", t.DebugString(4));
  }
  return Status::OK();
}

const std::string& ScalarString(const Tensor& t) { return t.data<std::string>()[0]; }

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& prefix = ctx->input(0);
    if (prefix.dtype() != ::tensorflow::DT_STRING || prefix.NumElements() != 1) {
      return InvalidArgument("Input prefix should be a single string tensor");
    }
    int64_t n = ctx->num_outputs();
    GRT_RETURN_IF_ERROR(CheckStringVector(ctx->input(1), n, "tensor_names"));
    GRT_RETURN_IF_ERROR(CheckStringVector(ctx->input(2), n, "shape_and_slices"));
    const std::string& path = ScalarString(prefix);
    GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(path));
    for (int64_t i = 0; i < n; ++i) {
      const std::string& key = ctx->input(1).data<std::string>()[i];
      const std::string& spec = ctx->input(2).data<std::string>()[i];
      StatusOr<Tensor> t = Internal("unread");
      if (spec.empty()) {
        t = reader->Read(key);
      } else {
        TensorShape shape;
        TensorSlice slice;
        GRT_RETURN_IF_ERROR(ParseShapeAndSlice(spec, &shape, &slice));
        t = reader->ReadSlice(key, slice);
      }
      if (!t.ok()) {
        Status s = t.status();
        return s.Prepend(StrCat("restoring '", key, "' from ", path));
      }
      if (t->dtype() != output_type(static_cast<int>(i))) {
        return InvalidArgument("tensor '", key, "' in ", path, " is ", DataTypeString(t->dtype()),
                               " but RestoreV2 expects ",
                               DataTypeString(output_type(static_cast<int>(i))));
      }
      ctx->set_output(static_cast<int>(i), std::move(t).value());
    }
    return Status::OK();
  }
};

class SaveV2Op : public OpKernel {
 public:
  explicit SaveV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& prefix = ctx->input(0);
    if (prefix.dtype() != ::tensorflow::DT_STRING || prefix.NumElements() != 1) {
      return InvalidArgument("Input prefix should be a single string tensor");
    }
    int64_t n = ctx->num_inputs() - 3;
    GRT_RETURN_IF_ERROR(CheckStringVector(ctx->input(1), n, "tensor_names"));
    GRT_RETURN_IF_ERROR(CheckStringVector(ctx->input(2), n, "shape_and_slices"));
    BundleWriter writer(ScalarString(prefix));
    for (int64_t i = 0; i < n; ++i) {
      const std::string& key = ctx->input(1).data<std::string>()[i];
      const std::string& spec = ctx->input(2).data<std::string>()[i];
      const Tensor& value = ctx->input(static_cast<int>(3 + i));
      if (spec.empty()) {
        GRT_RETURN_IF_ERROR(writer.Add(key, value));
      } else {
        TensorShape shape;
        TensorSlice slice;
        GRT_RETURN_IF_ERROR(ParseShapeAndSlice(spec, &shape, &slice));
        ::tensorflow::TensorSliceProto proto;
        slice.AsProto(&proto);
        GRT_RETURN_IF_ERROR(writer.AddSlice(key, shape, proto, value));
      }
    }
    return writer.Finish();
  }
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("delete_old_dirs", &delete_old_));
  }
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& sources = ctx->input(0);
    const Tensor& dest = ctx->input(1);
    if (dest.NumElements() != 1) return InvalidArgument("destination_prefix must be a scalar");
    BundleWriter writer(ScalarString(dest));
    std::vector<std::pair<std::string, int>> merged;  // source prefix, its shard count
    for (int64_t i = 0; i < sources.NumElements(); ++i) {
      const std::string& src = sources.data<std::string>()[i];
      GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(src));
      for (const std::string& key : reader->Keys()) {
        GRT_ASSIGN_OR_RETURN(Tensor t, reader->Read(key));
        GRT_RETURN_IF_ERROR(writer.Add(key, t));
      }
      merged.emplace_back(src, reader->num_shards());
    }
    GRT_RETURN_IF_ERROR(writer.Finish());
    if (delete_old_) {
      for (const auto& [src, shards] : merged) {
        if (src == ScalarString(dest)) continue;
        std::remove((src + ".index").c_str());
        for (int shard = 0; shard < shards; ++shard) {
          char name[64];
          std::snprintf(name, sizeof(name), ".data-%05d-of-%05d", shard, shards);
          std::remove((src + name).c_str());
        }
      }
    }
    return Status::OK();
  }

 private:
  bool delete_old_ = true;
};

class ShardedFilenameOp : public OpKernel {
 public:
  explicit ShardedFilenameOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    char suffix[64];
    std::snprintf(suffix, sizeof(suffix), "-%05d-of-%05d", ctx->input(1).scalar<int32_t>(),
                  ctx->input(2).scalar<int32_t>());
    Tensor out(::tensorflow::DT_STRING, TensorShape());
    out.scalar<std::string>() = ScalarString(ctx->input(0)) + suffix;
    ctx->set_output(0, out);
    return Status::OK();
  }
};

class ShardedFilespecOp : public OpKernel {
 public:
  explicit ShardedFilespecOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    char suffix[64];
    std::snprintf(suffix, sizeof(suffix), "-\?\?\?\?\?-of-%05d", ctx->input(1).scalar<int32_t>());
    Tensor out(::tensorflow::DT_STRING, TensorShape());
    out.scalar<std::string>() = ScalarString(ctx->input(0)) + suffix;
    ctx->set_output(0, out);
    return Status::OK();
  }
};

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("separator", &separator_));
  }
  Status Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    bool have_shape = false;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() == 0) continue;
      if (have_shape && t.shape() != shape) {
        return InvalidArgument("Input shapes do not match: ", shape.DebugString(), " vs. ",
                               t.shape().DebugString());
      }
      shape = t.shape();
      have_shape = true;
    }
    GRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(::tensorflow::DT_STRING, shape));
    for (int64_t j = 0; j < out.NumElements(); ++j) {
      std::string s;
      for (int i = 0; i < ctx->num_inputs(); ++i) {
        if (i > 0) s += separator_;
        const Tensor& t = ctx->input(i);
        s += t.data<std::string>()[t.dims() == 0 ? 0 : j];
      }
      out.data<std::string>()[j] = std::move(s);
    }
    ctx->set_output(0, out);
    return Status::OK();
  }

 private:
  std::string separator_;
};

class RestoreV1Op : public OpKernel {
 public:
  explicit RestoreV1Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  Status Compute(OpKernelContext* ctx) override {
    return Unimplemented(
        type_string(), " reads V1 checkpoints (SSTable of SavedTensorSlices, ",
        "TensorFlow before 2017), which graphrt does not support: ", ScalarString(ctx->input(0)));
  }
};

}  // namespace

void RegisterSaveRestoreKernels(KernelRegistry* r) {
  r->Register(KernelDefBuilder("RestoreV2").Device(kDeviceCpu), MakeFactory<RestoreV2Op>());
  r->Register(KernelDefBuilder("SaveV2").Device(kDeviceCpu), MakeFactory<SaveV2Op>());
  r->Register(KernelDefBuilder("MergeV2Checkpoints").Device(kDeviceCpu),
              MakeFactory<MergeV2CheckpointsOp>());
  r->Register(KernelDefBuilder("ShardedFilename").Device(kDeviceCpu),
              MakeFactory<ShardedFilenameOp>());
  r->Register(KernelDefBuilder("ShardedFilespec").Device(kDeviceCpu),
              MakeFactory<ShardedFilespecOp>());
  r->Register(KernelDefBuilder("StringJoin").Device(kDeviceCpu), MakeFactory<StringJoinOp>());
  for (const char* op : {"Restore", "RestoreSlice"}) {
    r->Register(KernelDefBuilder(op).Device(kDeviceCpu), MakeFactory<RestoreV1Op>());
  }
}

}  // namespace graphrt
