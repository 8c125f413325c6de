// ReadKerasH5File on files written here with the HDF5 C API, to reach the string and layout
// variants real files rarely show together: fixed-length NULL- and space-padded strings,
// variable-length UTF-8 strings, attributes split by h5py into name0, name1, ..., float64
// weights, and missing pieces; the limits of KerasH5ReadOptions (sizes, chunks, filters,
// compression); and ReadKerasH5FileIsolated (same result as in-process, timeouts, replies cut
// short or garbled).
#include "formats/keras/keras_h5_file.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/stat.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "formats/keras/keras_h5_internal.h"
#include "runtime/core/str_util.h"

namespace graphrt {
namespace keras {
namespace {

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

void FixedStrings(hid_t obj, const char* name, const std::vector<std::string>& values, size_t width,
                  H5T_str_t pad) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, width);
  H5Tset_strpad(type, pad);
  hsize_t n = values.size();
  hid_t space = H5Screate_simple(1, &n, nullptr);
  std::string buf(width * values.size(), pad == H5T_STR_SPACEPAD ? ' ' : '\0');
  for (size_t i = 0; i < values.size(); ++i) buf.replace(i * width, values[i].size(), values[i]);
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, buf.data());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

void VarString(hid_t obj, const char* name, const std::string& value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hid_t space = H5Screate(H5S_SCALAR);
  const char* p = value.c_str();
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, &p);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

void Doubles(hid_t group, const char* path, const std::vector<hsize_t>& dims,
             const std::vector<double>& values) {
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t ds = H5Dcreate2(group, path, H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(ds);
  H5Sclose(space);
  H5Pclose(lcpl);
}

// A weights-only file (layer_names on the root) with h5py's split attribute and both paddings.
std::string WriteWeightsOnly(bool drop_dataset) {
  std::string path = TempPath(drop_dataset ? "ko_missing.h5" : "ko.h5");
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  VarString(f, "keras_version", "2.15.1 \xc3\xa9");  // UTF-8 survives as bytes
  FixedStrings(f, "backend", {"tensorflow"}, 16, H5T_STR_SPACEPAD);
  FixedStrings(f, "layer_names0", {"dense_a"}, 12, H5T_STR_NULLPAD);
  FixedStrings(f, "layer_names1", {"dense_b"}, 7, H5T_STR_NULLPAD);
  for (const char* layer : {"dense_a", "dense_b"}) {
    hid_t g = H5Gcreate2(f, layer, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::string k = std::string(layer) + "/kernel:0", b = std::string(layer) + "/bias:0";
    FixedStrings(g, "weight_names", {k, b}, 20, H5T_STR_NULLTERM);
    Doubles(g, k.c_str(), {2, 3}, {1, 2, 3, 4, 5, 6.5});
    if (!drop_dataset || std::string(layer) == "dense_a") Doubles(g, b.c_str(), {3}, {0, -1, 2});
    H5Gclose(g);
  }
  H5Fclose(f);
  return path;
}

TEST(KerasH5FileTest, WeightsOnlyWithSplitAttributesAndPaddings) {
  StatusOr<KerasH5File> f = ReadKerasH5File(WriteWeightsOnly(false));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->keras_version, "2.15.1 \xc3\xa9");
  EXPECT_EQ(f->backend, "tensorflow");
  EXPECT_TRUE(f->model_config.empty());
  ASSERT_EQ(f->layers.size(), 2u);
  EXPECT_EQ(f->layers[1].layer, "dense_b");
  ASSERT_EQ(f->layers[0].weights.size(), 2u);
  EXPECT_EQ(f->layers[0].weights[0].name, "dense_a/kernel:0");
  const Tensor& k = f->layers[0].weights[0].value;
  ASSERT_EQ(k.dims(), 2);
  EXPECT_EQ(k.dim_size(1), 3);
  EXPECT_EQ(k.data<float>()[5], 6.5f);  // float64 on disk, float32 in memory
}

TEST(KerasH5FileTest, MissingWeightIsNamed) {
  StatusOr<KerasH5File> f = ReadKerasH5File(WriteWeightsOnly(true));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("dense_b/bias:0"), std::string::npos) << f.status();
}

TEST(KerasH5FileTest, ExtentLargerThanTheFileIsRefusedBeforeAllocating) {
  // A contiguous dataset whose extent claims 2^30 values, with no data written: HDF5 creates it
  // without storage, and graphrt must refuse it rather than allocate 4 GB.
  std::string path = TempPath("huge.h5");
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  FixedStrings(f, "layer_names", {"big"}, 3, H5T_STR_NULLPAD);
  hid_t g = H5Gcreate2(f, "big", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  FixedStrings(g, "weight_names", {"w:0"}, 3, H5T_STR_NULLPAD);
  hsize_t dims[2] = {1 << 15, 1 << 15};
  hid_t space = H5Screate_simple(2, dims, nullptr);
  hid_t ds = H5Dcreate2(g, "w:0", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dclose(ds);
  H5Sclose(space);
  H5Gclose(g);
  H5Fclose(f);
  StatusOr<KerasH5File> r = ReadKerasH5File(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than the file holds"), std::string::npos) << r.status();
}

TEST(KerasH5FileTest, HdfFileThatIsNotKeras) {
  std::string path = TempPath("not_keras.h5");
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  StatusOr<KerasH5File> r = ReadKerasH5File(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a Keras HDF5 file"), std::string::npos);
  r = ReadKerasH5File(TempPath("no_such_file.h5"));
  EXPECT_FALSE(r.ok());
}

// A weights-only file with one layer "big" holding weight "w:0" of `n` floats (value i % 7),
// stored as `dcpl` says (H5P_DEFAULT: contiguous).
std::string WriteOneWeight(const std::string& name, hsize_t n, hid_t dcpl = H5P_DEFAULT,
                           hid_t type = H5T_IEEE_F32LE) {
  std::string path = TempPath(name);
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  FixedStrings(f, "layer_names", {"big"}, 3, H5T_STR_NULLPAD);
  hid_t g = H5Gcreate2(f, "big", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  FixedStrings(g, "weight_names", {"w:0"}, 3, H5T_STR_NULLPAD);
  hid_t space = H5Screate_simple(1, &n, nullptr);
  hid_t ds = H5Dcreate2(g, "w:0", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  std::vector<float> values(n);
  for (hsize_t i = 0; i < n; ++i) values[i] = static_cast<float>(i % 7);
  EXPECT_GE(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Dclose(ds);
  H5Sclose(space);
  H5Gclose(g);
  H5Fclose(f);
  return path;
}

// Chunks of `chunk` values, gzip level 9 when `gzip`.
hid_t ChunkedPlist(hsize_t chunk, bool gzip) {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &chunk);
  H5Pset_shuffle(dcpl);
  if (gzip) H5Pset_deflate(dcpl, 9);
  return dcpl;
}

bool Contains(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

TEST(KerasH5FileTest, GzipBombRefusedBeforeAllocatingUnlessTheRatioAllowsIt) {
  // 2^22 floats of a 7-periodic pattern: 16 MiB that gzip packs into a few hundred KB at most
  // (over 100:1).
  hid_t dcpl = ChunkedPlist(1 << 18, true);
  std::string path = WriteOneWeight("gzip_bomb.h5", hsize_t{1} << 22, dcpl);
  H5Pclose(dcpl);
  ASSERT_LT(std::filesystem::file_size(path), (16u << 20) / 100);
  StatusOr<KerasH5File> r = ReadKerasH5File(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_TRUE(Contains(r.status(), "weight 'w:0' in " + path + ":/big decompresses to 16777216"))
      << r.status();
  EXPECT_TRUE(Contains(r.status(), "max_compression_ratio")) << r.status();
  KerasH5ReadOptions lenient;
  lenient.max_compression_ratio = 100000;
  r = ReadKerasH5File(path, lenient);
  ASSERT_TRUE(r.ok()) << r.status();
  const Tensor& w = r->layers[0].weights[0].value;
  ASSERT_EQ(w.NumElements(), int64_t{1} << 22);
  EXPECT_EQ(w.data<float>()[(1 << 22) - 1], static_cast<float>(((1 << 22) - 1) % 7));
}

TEST(KerasH5FileTest, WeightAndAttributeCaps) {
  std::string path = WriteWeightsOnly(false);
  KerasH5ReadOptions options;
  options.max_weight_bytes = 30;  // dense_a's kernel (24 bytes) fits, its bias takes it past
  StatusOr<KerasH5File> r = ReadKerasH5File(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(r.status().message(), "weight 'dense_a/bias:0' in " + path +
                                      ":/dense_a takes the weights of the file past 30 bytes "
                                      "(KerasH5ReadOptions::max_weight_bytes)");
  options.max_weight_bytes = 16;  // the kernel alone is too big
  r = ReadKerasH5File(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "weight 'dense_a/kernel:0' in " + path + ":/dense_a"))
      << r.status();

  options = KerasH5ReadOptions();
  options.max_attribute_bytes = 8;  // keras_version (variable length) holds 9 bytes
  r = ReadKerasH5File(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "attribute 'keras_version' of " + path +
                                      " holds more than 8 bytes of strings "
                                      "(KerasH5ReadOptions::max_attribute_bytes)");
  options.max_attribute_bytes = 12;  // backend: one fixed string of 16 bytes
  r = ReadKerasH5File(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "attribute 'backend' of " + path + " claims 1 strings of 16"))
      << r.status();
}

TEST(KerasH5FileTest, ChunksFiltersAndExternalStorageAreChecked) {
  hid_t dcpl = ChunkedPlist(1 << 16, false);
  std::string path = WriteOneWeight("big_chunks.h5", 1 << 17, dcpl);
  H5Pclose(dcpl);
  KerasH5ReadOptions options;
  ASSERT_TRUE(ReadKerasH5File(path, options).ok());
  options.max_chunk_bytes = 1 << 17;  // a chunk is 2^16 floats, 256 KiB
  StatusOr<KerasH5File> r = ReadKerasH5File(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(),
                       "weight 'w:0' in " + path + ":/big has chunks of more than 131072 bytes"))
      << r.status();

  // N-bit packing: an HDF5 filter h5py can write but Keras never does.
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t chunk = 64;
  H5Pset_chunk(dcpl, 1, &chunk);
  H5Pset_nbit(dcpl);
  path = WriteOneWeight("nbit.h5", 256, dcpl);
  H5Pclose(dcpl);
  r = ReadKerasH5File(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnimplemented);
  EXPECT_TRUE(Contains(r.status(), "uses HDF5 filter 5")) << r.status();

  // Raw data in another file, named by the .h5: never followed.
  const std::string outside = TempPath("outside.bin");
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_external(dcpl, outside.c_str(), 0, 64 * 4);
  path = WriteOneWeight("external.h5", 64, dcpl);
  H5Pclose(dcpl);
  ASSERT_TRUE(std::filesystem::exists(outside));
  r = ReadKerasH5File(path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "keeps its data in external files")) << r.status();
}

TEST(KerasH5FileTest, NotARegularFileIsNamedWithoutOpeningIt) {
  // A FIFO would block HDF5's open for ever.
  const std::string fifo = TempPath("keras.fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (bool isolated : {false, true}) {
    StatusOr<KerasH5File> r = isolated ? ReadKerasH5FileIsolated(fifo) : ReadKerasH5File(fifo);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), "not a regular file: " + fifo);
  }
  StatusOr<KerasH5File> r = ReadKerasH5FileIsolated(::testing::TempDir());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "not a regular file")) << r.status();
}

void ExpectSameFile(const KerasH5File& a, const KerasH5File& b) {
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.keras_version, b.keras_version);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.model_config, b.model_config);
  EXPECT_EQ(a.training_config, b.training_config);
  EXPECT_EQ(a.has_optimizer_weights, b.has_optimizer_weights);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].layer, b.layers[i].layer);
    ASSERT_EQ(a.layers[i].weights.size(), b.layers[i].weights.size());
    for (size_t j = 0; j < a.layers[i].weights.size(); ++j) {
      const KerasWeight& x = a.layers[i].weights[j];
      const KerasWeight& y = b.layers[i].weights[j];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.value.shape(), y.value.shape()) << x.name;
      ASSERT_EQ(x.value.TotalBytes(), y.value.TotalBytes()) << x.name;
      EXPECT_EQ(std::memcmp(x.value.raw_data(), y.value.raw_data(), x.value.TotalBytes()), 0)
          << x.name;
    }
  }
}

