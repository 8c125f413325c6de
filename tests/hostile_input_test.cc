// Every public entry point fed what an attacker would write: empty, truncated and random bytes,
// and shapes whose sizes overflow or exhaust memory. Each must give a non-OK Status with the
// expected code and a message naming the thing; none may throw, crash or allocate the size asked.
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include <cstdint>
#include <filesystem>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/example_json.h"
#include "formats/file_util.h"
#include "formats/graph_def.h"
#include "formats/npy.h"
#include "formats/placement_log.h"
#include "formats/tensor_bundle/bundle_format.h"
#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/bundle_writer.h"
#include "formats/tensor_bundle/table.h"
#include "migrate/migration_rules.h"
#include "runtime/core/tensor.h"
#include "runtime/devices/device.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/op_kernel.h"
#include "runtime/ops/op_registry.h"
#include "runtime/session/saved_model.h"
#include "runtime/session/session.h"
#include "tensor_bundle.pb.h"
#include "tests/fixture_util.h"

namespace graphrt {
namespace {

constexpr int64_t kTwoTo40 = int64_t{1} << 40;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Byte strings every parser gets: empty, one byte, and seeded random bytes of several lengths.
std::vector<std::string> JunkInputs(const std::string& prefix = "") {
  std::vector<std::string> out = {"", std::string(1, '\0'), prefix};
  std::mt19937 rng(20);
  for (size_t len : {1, 7, 64, 300, 4096}) {
    for (int k = 0; k < 8; ++k) {
      std::string s = prefix;
      for (size_t i = 0; i < len; ++i) s += static_cast<char>(rng() & 0xff);
      out.push_back(s);
    }
  }
  return out;
}

// Every prefix length of `bytes` up to 256, then every 97th.
std::vector<std::string> Truncations(const std::string& bytes) {
  std::vector<std::string> out;
  for (size_t n = 0; n < bytes.size(); n += n < 256 ? 1 : 97) out.push_back(bytes.substr(0, n));
  return out;
}

// A .npy file with `header` (the dict text) and `data` after it.
std::string Npy(const std::string& dict, const std::string& data = "") {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

// Restores the default tensor-size cap when a test that lowered it ends.
class ScopedMaxTensorBytes {
 public:
  explicit ScopedMaxTensorBytes(int64_t bytes) { SetMaxTensorBytes(bytes); }
  ~ScopedMaxTensorBytes() { SetMaxTensorBytes(0); }
};

TEST(HostileInput, TensorAllocateRefusesOverflowAndTheCap) {
  StatusOr<Tensor> overflow =
      Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape({kTwoTo40, kTwoTo40}));
  EXPECT_EQ(overflow.status().code(), Code::kResourceExhausted);
  EXPECT_TRUE(Contains(overflow.status().message(), "[1099511627776,1099511627776]"))
      << overflow.status();
  EXPECT_TRUE(Contains(overflow.status().message(), "overflows")) << overflow.status();

  StatusOr<Tensor> huge = Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape({kTwoTo40}));
  EXPECT_EQ(huge.status().code(), Code::kResourceExhausted);
  EXPECT_TRUE(Contains(huge.status().message(), "4398046511104 bytes")) << huge.status();
  EXPECT_TRUE(Contains(huge.status().message(), "GRAPHRT_MAX_TENSOR_BYTES")) << huge.status();

  StatusOr<Tensor> negative = Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape({2, -3}));
  EXPECT_EQ(negative.status().code(), Code::kInvalidArgument);

  // The constructor is for sizes the code chose; it reports failure as bad_alloc.
  EXPECT_THROW(Tensor(::tensorflow::DT_FLOAT, TensorShape({kTwoTo40})), std::bad_alloc);

