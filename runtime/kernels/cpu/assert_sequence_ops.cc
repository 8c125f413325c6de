// Assert (fails the run with the data it was given when its condition is false) and
// ReverseSequence (reverses the first seq_lengths[b] entries along seq_dim, per batch row; the
// backward half of a bidirectional RNN).
#include <cstring>

#include "runtime/kernels/kernel_registry.h"

namespace graphrt {

namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    if (cond.dims() != 0) {
      return InvalidArgument("In[0] expects a scalar, but got shape ", cond.shape().DebugString());
    }
    if (cond.scalar<bool>()) return Status::OK();
    std::vector<std::string> parts;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dtype() == ::tensorflow::DT_STRING && t.NumElements() == 1) {
        parts.push_back(t.data<std::string>()[0]);
      } else {
        parts.push_back(t.DebugString(static_cast<int>(summarize_)));
      }
    }
    return InvalidArgument("assertion failed: [", StrJoin(parts, "] ["), "]");
  }

 private:
  int64_t summarize_ = 3;
};

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("seq_dim", &seq_dim_));
    GRT_CONSTRUCT_OK(ctx, ctx->GetAttr("batch_dim", &batch_dim_));
  }
  Status Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& lengths = ctx->input(1);
    int rank = in.dims();
    int64_t seq_dim = seq_dim_ < 0 ? seq_dim_ + rank : seq_dim_;
    int64_t batch_dim = batch_dim_ < 0 ? batch_dim_ + rank : batch_dim_;
    if (seq_dim < 0 || seq_dim >= rank || batch_dim < 0 || batch_dim >= rank ||
        seq_dim == batch_dim) {
      return InvalidArgument("Invalid seq_dim ", seq_dim_, " or batch_dim ", batch_dim_,
                             " for input of rank ", rank);
    }
    if (lengths.dims() != 1 || lengths.dim_size(0) != in.dim_size(static_cast<int>(batch_dim))) {
      return InvalidArgument("Length of seq_lengths != input.dims(", batch_dim, "), (",
                             lengths.NumElements(), " vs. ",
                             in.dim_size(static_cast<int>(batch_dim)), ")");
    }
    std::vector<int64_t> len(static_cast<size_t>(lengths.NumElements()));
    for (size_t b = 0; b < len.size(); ++b) {
      len[b] = lengths.dtype() == ::tensorflow::DT_INT64 ? lengths.data<int64_t>()[b]
                                                         : lengths.data<int32_t>()[b];
      if (len[b] < 0 || len[b] > in.dim_size(static_cast<int>(seq_dim))) {
        return InvalidArgument("seq_lens(", b, ") = ", len[b], " is out of range [0, ",
                               in.dim_size(static_cast<int>(seq_dim)), "]");
      }
    }
    Tensor out = in.DeepCopy();
    if (in.NumElements() == 0) {
      ctx->set_output(0, out);
      return Status::OK();
    }
    // Row-major strides; each element index is moved along seq_dim within its batch row.
    std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * in.dim_size(d + 1);
    size_t elem = ElementObjectSize(in.dtype());
    bool strings = in.dtype() == ::tensorflow::DT_STRING;
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t flat = 0; flat < in.NumElements(); ++flat) {
      int64_t b = idx[batch_dim];
      int64_t s = idx[seq_dim];
      if (s < len[b]) {
        int64_t src = flat + (len[b] - 1 - 2 * s) * stride[seq_dim];
        if (strings) {
          out.data<std::string>()[flat] = in.data<std::string>()[src];
        } else {
          std::memcpy(static_cast<char*>(out.raw_data()) + flat * elem,
                      static_cast<const char*>(in.raw_data()) + src * elem, elem);
        }
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < in.dim_size(d)) break;
        idx[d] = 0;
      }
    }
    ctx->set_output(0, out);
    return Status::OK();
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

}  // namespace

void RegisterAssertAndSequenceKernels(KernelRegistry* r) {
  r->Register(KernelDefBuilder("Assert").Device(kDeviceCpu), MakeFactory<AssertOp>());
  r->Register(KernelDefBuilder("ReverseSequence").Device(kDeviceCpu),
              MakeFactory<ReverseSequenceOp>());
}

}  // namespace graphrt