TEST(KerasH5FileTest, IsolatedReadGivesExactlyTheInProcessResult) {
  KerasH5ReadOptions options;
  options.max_compression_ratio = 100000;
  hid_t dcpl = ChunkedPlist(1 << 18, true);
  const std::string gzip = WriteOneWeight("gzip_ok.h5", hsize_t{1} << 20, dcpl);
  H5Pclose(dcpl);
  for (const std::string& path : {WriteWeightsOnly(false), gzip}) {
    StatusOr<KerasH5File> in_process = ReadKerasH5File(path, options);
    StatusOr<KerasH5File> isolated = ReadKerasH5FileIsolated(path, options);
    ASSERT_TRUE(in_process.ok()) << in_process.status();
    ASSERT_TRUE(isolated.ok()) << isolated.status();
    ExpectSameFile(*in_process, *isolated);
  }
  // Errors the reader finds come back unchanged.
  const std::string missing = WriteWeightsOnly(true);
  StatusOr<KerasH5File> in_process = ReadKerasH5File(missing);
  StatusOr<KerasH5File> isolated = ReadKerasH5FileIsolated(missing);
  ASSERT_FALSE(isolated.ok());
  EXPECT_EQ(isolated.status(), in_process.status());
  EXPECT_EQ(isolated.status().code(), Code::kNotFound);
  // The caps apply in the child.
  options.max_weight_bytes = 16;
  isolated = ReadKerasH5FileIsolated(WriteWeightsOnly(false), options);
  ASSERT_FALSE(isolated.ok());
  EXPECT_EQ(isolated.status().code(), Code::kResourceExhausted);
}