  EXPECT_EQ(TensorShape::FromDims({kTwoTo40, kTwoTo40}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(TensorShape::FromDims({4, -1}).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(TensorShape::FromDims({kTwoTo40, 0, kTwoTo40}).ok());
}

TEST(HostileInput, MaxTensorBytesIsSettable) {
  EXPECT_GT(MaxTensorBytes(), 0);
  EXPECT_LE(MaxTensorBytes(), int64_t{8} << 30);
  {
    ScopedMaxTensorBytes cap(1024);
    EXPECT_EQ(MaxTensorBytes(), 1024);
    EXPECT_TRUE(Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape({256})).ok());
    StatusOr<Tensor> over = Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape({257}));
    EXPECT_EQ(over.status().code(), Code::kResourceExhausted);
    EXPECT_TRUE(Contains(over.status().message(), "1028 bytes is over the limit of 1024"))
        << over.status();
  }
  EXPECT_GT(MaxTensorBytes(), 1024);
}

TEST(HostileInput, NpyHeadersAndSizes) {
  struct Case {
    std::string bytes;
    Code code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': }"), Code::kInvalidArgument,
       "bad shape"},
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,,), }"), Code::kInvalidArgument,
       "bad shape"},
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }"), Code::kInvalidArgument,
       "bad shape"},
      {Npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }"), Code::kInvalidArgument,
       "fortran_order"},
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648), }"),
       Code::kInvalidArgument, "more bytes than int64"},
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }"),
       Code::kInvalidArgument, "too many elements"},
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }"), Code::kDataLoss,
       "need 4294967296 bytes"},
      {Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(23, 'x')),
       Code::kDataLoss, "need 24 bytes"},
  };
  for (const Case& c : cases) {
    StatusOr<Tensor> t = Internal("not read");
    EXPECT_NO_THROW(t = ParseNpy(c.bytes, "hostile.npy"));
    EXPECT_EQ(t.status().code(), c.code) << t.status();
    EXPECT_TRUE(Contains(t.status().message(), "hostile.npy")) << t.status();
    EXPECT_TRUE(Contains(t.status().message(), c.says)) << t.status();
  }

  ScopedMaxTensorBytes cap(1024);
  std::string data(2048, '\0');
  StatusOr<Tensor> over =
      ParseNpy(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (512,), }", data), "big.npy");
  EXPECT_EQ(over.status().code(), Code::kResourceExhausted);
  EXPECT_TRUE(Contains(over.status().message(), "big.npy")) << over.status();
  EXPECT_TRUE(Contains(over.status().message(), "2048 bytes")) << over.status();
}

TEST(HostileInput, NpyJunkAndTruncationsNeverThrow) {
  Tensor t = Tensor::Vector<float>({1, 2, 3, 4, 5, 6}).Reshaped(TensorShape({2, 3}));
  StatusOr<std::string> good = SerializeNpy(t);
  ASSERT_TRUE(good.ok()) << good.status();
  int failures = 0;
  std::vector<std::string> inputs = Truncations(*good);
  for (const std::string& junk : JunkInputs("\x93NUMPY\x01")) inputs.push_back(junk);
  for (const std::string& bytes : inputs) {
    StatusOr<Tensor> r = Internal("not read");
    EXPECT_NO_THROW(r = ParseNpy(bytes, "junk.npy"));
    if (!r.ok()) {
      ++failures;
      EXPECT_TRUE(Contains(r.status().message(), "junk.npy")) << r.status();
    }
  }
  EXPECT_EQ(failures, static_cast<int>(inputs.size()));  // no junk or prefix is a whole file
}

// Runs `graph` (text GraphDef) in a fresh session, fetching `fetch`.
Status RunGraph(const std::string& graph_text, const std::string& fetch) {
  GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(graph_text, &graph)) {
    return Internal("the test's graph does not parse");
  }
  std::unique_ptr<Session> session;
  GRT_RETURN_IF_ERROR(NewSession(SessionOptions(), &session));
  GRT_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> out;
  return session->Run({}, {fetch}, {}, &out);
}

std::string IntConst(const std::string& name, const std::string& type,
                     const std::vector<int64_t>& values) {
  std::string vals;
  for (int64_t v : values) vals += StrCat(type == "DT_INT32" ? " int_val: " : " int64_val: ", v);
  return StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: ", type,
                " } } attr { key: 'value' value { tensor { dtype: ", type,
                " tensor_shape { dim { size: ", values.size(), " } }", vals, " } } } }\n");
}

