// CUDA device queries (CUDA build only; the OMP build of this file is empty).
#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include <string>

#include "kernels/contention.hpp"

namespace floorsim::kernels::cuda {

bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::string device_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return p.name;
}

}  // namespace floorsim::kernels::cuda
#endif
