// The public checkpoint facade (graphrt/checkpoint.h) over BundleReader and BundleWriter, so that
// the table, mapped-file and slice internals stay out of the installed headers.
#include <graphrt/checkpoint.h>

#include <utility>

#include "formats/tensor_bundle/bundle_reader.h"
#include "formats/tensor_bundle/bundle_writer.h"

namespace graphrt {

CheckpointReader::CheckpointReader(std::unique_ptr<BundleReader> reader)
    : reader_(std::move(reader)) {}

CheckpointReader::~CheckpointReader() = default;

StatusOr<std::unique_ptr<CheckpointReader>> CheckpointReader::Open(const std::string& prefix) {
  GRT_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(prefix));
  return std::unique_ptr<CheckpointReader>(new CheckpointReader(std::move(reader)));
}

const std::string& CheckpointReader::prefix() const { return reader_->prefix(); }

std::vector<std::string> CheckpointReader::Keys() const { return reader_->Keys(); }

bool CheckpointReader::Contains(const std::string& key) const { return reader_->Contains(key); }

StatusOr<CheckpointTensorInfo> CheckpointReader::Info(const std::string& key) const {
  GRT_ASSIGN_OR_RETURN(::tensorflow::BundleEntryProto entry, reader_->Entry(key));
  CheckpointTensorInfo info;
  info.name = key;
  info.dtype = entry.dtype();
  GRT_ASSIGN_OR_RETURN(info.shape, TensorShape::FromProto(entry.shape()));
  return info;
}

StatusOr<std::vector<CheckpointTensorInfo>> CheckpointReader::List() const {
  std::vector<CheckpointTensorInfo> infos;
  for (const std::string& key : reader_->Keys()) {
    GRT_ASSIGN_OR_RETURN(CheckpointTensorInfo info, Info(key));
    infos.push_back(std::move(info));
  }
  return infos;
}

StatusOr<Tensor> CheckpointReader::Read(const std::string& key) { return reader_->Read(key); }

CheckpointWriter::CheckpointWriter(const std::string& prefix, int num_shards)
    : writer_(std::make_unique<BundleWriter>(prefix, BundleWriterOptions{num_shards})) {}

CheckpointWriter::~CheckpointWriter() = default;

Status CheckpointWriter::Add(const std::string& key, const Tensor& tensor) {
  return writer_->Add(key, tensor);
}

Status CheckpointWriter::Finish() { return writer_->Finish(); }

}  // namespace graphrt