void ExpectNamed(const Status& s, Code code, const std::string& node, const std::string& says) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_TRUE(Contains(s.message(), node)) << s;
  EXPECT_TRUE(Contains(s.message(), says)) << s;
}

TEST(HostileInput, GraphsAskingForHugeTensors) {
  // Fill whose shape input asks for 2^40 floats.
  std::string fill = IntConst("dims", "DT_INT64", {int64_t{1} << 20, int64_t{1} << 20}) +
                     "node { name: 'v' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
                     " attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 1 } } } }\n"
                     "node { name: 'fill' op: 'Fill' input: 'dims' input: 'v'"
                     " attr { key: 'T' value { type: DT_FLOAT } }"
                     " attr { key: 'index_type' value { type: DT_INT64 } } }\n";
  ExpectNamed(RunGraph(fill, "fill"), Code::kResourceExhausted, "fill", "4398046511104 bytes");

  // A Const whose TensorProto repeats one value over 2^40 elements, and one whose shape
  // overflows.
  std::string big_const =
      "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'value' value { tensor { dtype: DT_FLOAT"
      " tensor_shape { dim { size: 1099511627776 } } float_val: 1 } } } }\n";
  ExpectNamed(RunGraph(big_const, "c"), Code::kResourceExhausted, "c", "4398046511104 bytes");
  std::string overflow_const =
      "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: "
      "1099511627776 } dim { size: 1099511627776 } } float_val: 1 } } } }\n";
  ExpectNamed(RunGraph(overflow_const, "c"), Code::kInvalidArgument, "c", "too many elements");

  // A Placeholder declaring an overflowing shape, then fed: the feed is checked against it.
  std::string placeholder =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'shape' value { shape { dim { size: 1099511627776 }"
      " dim { size: 1099511627776 } } } } }\n"
      "node { name: 'y' op: 'Identity' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n";
  {
    GraphDef graph;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(placeholder, &graph));
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(SessionOptions(), &session).ok());
    Status created = session->Create(graph);
    if (created.ok()) {
      std::vector<Tensor> out;
      Status run = session->Run({{"x", Tensor::Vector<float>({1, 2})}}, {"y"}, {}, &out);
      EXPECT_FALSE(run.ok());
      EXPECT_TRUE(Contains(run.message(), "x")) << run;
    } else {
      EXPECT_TRUE(Contains(created.message(), "x")) << created;
    }
  }

  // A TensorList reserving 2^31 - 1 elements.
  std::string reserve =
      IntConst("shape", "DT_INT32", {}) +
      "node { name: 'n' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }"
      " attr { key: 'value' value { tensor { dtype: DT_INT32 int_val: 2147483647 } } } }\n"
      "node { name: 'list' op: 'TensorListReserve' input: 'shape' input: 'n'"
      " attr { key: 'element_dtype' value { type: DT_FLOAT } }"
      " attr { key: 'shape_type' value { type: DT_INT32 } } }\n";
  ExpectNamed(RunGraph(reserve, "list"), Code::kResourceExhausted, "list", "2147483647 elements");

  // SparseFillEmptyRows over 2^31 dense rows, one of them set.
  std::string fill_rows =
      "node { name: 'idx' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } }"
      " attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 }"
      " dim { size: 1 } } int64_val: 0 } } } }\n" +
      IntConst("vals", "DT_INT64", {7}) + IntConst("dense", "DT_INT64", {int64_t{1} << 31}) +
      "node { name: 'def' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } }"
      " attr { key: 'value' value { tensor { dtype: DT_INT64 int64_val: 0 } } } }\n"
      "node { name: 'sfer' op: 'SparseFillEmptyRows' input: 'idx' input: 'vals' input: 'dense'"
      " input: 'def' attr { key: 'T' value { type: DT_INT64 } } }\n";
  ExpectNamed(RunGraph(fill_rows, "sfer"), Code::kResourceExhausted, "sfer", "bytes");
}

::tensorflow::NodeDef ConstNode(const std::string& name, const Tensor& value) {
  ::tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  (*node.mutable_attr())["dtype"].set_type(value.dtype());
  value.AsProtoTensorContent((*node.mutable_attr())["value"].mutable_tensor());
  return node;
}

