#!/usr/bin/env bash
# expect_failure.sh SECONDS REGEX COMMAND...: passes when COMMAND fails (a non-zero status) within
# SECONDS, without being killed by the time limit, and its output matches the extended REGEX.
# The distributed tests use it for the failures that must be reported, not hang.
set -uo pipefail
limit=$1 regex=$2
shift 2
output=$(timeout --kill-after=10 "$limit" "$@" 2>&1)
status=$?
printf '%s\n' "$output"
if ((status == 0)); then echo "expect_failure: the command succeeded"; exit 1; fi
if ((status == 124 || status == 137)); then echo "expect_failure: still running after ${limit} s"; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$output"; then echo "expect_failure: no line matches /$regex/"; exit 1; fi
echo "expect_failure: failed as expected (status $status)"
