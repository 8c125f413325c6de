#include "formats/graph_def.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "formats/file_util.h"
#include "runtime/core/exception_barrier.h"
#include "runtime/core/str_util.h"

namespace graphrt {

namespace {

bool LooksLikeText(std::string_view bytes) {
  size_t n = std::min<size_t>(bytes.size(), 4096);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x09 || (c > 0x0d && c < 0x20)) return false;
  }
  return true;
}

// Collects text-format parse errors instead of letting protobuf print them.
class ErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) first_ = StrCat("line ", line + 1, " column ", column + 1, ": ", message);
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

static Status ReadBinaryOrTextProtoUnguarded(const std::string& path, const std::string& what,
                                             google::protobuf::Message* message);

Status ReadBinaryOrTextProto(const std::string& path, const std::string& what,
                             google::protobuf::Message* message) {
  return StatusFromExceptions("reading a proto",
                              [&] { return ReadBinaryOrTextProtoUnguarded(path, what, message); });
}

// A binary proto is parsed as the file is read, through a small buffer: a frozen graph's weights
// are copied once, into the message, instead of first into a string as large as the file. Sets
// *parsed when it read the file so; else (a text proto, an empty or unreadable file) the caller
// reads the file whole.
static Status ParseBinaryProtoFromFile(const std::string& path, const std::string& what,
                                       google::protobuf::Message* message, bool* parsed) {
  *parsed = false;
  if (IsDirectory(path)) return Status::OK();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::OK();
  char head[4096];
  const ssize_t n = ::pread(fd, head, sizeof(head), 0);
  if (n <= 0 || LooksLikeText(std::string_view(head, static_cast<size_t>(n)))) {
    ::close(fd);
    return Status::OK();
  }
  *parsed = true;
  google::protobuf::io::FileInputStream input(fd, 1 << 20);
  bool ok;
  {
    google::protobuf::io::CodedInputStream stream(&input);
    stream.SetRecursionLimit(1000);
    ok = message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
  }
  const int error = input.GetErrno();
  ::close(fd);
  if (ok && error == 0) return Status::OK();
  message->Clear();
  if (error != 0) return DataLoss("error reading ", path, ": ", std::strerror(error));
  return DataLoss("could not parse ", path, " as a binary ", what, " (truncated or not a ", what,
                  ")");
}

static Status ReadBinaryOrTextProtoUnguarded(const std::string& path, const std::string& what,
                                             google::protobuf::Message* message) {
  bool parsed = false;
  Status streamed = ParseBinaryProtoFromFile(path, what, message, &parsed);
  if (parsed) return streamed;
  GRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  if (bytes.empty()) return DataLoss(path, " is empty: not a ", what);
  bool text_first = LooksLikeText(bytes);
  if (!text_first) {
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                  static_cast<int>(bytes.size()));
    stream.SetRecursionLimit(1000);
    if (message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage()) {
      return Status::OK();
    }
    message->Clear();
    return DataLoss("could not parse ", path, " as a binary ", what, " (truncated or not a ", what,
                    ")");
  }
  google::protobuf::TextFormat::Parser parser;
  ErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(bytes, message)) return Status::OK();
  message->Clear();
  // Some binary protos happen to be printable bytes.
  if (message->ParseFromString(bytes)) return Status::OK();
  message->Clear();
  return DataLoss("could not parse ", path, " as a binary or text ", what, ": ", errors.first());
}

Status ReadGraphDef(const std::string& path, ::tensorflow::GraphDef* graph_def) {
  return ReadBinaryOrTextProto(path, "GraphDef", graph_def);
}

Status WriteBinaryOrTextProto(const std::string& path, const google::protobuf::Message& message,
                              const WriteProtoOptions& options) {
  std::string bytes;
  const bool text = options.text || EndsWith(path, ".pbtxt");
  if (text ? !google::protobuf::TextFormat::PrintToString(message, &bytes)
           : !message.SerializeToString(&bytes)) {
    return Internal("could not serialize ", message.GetTypeName(), " for ", path);
  }
  WriteFileOptions file_options;
  file_options.sync = true;
  file_options.overwrite = options.overwrite;
  return WriteStringToFile(path, bytes, file_options);
}

Status WriteGraphDef(const std::string& path, const ::tensorflow::GraphDef& graph_def,
                     const WriteProtoOptions& options) {
  return WriteBinaryOrTextProto(path, graph_def, options);
}

}  // namespace graphrt