// SparseCross of `columns` sparse inputs, each one row of `width` int64 values: width^columns
// crosses from columns * width inputs.
Status RunSparseCross(int columns, int64_t width, int64_t rows) {
  GraphDef graph;
  Tensor indices(::tensorflow::DT_INT64, TensorShape({width, 2}));
  Tensor values(::tensorflow::DT_INT64, TensorShape({width}));
  for (int64_t j = 0; j < width; ++j) {
    indices.data<int64_t>()[2 * j] = 0;
    indices.data<int64_t>()[2 * j + 1] = j;
    values.data<int64_t>()[j] = j;
  }
  ::tensorflow::NodeDef cross;
  cross.set_name("cross");
  cross.set_op("SparseCross");
  for (const char* part : {"indices", "values", "shapes"}) {
    for (int c = 0; c < columns; ++c) {
      const std::string name = StrCat(part, c);
      const Tensor& t = std::string(part) == "indices"  ? indices
                        : std::string(part) == "values" ? values
                                                        : Tensor::Vector<int64_t>({rows, width});
      *graph.add_node() = ConstNode(name, t);
      cross.add_input(name);
    }
  }
  auto& attr = *cross.mutable_attr();
  attr["N"].set_i(columns);
  attr["hashed_output"].set_b(true);
  attr["num_buckets"].set_i(0);
  attr["hash_key"].set_i(1);
  for (int c = 0; c < columns; ++c) {
    attr["sparse_types"].mutable_list()->add_type(::tensorflow::DT_INT64);
  }
  attr["dense_types"].mutable_list();
  attr["out_type"].set_type(::tensorflow::DT_INT64);
  attr["internal_type"].set_type(::tensorflow::DT_INT64);
  *graph.add_node() = cross;
  std::unique_ptr<Session> session;
  GRT_RETURN_IF_ERROR(NewSession(SessionOptions(), &session));
  GRT_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> out;
  return session->Run({}, {"cross:1"}, {}, &out);
}

TEST(HostileInput, SparseCrossExplosions) {
  EXPECT_TRUE(RunSparseCross(2, 3, 1).ok());
  // 1024^4 = 2^40 crosses of 8 bytes each.
  ExpectNamed(RunSparseCross(4, 1024, 1), Code::kResourceExhausted, "cross", "8796093022208 bytes");
  // 256^8 = 2^64 crosses: more than int64 counts.
  ExpectNamed(RunSparseCross(8, 256, 1), Code::kResourceExhausted, "cross",
              "more values than int64 can count");
  // A batch of 2^31 rows asks for 2^31 row lists before any value is read.
  ExpectNamed(RunSparseCross(1, 1, int64_t{1} << 31), Code::kResourceExhausted, "cross",
              "2147483648 rows");
}

TEST(HostileInput, ParseExampleWithHugeDenseShape) {
  std::string graph =
      "node { name: 'ser' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } }"
      " attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } }"
      " string_val: '' } } } }\n"
      "node { name: 'names' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } }"
      " attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape { dim { size: 0 } }"
      " } } } }\n"
      "node { name: 'key' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } }"
      " attr { key: 'value' value { tensor { dtype: DT_STRING string_val: 'f' } } } }\n"
      "node { name: 'def' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 0 } }"
      " } } } }\n"
      "node { name: 'parse' op: 'ParseExample' input: 'ser' input: 'names' input: 'key'"
      " input: 'def' attr { key: 'Nsparse' value { i: 0 } } attr { key: 'Ndense' value { i: 1 } }"
      " attr { key: 'sparse_types' value { list { } } }"
      " attr { key: 'Tdense' value { list { type: DT_FLOAT } } }"
      " attr { key: 'dense_shapes' value { list { shape { dim { size: 1099511627776 } } } } } }\n";
  ExpectNamed(RunGraph(graph, "parse"), Code::kResourceExhausted, "parse", "4398046511104 bytes");
}

