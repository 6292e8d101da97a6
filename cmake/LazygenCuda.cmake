# LAZYGEN_CUDA=AUTO|ON|OFF. AUTO builds the CUDA backend when the toolkit (nvcc, NVRTC, cuBLAS) is
# found; without it the no_cuda stubs are built and CUDA devices report "not compiled in".
set(LAZYGEN_HAVE_CUDA OFF)
if(NOT LAZYGEN_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND TARGET CUDA::nvrtc AND TARGET CUDA::cublas)
    # Set before enable_language, which otherwise fixes the compiler's default architecture.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      set(CMAKE_CUDA_ARCHITECTURES 90)  # H100/H200; override with -DCMAKE_CUDA_ARCHITECTURES
    endif()
    enable_language(CUDA)
    set(LAZYGEN_HAVE_CUDA ON)
    set(CMAKE_CUDA_STANDARD 17)  # what CMake 3.25 knows for nvcc; the kernels need no more
    set(LAZYGEN_CUDA_STATUS "on (CUDA ${CUDAToolkit_VERSION}, archs ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(LAZYGEN_CUDA STREQUAL "ON")
    message(FATAL_ERROR "LAZYGEN_CUDA=ON but the CUDA toolkit (nvcc, NVRTC, cuBLAS) was not found.\n"
      "Install the CUDA toolkit, or configure with -DLAZYGEN_CUDA=AUTO or OFF.")
  else()
    set(LAZYGEN_CUDA_STATUS "off: CUDA toolkit not found (LAZYGEN_CUDA=AUTO)")
  endif()
else()
  set(LAZYGEN_CUDA_STATUS "off (LAZYGEN_CUDA=OFF)")
endif()