TEST(KerasH5FileTest, IsolatedReadKilledAtTheTimeout) {
  // 64 MiB of weights take far longer than a millisecond to read and send through a pipe.
  const std::string path = WriteOneWeight("slow.h5", hsize_t{1} << 24);
  KerasH5ReadOptions options;
  options.timeout_seconds = 0.001;
  StatusOr<KerasH5File> r = ReadKerasH5FileIsolated(path, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_EQ(r.status().message(),
            path +
                ": the HDF5 library did not finish reading it in 0.001 s (a hang on a "
                "crafted file?); the reader process was killed");
  options.timeout_seconds = 60;
  r = ReadKerasH5FileIsolated(path, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->layers[0].weights[0].value.data<float>()[(1 << 24) - 1],
            static_cast<float>(((1 << 24) - 1) % 7));
}

TEST(KerasH5FileTest, IsolatedChildRunsUnderTheAddressSpaceLimit) {
  // A 48 MiB model_config (HDF5's dense attribute storage) in front of weights the budget
  // refuses: in-process the read gets past the attribute and stops at the budget; in a child
  // with 1 MiB of address space to spare it cannot hold the attribute (48 MiB is past glibc's
  // largest mmap threshold, so no free heap of the parent can serve it).
  const std::string path = TempPath("big_config.h5");
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  FixedStrings(f, "model_config", {std::string(48 << 20, 'x')}, 48 << 20, H5T_STR_NULLPAD);
  FixedStrings(f, "layer_names", {"dense_a"}, 7, H5T_STR_NULLPAD);
  hid_t g = H5Gcreate2(f, "dense_a", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  FixedStrings(g, "weight_names", {"dense_a/kernel:0"}, 16, H5T_STR_NULLPAD);
  Doubles(g, "dense_a/kernel:0", {2}, {1, 2});
  H5Gclose(g);
  H5Fclose(f);
  // Writing left the attribute's bytes on HDF5's free lists, mapped in this process.
  H5garbage_collect();
  KerasH5ReadOptions options;
  options.max_weight_bytes = 0;
  options.child_address_space_slack_bytes = 1 << 20;
  // Isolated first: HDF5 keeps freed blocks on its free lists, so after an in-process read of
  // the attribute a child would find the memory already mapped.
  StatusOr<KerasH5File> isolated = ReadKerasH5FileIsolated(path, options);
  StatusOr<KerasH5File> in_process = ReadKerasH5File(path, options);
  ASSERT_FALSE(in_process.ok());
  ASSERT_FALSE(isolated.ok());
  EXPECT_EQ(in_process.status().code(), Code::kResourceExhausted) << in_process.status();
  EXPECT_TRUE(Contains(in_process.status(), "KerasH5ReadOptions::max_weight_bytes"));
  if (internal::kSanitized) {
    // No limit is set under sanitizers (see keras_h5_internal.h).
    EXPECT_EQ(isolated.status(), in_process.status());
  } else {
    EXPECT_NE(isolated.status(), in_process.status());
    EXPECT_TRUE(Contains(isolated.status(), path)) << isolated.status();
  }
  // With the default room the child reads as far as the process does.
  options.child_address_space_slack_bytes = KerasH5ReadOptions().child_address_space_slack_bytes;
  EXPECT_EQ(ReadKerasH5FileIsolated(path, options).status(), in_process.status());
}

TEST(KerasH5FileTest, IsolatedReadsWhileOtherThreadsHoldLocks) {
  // Threads that keep Tensor's buffer cache and the HDF5 mutex busy at every fork: a child that
  // took either lock would hang until the timeout.
  const std::string path = WriteWeightsOnly(false);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      while (!stop) {
        if (t == 0) {
          EXPECT_TRUE(ReadKerasH5File(path).ok());
        } else {
          StatusOr<Tensor> big = Tensor::Allocate(::tensorflow::DT_FLOAT, TensorShape({1 << 16}));
          EXPECT_TRUE(big.ok());
        }
      }
    });
  }
  KerasH5ReadOptions options;
  options.timeout_seconds = internal::kAddressSanitizer ? 2 : 20;
  int ok = 0;
  for (int i = 0; i < 30; ++i) {
    StatusOr<KerasH5File> r = ReadKerasH5FileIsolated(path, options);
    if (internal::kAddressSanitizer && !r.ok()) {
      // Under the sanitizer a hang is possible, and must end at the timeout.
      EXPECT_TRUE(Contains(r.status(), "did not finish reading it in 2 s")) << r.status();
      continue;
    }
    EXPECT_TRUE(r.ok()) << r.status();
    ++ok;
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  if (!internal::kAddressSanitizer) {
    EXPECT_EQ(ok, 30);
  }
}

