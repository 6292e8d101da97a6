#!/usr/bin/env bash
# Builds tests/downstream the three ways a user would and runs its demos:
#   1. add_subdirectory(lazygen) from the source tree: lazygen's generator, built here, writes
#      my_runtime's sources at build time; downstream_demo and the reference backend's consistency
#      suite run on it
#   2. find_package(lazygen) after `cmake --install` of the build under test: the demos linking
#      lazygen::runtime, lazygen::data, lazygen::distributed and lazygen::cuda (with AOT kernels
#      from cuda_demo.manifest, and their CUDA part when that build has CUDA) build and run; and,
#      when that build has the PyTorch device, the installed lazygen_torch package is imported and
#      used by <python>
#   3. vendored, against the same installed lazygen: lazygen_generate writes my_runtime's generated
#      sources once into a scratch copy of the project's tree; a fresh build of that copy,
#      configured with LAZYGEN_EXECUTABLE=/bin/false, must build and run without lazygen (every
#      demo but the CUDA one, and the consistency suite); then its my_runtime_generated_in_sync
#      test (lazygen --check) passes, fails once a vendored file is edited, and passes after
#      my_runtime_generate
# my_runtime (lazygen's runtime compiled with this project's ops) is compiled by modes 1 and 3
# only. Mode 2 builds just the demos on lazygen's installed libraries (the target lazygen_demos);
# mode 1 leaves those demos out, which would compile lazygen's own runtime from source once more.
# usage: run_downstream.sh <lazygen source dir> <lazygen build dir> <scratch dir> [<python>]
set -euo pipefail
src=$1 build=$2 scratch=$3 python=${4:-}
rm -rf "$scratch" && mkdir -p "$scratch"
gen=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
# run_demos <build dir>: every demo that was built there (downstream_demo on my_runtime, and the
# CMake target lazygen_demos' demos on lazygen's own libraries), in name order.
run_demos() {
  for demo in "$1"/downstream_*demo; do
    if [[ -f "$demo" && -x "$demo" ]]; then "$demo"; fi
  done
}
# run_consistency <build dir>: the out-of-tree backend through lazygen's consistency suite on
# my_runtime (the CTest test reference_consistency).
run_consistency() {
  quietly "$1/reference_consistency.log" \
    ctest --test-dir "$1" -R '^reference_consistency$' --output-on-failure --no-tests=error
  echo "   reference backend, consistency suite: $(grep -m1 'tests passed' "$1/reference_consistency.log")"
}
# quietly <log> <command...>: the command's output goes to <log>, shown when it fails.
quietly() {
  local log=$1; shift
  "$@" >"$log" 2>&1 || { cat "$log"; echo "failed: $*" >&2; return 1; }
}

echo "== downstream via add_subdirectory(lazygen)"
start=$SECONDS
quietly "$scratch/subdir.log" cmake -S "$src/tests/downstream" -B "$scratch/subdir" "${gen[@]}" "${launcher[@]}" \
  -DLAZYGEN_SOURCE_DIR="$src"
# Not `all`: that would build every part of lazygen (the PyTorch device too).
cmake --build "$scratch/subdir" -j "$(nproc)" --target downstream_demo reference_consistency
run_demos "$scratch/subdir"
run_consistency "$scratch/subdir"
echo "   ($((SECONDS - start)) s)"

echo "== downstream via find_package(lazygen) after cmake --install"
start=$SECONDS
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
quietly "$scratch/installed.log" cmake -S "$src/tests/downstream" -B "$scratch/installed" "${gen[@]}" "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$scratch/prefix"
cmake --build "$scratch/installed" -j "$(nproc)" --target lazygen_demos
# downstream_cuda_demo runs its CUDA kernels only when the installed lazygen has CUDA and a GPU.
run_demos "$scratch/installed"
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
echo "   ($((SECONDS - start)) s)"

echo "== downstream from a vendored generated/ (lazygen_generate), built without lazygen"
start=$SECONDS
tree="$scratch/vendored-tree"
cp -r "$src/tests/downstream" "$tree"
rm -rf "$tree/generated"
vendored=("${gen[@]}" "${launcher[@]}" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DDOWNSTREAM_VENDORED=ON)
# Generate once, as a user does before checking generated/ in (this configure warns that
# generated/ is empty).
quietly "$scratch/vendor-generate.log" cmake -S "$tree" -B "$scratch/vendor-generate" "${vendored[@]}"
cmake --build "$scratch/vendor-generate" --target my_runtime_generate
# A machine without the generator: lazygen is /bin/false, so the build fails if it runs lazygen.
quietly "$scratch/vendored.log" cmake -S "$tree" -B "$scratch/vendored" "${vendored[@]}" -DLAZYGEN_EXECUTABLE=/bin/false
cmake --build "$scratch/vendored" -j "$(nproc)"
run_demos "$scratch/vendored"
run_consistency "$scratch/vendored"
# With the generator back, nothing rebuilds, and the check test follows the vendored copy.
quietly "$scratch/vendored.log" cmake -S "$tree" -B "$scratch/vendored" -DLAZYGEN_EXECUTABLE="$scratch/prefix/bin/lazygen"
cmake --build "$scratch/vendored" >"$scratch/rebuild.log"
if ! grep -q "no work to do" "$scratch/rebuild.log"; then
  cat "$scratch/rebuild.log"
  echo "the vendored build would rebuild once LAZYGEN_EXECUTABLE is lazygen" >&2
  exit 1
fi
check=(ctest --test-dir "$scratch/vendored" -R '^my_runtime_generated_in_sync$' --output-on-failure --no-tests=error)
"${check[@]}"
echo "// edited by hand" >>"$tree/generated/src/op_info.cpp"
if "${check[@]}" >"$scratch/check-stale.log" 2>&1; then
  echo "my_runtime_generated_in_sync passed on an edited vendored copy" >&2
  exit 1
elif ! grep -q "is stale" "$scratch/check-stale.log"; then
  cat "$scratch/check-stale.log"
  echo "my_runtime_generated_in_sync failed on an edited vendored copy, but not as stale" >&2
  exit 1
fi
echo "   my_runtime_generated_in_sync fails on an edited vendored copy, as it should"
cmake --build "$scratch/vendored" --target my_runtime_generate
"${check[@]}"
echo "   ($((SECONDS - start)) s)"
