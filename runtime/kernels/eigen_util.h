// Eigen views of graphrt Tensors for CPU kernels. Include this (not Eigen's Tensor module
// directly) so every kernel sees the same EIGEN_USE_THREADS setting.
#ifndef GRAPHRT_RUNTIME_KERNELS_EIGEN_UTIL_H_
#define GRAPHRT_RUNTIME_KERNELS_EIGEN_UTIL_H_

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include "runtime/core/tensor.h"

namespace graphrt {

template <typename T, int N>
using EigenTensorMap = Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, Eigen::DenseIndex>>;
template <typename T, int N>
using ConstEigenTensorMap =
    Eigen::TensorMap<Eigen::Tensor<const T, N, Eigen::RowMajor, Eigen::DenseIndex>>;

template <typename T>
EigenTensorMap<T, 1> Flat(Tensor& t) {
  return EigenTensorMap<T, 1>(t.data<T>(), t.NumElements());
}
template <typename T>
ConstEigenTensorMap<T, 1> Flat(const Tensor& t) {
  return ConstEigenTensorMap<T, 1>(t.data<T>(), t.NumElements());
}

// The tensor viewed with rank N. REQUIRES: t.dims() == N.
template <typename T, int N>
EigenTensorMap<T, N> AsEigen(Tensor& t) {
  Eigen::DSizes<Eigen::DenseIndex, N> dims;
  for (int i = 0; i < N; ++i) dims[i] = t.dim_size(i);
  return EigenTensorMap<T, N>(t.data<T>(), dims);
}
template <typename T, int N>
ConstEigenTensorMap<T, N> AsEigen(const Tensor& t) {
  Eigen::DSizes<Eigen::DenseIndex, N> dims;
  for (int i = 0; i < N; ++i) dims[i] = t.dim_size(i);
  return ConstEigenTensorMap<T, N>(t.data<T>(), dims);
}

// The tensor viewed with the given dims (their product must equal NumElements()).
template <typename T, int N>
EigenTensorMap<T, N> Shaped(Tensor& t, const Eigen::DSizes<Eigen::DenseIndex, N>& dims) {
  return EigenTensorMap<T, N>(t.data<T>(), dims);
}
template <typename T, int N>
ConstEigenTensorMap<T, N> Shaped(const Tensor& t, const Eigen::DSizes<Eigen::DenseIndex, N>& dims) {
  return ConstEigenTensorMap<T, N>(t.data<T>(), dims);
}

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_KERNELS_EIGEN_UTIL_H_
