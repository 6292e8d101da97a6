#!/usr/bin/env bash
# What adding or editing one op costs a user after the README's main command: the incremental
# rebuild of the tree (ccache warm), measured in a scratch clone so the working tree is untouched.
#
#   edit_op  one op's `pointwise:` expression changes (silu's, to an equal expression)
#   add_op   a new pointwise op with its derivative is appended to ops.yaml (softsign)
#
# For each: the generated files lazygen rewrote, the translation units compiled and the targets
# linked (from ninja's output), and the wall time of `lazygen` + `ninja` (the goal: <= 30 s).
# Prints one JSON object on its last line.
#
# usage: bench/rebuild_cost.sh <scratch dir> [<jobs>]   (the scratch dir is deleted first)
# The first run builds the whole scratch clone (about 20 minutes on 2 cores).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
scratch=$1 jobs=${2:-2}
rm -rf "$scratch"
git clone -q "$src" "$scratch"
cd "$scratch"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
# ccache hashes absolute paths: relative to the scratch dir, a second run of this script hits.
export CCACHE_BASEDIR="$scratch"
echo "== building the scratch clone (a full build the first time)" >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
ninja -C build -j "$jobs" >/dev/null

# Runs lazygen and ninja; prints "<seconds> <generated files changed> <compiled> <linked>".
rebuild() {
  local start end log
  start=$(date +%s.%N)
  build/generator/lazygen ops.yaml >/dev/null
  log=$(ninja -C build -j "$jobs")
  end=$(date +%s.%N)
  local changed compiled linked
  changed=$(git status --porcelain -- generated | wc -l)
  compiled=$(grep -c "Building CXX object\|Building CUDA object" <<<"$log" || true)
  linked=$(grep -c "Linking CXX" <<<"$log" || true)
  echo "$(awk "BEGIN { printf \"%.1f\", $end - $start }") $changed $compiled $linked"
}

echo "== edit_op: silu's pointwise expression" >&2
sed -i 's|  pointwise: self / (1 + exp(-self))|  pointwise: self / (exp(-self) + 1)|' ops.yaml
grep -q "pointwise: self / (exp(-self) + 1)" ops.yaml
read -r edit_s edit_files edit_tus edit_links < <(rebuild)
git checkout -q -- ops.yaml generated
ninja -C build -j "$jobs" >/dev/null  # back to the committed state (not timed)

echo "== add_op: softsign and its derivative" >&2
cat >>ops.yaml <<'EOF'

- func: softsign(Tensor self) -> Tensor
  shape: same
  dtype: float
  pointwise: self / (1 + abs(self))
  derivatives:
    self: grad / ((1 + abs(self)) * (1 + abs(self)))
EOF
read -r add_s add_files add_tus add_links < <(rebuild)
total=$(git ls-files generated | wc -l)

printf '{"edit_op": {"seconds": %s, "generated_files_changed": %s, "compiled": %s, "linked": %s}, ' \
  "$edit_s" "$edit_files" "$edit_tus" "$edit_links"
printf '"add_op": {"seconds": %s, "generated_files_changed": %s, "compiled": %s, "linked": %s}, ' \
  "$add_s" "$add_files" "$add_tus" "$add_links"
printf '"generated_files": %s, "jobs": %s}\n' "$total" "$jobs"
