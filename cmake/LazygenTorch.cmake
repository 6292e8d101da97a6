# LAZYGEN_TORCH=AUTO|ON|OFF: the PyTorch device (runtime/pytorch/, python/lazygen_torch/). AUTO
# builds it when Debian's PyTorch is found: libtorch-dev (find_package(Torch)) and python3-torch
# for LAZYGEN_PYTHON.
#
# LAZYGEN_PYTHON is the one place the project names its Python: Debian's system python3, the one
# python3-torch installs for (another python3 earlier on PATH has no torch). Tests, the peer
# benchmarks and scripts/main (through build/lazygen-python) all run it.
set(LAZYGEN_PYTHON "/usr/bin/python3" CACHE FILEPATH
    "Python with PyTorch: Debian's system python3 (python3-torch)")
set(LAZYGEN_HAVE_TORCH OFF)

# Whether LAZYGEN_PYTHON imports torch (checked once per interpreter path; cached).
function(lazygen_python_has_torch out)
  if(NOT DEFINED LAZYGEN_PYTHON_TORCH_VERSION OR NOT LAZYGEN_PYTHON_CHECKED STREQUAL LAZYGEN_PYTHON)
    execute_process(COMMAND ${LAZYGEN_PYTHON} -c
                      "import sys, torch; print(torch.__version__, '%d.%d' % sys.version_info[:2])"
                    OUTPUT_VARIABLE versions RESULT_VARIABLE rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      set(versions ";")
    endif()
    string(REPLACE " " ";" versions "${versions}")
    list(GET versions 0 version)
    list(GET versions 1 python_version)
    set(LAZYGEN_PYTHON_TORCH_VERSION "${version}" CACHE INTERNAL "")
    set(LAZYGEN_PYTHON_VERSION "${python_version}" CACHE INTERNAL "")
    set(LAZYGEN_PYTHON_CHECKED "${LAZYGEN_PYTHON}" CACHE INTERNAL "")
  endif()
  set(${out} "${LAZYGEN_PYTHON_TORCH_VERSION}" PARENT_SCOPE)
endfunction()

if(NOT LAZYGEN_TORCH STREQUAL "OFF")
  find_package(Torch QUIET)
  lazygen_python_has_torch(_lazygen_py_torch)
  if(Torch_FOUND AND _lazygen_py_torch AND NOT LAZYGEN_SANITIZE)
    set(LAZYGEN_HAVE_TORCH ON)
    set(LAZYGEN_TORCH_STATUS "on (PyTorch ${_lazygen_py_torch}, ${LAZYGEN_PYTHON})")
  elseif(LAZYGEN_TORCH STREQUAL "ON")
    message(FATAL_ERROR "LAZYGEN_TORCH=ON but PyTorch was not found (libtorch-dev for CMake, "
      "python3-torch for ${LAZYGEN_PYTHON}).\n"
      "Install it with:  sudo apt-get install -y libtorch-dev python3-torch python3-torchvision "
      "python3-pytest\n(or configure with -DLAZYGEN_TORCH=AUTO or OFF)")
  elseif(LAZYGEN_SANITIZE)
    set(LAZYGEN_TORCH_STATUS "off: sanitizer builds leave out the PyTorch device (LAZYGEN_TORCH=AUTO)")
  elseif(NOT Torch_FOUND)
    set(LAZYGEN_TORCH_STATUS "off: libtorch-dev not found (LAZYGEN_TORCH=AUTO)")
  else()
    set(LAZYGEN_TORCH_STATUS "off: ${LAZYGEN_PYTHON} cannot import torch (LAZYGEN_TORCH=AUTO)")
  endif()
else()
  set(LAZYGEN_TORCH_STATUS "off (LAZYGEN_TORCH=OFF)")
endif()