// The reply of a child for the weights-only file, as bytes.
std::string GoodReply() {
  StatusOr<KerasH5File> f = ReadKerasH5File(WriteWeightsOnly(false));
  EXPECT_TRUE(f.ok());
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<float>> values;
  for (KerasLayerWeights& layer : f->layers) {
    for (KerasWeight& w : layer.weights) {
      shapes.push_back({});
      for (int i = 0; i < w.value.dims(); ++i) shapes.back().push_back(w.value.dim_size(i));
      const float* p = w.value.data<float>();
      values.emplace_back(p, p + w.value.NumElements());
      w.value = Tensor();
    }
  }
  std::string bytes;
  EXPECT_TRUE(internal::WriteReply(*f, shapes, values, [&](const void* data, size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return true;
  }));
  return bytes;
}

StatusOr<KerasH5File> Decode(const std::string& bytes) {
  size_t at = 0;
  return internal::ReadReply("m.h5", KerasH5ReadOptions(), [&](void* data, size_t size) {
    if (size > bytes.size() - at) return DataLoss("m.h5: the reply ends early");
    std::memcpy(data, bytes.data() + at, size);
    at += size;
    return Status::OK();
  });
}

TEST(KerasH5FileTest, ReplyCutShortOrGarbledIsAnError) {
  const std::string good = GoodReply();
  StatusOr<KerasH5File> f = Decode(good);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->path, "m.h5");
  ASSERT_EQ(f->layers.size(), 2u);
  EXPECT_EQ(f->layers[0].weights[0].value.data<float>()[5], 6.5f);
  for (size_t cut = 0; cut < good.size(); ++cut) {
    StatusOr<KerasH5File> r = Decode(good.substr(0, cut));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_EQ(r.status().code(), Code::kDataLoss) << cut;
  }
  // Every byte flipped in turn: an error, or a file (a flip inside a weight's values), never a
  // crash or a huge allocation (every length is checked before it is allocated).
  auto flipped = [&](size_t at) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0xff);
    return Decode(bad);
  };
  for (size_t at = 0; at < good.size(); ++at) static_cast<void>(flipped(at));
  EXPECT_TRUE(Contains(flipped(0).status(), "malformed reply")) << flipped(0).status();
  EXPECT_TRUE(Contains(flipped(good.size() - 1).status(), "no end of reply"))
      << flipped(good.size() - 1).status();
  // A length near 2^64.
  std::string huge = good;
  std::memset(&huge[good.find("2.15.1") - 8], 0xff, 8);
  StatusOr<KerasH5File> r = Decode(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(),
                       "m.h5: malformed reply from the HDF5 reader process: "
                       "keras_version of 18446744073709551615 bytes"))
      << r.status();
  // An error reply is the child's status.
  std::string error;
  ASSERT_TRUE(internal::WriteErrorReply(NotFound("no weight"), [&](const void* d, size_t n) {
    error.append(static_cast<const char*>(d), n);
    return true;
  }));
  EXPECT_EQ(Decode(error).status(), NotFound("no weight"));
  error[8 + 1] = 99;  // code 99
  EXPECT_TRUE(Contains(Decode(error).status(), "error code 99")) << Decode(error).status();
}

}  // namespace
}  // namespace keras
}  // namespace graphrt
