// TensorFlow's V2 checkpoint format ("TensorBundle"): what BundleReader reads and BundleWriter
// writes.
//
//   PREFIX.index                     a table (table.h): key → serialized proto
//     ""                             BundleHeaderProto {num_shards, endianness, version}
//                                    (version.producer 1, min_consumer 0); always the first key
//     tensor name                    BundleEntryProto {dtype, shape, shard_id, offset, size,
//                                    crc32c: masked crc32c of the `size` data bytes}
//     partitioned tensor name        BundleEntryProto {dtype, shape (the full tensor), slices};
//                                    no data of its own: each slice is an entry of its own under
//                                    EncodeTensorNameSlice(name, slice) (tensor_slice.h)
//   PREFIX.data-SSSSS-of-NNNNN       shard SSSSS of NNNNN: tensors packed back to back
//
// Tensor bytes, in the header's byte order (TensorFlow writes the host's, little-endian):
//   numeric and bool: the elements, row-major (bfloat16: the upper half of a float32; bool: 1 byte)
//   string:  varint64 length, for each element | fixed32 Mask(crc32c of the lengths) |
//            the elements' bytes, back to back
//            The length checksum and the entry's crc32c take each length as a fixed32 (a fixed64
//            when >= 2^32), not as its varint bytes; the entry's crc32c runs over those lengths,
//            then the 4 stored checksum bytes, then the elements' bytes.
//   variant: per element varint64 length | VariantTensorDataProto | fixed32 masked running crc
#ifndef GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_FORMAT_H_
#define GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/status.h"
#include "runtime/core/types.h"

namespace graphrt {
namespace bundle {

// The key of the header entry.
inline constexpr char kHeaderEntryKey[] = "";
// BundleHeaderProto.version: written as producer 1, min_consumer 0; read if compatible.
inline constexpr int kTensorBundleVersion = 1;
inline constexpr int kTensorBundleMinProducer = 0;
inline constexpr int kTensorBundleMinConsumer = 0;

std::string IndexFilename(const std::string& prefix);
// "PREFIX.data-00001-of-00003".
std::string DataFilename(const std::string& prefix, int shard, int num_shards);

inline bool HostIsLittleEndian() {
  const uint16_t probe = 1;
  return *reinterpret_cast<const uint8_t*>(&probe) == 1;
}

// Whether tensors of this dtype are stored as raw elements (numeric types and bool).
bool IsRawStoredType(DataType dtype);
// The size of the units whose bytes are swapped when the byte order differs: the element size,
// or the size of one component of a complex number.
int ByteSwapUnit(DataType dtype);
// Reverses the bytes of each `unit`-byte group of data[0, bytes).
void ByteSwap(char* data, size_t bytes, int unit);

// Appends the encoding of `n` strings to `*out`; returns the unmasked crc32c for the entry.
uint32_t EncodeStringTensor(const std::string* strings, int64_t n, std::string* out);
// Decodes the bytes of a string tensor of `n` elements, checking the length checksum, that the
// lengths fit, and that they account for every byte. `strings` (n elements) may be null to only
// check. Sets `*crc` to the unmasked crc32c the entry should hold. `swap`: the data's byte order
// differs from the host's. DATA_LOSS on any inconsistency.
Status DecodeStringTensor(std::string_view data, int64_t n, bool swap, std::string* strings,
                          uint32_t* crc);

}  // namespace bundle
}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_TENSOR_BUNDLE_BUNDLE_FORMAT_H_
