// NumPy .npy files (format versions 1.0, 2.0 and 3.0):
//
//   "\x93NUMPY" | major u8 | minor u8 | header_len (u16 LE in v1, u32 LE in v2/v3) |
//   header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//           padded with spaces and a final '\n' so that the data starts 64-byte aligned |
//   data: the elements, C order unless fortran_order.
//
// Element types: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 in either byte order, S<n> (bytes) and U<n>
// (UTF-32, read as UTF-8 strings). numpy has no bfloat16: a bfloat16 tensor is written as u2
// holding the raw bits, and ReadNpy(path, DT_BFLOAT16) reads u2 bits back as bfloat16.
#ifndef GRAPHRT_FORMATS_NPY_H_
#define GRAPHRT_FORMATS_NPY_H_

#include <string>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace graphrt {

StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& name_for_errors);
StatusOr<Tensor> ReadNpy(const std::string& path);
// As ReadNpy; u2 data is taken as bfloat16 bits when `want` is DT_BFLOAT16.
StatusOr<Tensor> ReadNpy(const std::string& path, DataType want);

StatusOr<std::string> SerializeNpy(const Tensor& tensor);
Status WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace graphrt

#endif  // GRAPHRT_FORMATS_NPY_H_
