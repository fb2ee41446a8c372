#!/bin/sh
# Run one libFuzzer target for a bounded time: it starts from the checked-in
# corpus (tests/fuzz/corpus/TARGET/, read only) and the inputs it found
# before (build/fuzz/corpus/TARGET/, where new ones go); a crash is written
# to build/fuzz/TARGET-crash-* and fails the run.
# Usage: tools/fuzz.sh SECONDS TARGET EXECUTABLE
set -eu
seconds=$1 target=$2 exe=$3
mkdir -p "build/fuzz/corpus/$target"
echo "fuzz: $target for $seconds s"
"$exe" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/$target-" "build/fuzz/corpus/$target" "tests/fuzz/corpus/$target"