// A kernel that throws, as a kernel hit by a library bug would: kind 0 throws std::runtime_error,
// 1 std::bad_alloc, 2 an int; from Compute, or from the constructor when `in_constructor`.
class ThrowingKernel : public OpKernel {
 public:
  ThrowingKernel(OpKernelConstruction* ctx, bool in_constructor) : OpKernel(ctx) {
    if (in_constructor) Throw(0);
  }
  Status Compute(OpKernelContext* ctx) override {
    Throw(static_cast<int>(ctx->input(0).scalar<int32_t>()));
    return Status::OK();
  }

 private:
  static void Throw(int kind) {
    if (kind == 0) throw std::runtime_error("boom");
    if (kind == 1) throw std::bad_alloc();
    throw 7;
  }
};

void RegisterThrowingOps() {
  static const bool registered = [] {
    for (const char* op : {"GraphrtTestThrowInCompute", "GraphrtTestThrowInConstructor"}) {
      OpRegistry::Global()->Register(OpDefBuilder(op).Input("kind: int32").Output("y: float"));
      const bool in_constructor = std::string(op) == "GraphrtTestThrowInConstructor";
      KernelRegistry::Global()->Register(
          KernelDefBuilder(op).Device(kDeviceCpu), [in_constructor](OpKernelConstruction* ctx) {
            return std::make_unique<ThrowingKernel>(ctx, in_constructor);
          });
    }
    return true;
  }();
  (void)registered;
}

TEST(HostileInput, ExceptionsInKernelsBecomeStatuses) {
  RegisterThrowingOps();
  auto graph = [](const std::string& op, int kind) {
    return StrCat("node { name: 'kind' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }",
                  " attr { key: 'value' value { tensor { dtype: DT_INT32 int_val: ", kind,
                  " } } } }\n node { name: 'thrower' op: '", op, "' input: 'kind' }\n");
  };
  ExpectNamed(RunGraph(graph("GraphrtTestThrowInCompute", 0), "thrower"), Code::kInternal,
              "thrower", "boom");
  ExpectNamed(RunGraph(graph("GraphrtTestThrowInCompute", 1), "thrower"), Code::kResourceExhausted,
              "thrower", "out of memory");
  ExpectNamed(RunGraph(graph("GraphrtTestThrowInCompute", 2), "thrower"), Code::kInternal,
              "thrower", "unknown type");
  ExpectNamed(RunGraph(graph("GraphrtTestThrowInConstructor", 0), "thrower"), Code::kInternal,
              "Session::Run", "boom");
}

TEST(HostileInput, GraphDefJunkNeverThrows) {
  const std::string path = ::testing::TempDir() + "/hostile_graph.pb";
  int failures = 0;
  std::vector<std::string> inputs = JunkInputs();
  for (const std::string& bytes : inputs) {
    ASSERT_TRUE(WriteStringToFile(path, bytes).ok());
    GraphDef graph;
    Status read;
    EXPECT_NO_THROW(read = ReadGraphDef(path, &graph));
    if (!read.ok()) {
      ++failures;
      EXPECT_TRUE(Contains(read.message(), "hostile_graph.pb")) << read;
      continue;
    }
    // What parses as a GraphDef goes on to a session, which must refuse or accept it cleanly.
    std::unique_ptr<Session> session;
    ASSERT_TRUE(NewSession(SessionOptions(), &session).ok());
    EXPECT_NO_THROW(session->Create(graph).IgnoreError());
  }
  EXPECT_GT(failures, static_cast<int>(inputs.size()) / 2);
}

TEST(HostileInput, SavedModelJunkNeverThrows) {
  const std::string dir = ::testing::TempDir() + "/hostile_saved_model";
  std::filesystem::create_directories(dir);
  for (const std::string& bytes : JunkInputs()) {
    ASSERT_TRUE(WriteStringToFile(dir + "/saved_model.pb", bytes).ok());
    SavedModelBundle bundle;
    Status s;
    EXPECT_NO_THROW(s = LoadSavedModel(SessionOptions(), RunOptions(), dir, {"serve"}, &bundle));
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(Contains(s.message(), "hostile_saved_model")) << s;
  }
}

