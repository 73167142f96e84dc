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

double device_memory_bandwidth_bytes_per_s() {
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) != cudaSuccess)
    return 0.0;
  return 2.0 * clock_khz * 1e3 * bus_bits / 8.0;  // double data rate
}

}  // namespace floorsim::kernels::cuda
#endif
