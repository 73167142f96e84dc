#pragma once
// Portability macros for the kernel sources, which are compiled twice: by g++ with Thrust's OMP
// backend (FLOORSIM_BACKEND = omp) and by nvcc for CUDA (FLOORSIM_BACKEND = cuda). Everything a
// kernel source defines lives in namespace floorsim::kernels::FLOORSIM_BACKEND, so the two builds
// can be linked into one binary without clashing (no ODR games between compilers).
#if defined(__CUDACC__)
#define FLOORSIM_HD __host__ __device__
#define FLOORSIM_BACKEND cuda
#else
#define FLOORSIM_HD
#define FLOORSIM_BACKEND omp
#endif