// Writes a checkpoint whose one entry "w" declares `shape` over 4 bytes of data.
std::string CheckpointWithShape(const std::string& prefix, const std::vector<int64_t>& shape) {
  ::tensorflow::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(::tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  ::tensorflow::BundleEntryProto entry;
  entry.set_dtype(::tensorflow::DT_FLOAT);
  for (int64_t d : shape) entry.mutable_shape()->add_dim()->set_size(d);
  entry.set_shard_id(0);
  entry.set_offset(0);
  entry.set_size(4);
  table::TableBuilder builder;
  builder.Add(bundle::kHeaderEntryKey, header.SerializeAsString());
  builder.Add("w", entry.SerializeAsString());
  EXPECT_TRUE(WriteStringToFile(bundle::IndexFilename(prefix), builder.Finish()).ok());
  EXPECT_TRUE(WriteStringToFile(bundle::DataFilename(prefix, 0, 1), std::string(4, '\0')).ok());
  return prefix;
}

TEST(HostileInput, CheckpointEntriesWithGiantShapes) {
  const std::string dir = ::testing::TempDir();
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{kTwoTo40}, std::vector<int64_t>{kTwoTo40, kTwoTo40, kTwoTo40},
        std::vector<int64_t>{-5}}) {
    std::string prefix = CheckpointWithShape(dir + "/giant_ckpt", shape);
    StatusOr<std::unique_ptr<BundleReader>> reader = Internal("not opened");
    EXPECT_NO_THROW(reader = BundleReader::Open(prefix));
    if (!reader.ok()) {
      EXPECT_TRUE(Contains(reader.status().message(), "giant_ckpt")) << reader.status();
      continue;
    }
    StatusOr<Tensor> t = Internal("not read");
    EXPECT_NO_THROW(t = (*reader)->Read("w"));
    EXPECT_FALSE(t.ok());
    EXPECT_NE(t.status().code(), Code::kInternal) << t.status();
    EXPECT_TRUE(Contains(t.status().message(), "'w'")) << t.status();
  }
}

