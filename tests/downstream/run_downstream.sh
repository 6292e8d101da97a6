#!/usr/bin/env bash
# Builds tests/downstream both ways a user would and runs its demo:
#   1. add_subdirectory(lazygen) from the source tree
#   2. find_package(lazygen) after `cmake --install` of the build under test (with its CUDA part,
#      downstream_cuda_demo, when that build has CUDA); and, when that build has the PyTorch
#      device, the installed lazygen_torch package imported and used by <python>
# usage: run_downstream.sh <lazygen source dir> <lazygen build dir> <scratch dir> [<python>]
set -euo pipefail
src=$1 build=$2 scratch=$3 python=${4:-}
rm -rf "$scratch" && mkdir -p "$scratch"
gen=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

echo "== downstream via add_subdirectory(lazygen)"
cmake -S "$src/tests/downstream" -B "$scratch/subdir" "${gen[@]}" "${launcher[@]}" -DLAZYGEN_SOURCE_DIR="$src" >/dev/null
cmake --build "$scratch/subdir" -j "$(nproc)" --target downstream_demo
"$scratch/subdir/downstream_demo"

echo "== downstream via find_package(lazygen) after cmake --install"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$src/tests/downstream" -B "$scratch/installed" "${gen[@]}" "${launcher[@]}" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/installed" -j "$(nproc)"
"$scratch/installed/downstream_demo"
# Built only when the installed lazygen has CUDA (lazygen::cuda, CUDA AOT kernels).
if [[ -x "$scratch/installed/downstream_cuda_demo" ]]; then "$scratch/installed/downstream_cuda_demo"; fi
# The installed Python package (when the build has the PyTorch device).
package=$(find "$scratch/prefix" -name liblazygen_torch.so -printf '%h\n' 2>/dev/null | head -n 1)
if [[ -n "$package" && -n "$python" ]]; then
  echo "== the installed lazygen_torch package"
  PYTHONPATH="$(dirname "$package")" "$python" -c '
import torch, lazygen_torch
x = (torch.arange(4.0).to(lazygen_torch.device()) * 2).cpu()
assert x.tolist() == [0.0, 2.0, 4.0, 6.0], x
print("lazygen_torch from", lazygen_torch.__file__, "ok")'
fi