TEST(HostileInput, CheckpointJunkAndTruncationsNeverThrow) {
  const std::string prefix = ::testing::TempDir() + "/hostile_ckpt";
  {
    BundleWriter writer(prefix);
    ASSERT_TRUE(writer.Add("a", Tensor::Vector<float>({1, 2, 3})).ok());
    ASSERT_TRUE(writer.Add("b", Tensor::Vector<std::string>({"x", "yz"})).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  StatusOr<std::string> index = ReadFileToString(bundle::IndexFilename(prefix));
  ASSERT_TRUE(index.ok());
  std::vector<std::string> inputs = Truncations(*index);
  for (const std::string& junk : JunkInputs()) inputs.push_back(junk);
  for (const std::string& bytes : inputs) {
    ASSERT_TRUE(WriteStringToFile(bundle::IndexFilename(prefix), bytes).ok());
    StatusOr<std::unique_ptr<BundleReader>> reader = Internal("not opened");
    EXPECT_NO_THROW(reader = BundleReader::Open(prefix));
    ASSERT_FALSE(reader.ok()) << bytes.size() << " bytes of index opened";
    EXPECT_TRUE(Contains(reader.status().message(), "hostile_ckpt")) << reader.status();
  }
}

TEST(HostileInput, TextParsersNeverThrow) {
  std::vector<std::string> inputs = JunkInputs();
  const std::vector<std::string> crafted = {
      "{",
      "[[[[[[[[[[[[[[[[[[[[[[[[",
      std::string(100000, '['),
      "{\"features\": {\"x\": {\"float_list\": 1e999}}}",
      "{\"features\": {\"x\": {\"int64_list\": [1e30]}}}",
      "{\"rename\": [[\"(\", \"x\"]]}",
      "node_a: /device:GPU:99999999999999999999",
      // A placement line far longer than any real one (std::regex recursed once per character).
      "n: (Op): /" + std::string(100000, 'x'),
  };
  inputs.insert(inputs.end(), crafted.begin(), crafted.end());
  for (const std::string& text : inputs) {
    EXPECT_NO_THROW(ParsePlacementLog(text, "log.txt").status().IgnoreError());
    EXPECT_NO_THROW(ExampleFromJson(text, "example.json").status().IgnoreError());
    migrate::MigrationRules rules;
    Status s;
    EXPECT_NO_THROW(s = migrate::ParseRulesJson(text, "rules.json", &rules));
    EXPECT_FALSE(s.ok() && text.empty());
  }
}

// ---- the command, on the .npy reproducers in ../shared/reliability ----

void ExpectOneErrorLine(const testing::CommandResult& r, const std::string& names,
                        const std::string& says) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out.rfind("graphrt: error: ", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "more than one line:\n" << r.out;
  EXPECT_TRUE(Contains(r.out, names)) << r.out;
  EXPECT_TRUE(Contains(r.out, says)) << r.out;
}

TEST(HostileInputCommand, NpyReproducersGiveOneErrorLine) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string graph = testing::ReliabilityInput("ph.pbtxt");
  struct Case {
    std::string file;
    std::string says;
  };
  for (const Case& c :
       {Case{"emptyshape.npy", "bad shape"}, Case{"overflow.npy", "too many elements"},
        Case{"huge.npy", "more bytes than int64"}}) {
    std::string npy = testing::ReliabilityInput(c.file);
    testing::CommandResult r =
        testing::RunGraphrt(StrCat("run ", graph, " --input x=", npy, " --output y"));
    ExpectOneErrorLine(r, npy, c.says);
  }
}

// A dtype enum of 2,000,000,000 once recursed in its name until the stack overflowed.
TEST(HostileInputCommand, HugeDtypeEnumGivesOneErrorLine) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string graph = testing::ReliabilityInput("bigdtype.pbtxt");
  const std::string says = "attr 'dtype' of node 'x' (Placeholder) holds unknown dtype enum";
  ExpectOneErrorLine(testing::RunGraphrt("inspect " + graph), graph, says);
  ExpectOneErrorLine(testing::RunGraphrt(StrCat("run ", graph, " --input x=1 --output x")), graph,
                     says);
}

// The issue's own command line: paths relative to the working folder, "../shared/...".
TEST(HostileInputCommand, RelativeNpyPathIsReadAsAFile) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  testing::CommandResult r = testing::RunGraphrt(
      "run ../shared/reliability/ph.pbtxt --input x=../shared/reliability/emptyshape.npy "
      "--output y",
      "", testing::SourceDir());
  ExpectOneErrorLine(r, "../shared/reliability/emptyshape.npy", "bad shape in .npy header");
}

TEST(HostileInputCommand, DeeplyNestedInlineValue) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string graph = testing::ReliabilityInput("ph.pbtxt");
  const std::string value = std::string(50000, '[') + std::string(50000, ']');
  testing::CommandResult r =
      testing::RunGraphrt(StrCat("run ", graph, " --input 'x=", value, "' --output y"));
  ExpectOneErrorLine(r, "--input x", "nested more than 254 lists deep");
}

TEST(HostileInputCommand, MaxTensorBytesFromTheEnvironment) {
  GRT_REQUIRE_OR_SKIP(testing::MissingReliabilityInputs());
  const std::string graph = testing::ReliabilityInput("ph.pbtxt");
  const std::string npy = ::testing::TempDir() + "/sixteen_floats.npy";
  ASSERT_TRUE(WriteNpy(npy, Tensor::Vector<float>(std::vector<float>(16, 1.0f))).ok());
  testing::CommandResult capped = testing::RunGraphrt(
      StrCat("run ", graph, " --input x=", npy, " --output y"), "GRAPHRT_MAX_TENSOR_BYTES=32");
  ExpectOneErrorLine(capped, npy, "64 bytes is over the limit of 32");
  testing::CommandResult fits = testing::RunGraphrt(
      StrCat("run ", graph, " --input x=", npy, " --output y"), "GRAPHRT_MAX_TENSOR_BYTES=64");
  EXPECT_EQ(fits.exit_code, 0) << fits.out;
}

}  // namespace
}  // namespace graphrt
