#!/bin/sh
# `ninja bench-vec`: which of bench/vectorize.c's loops gcc vectorizes, and
# how wide, at the bench's -O2, with the dynamic cost model, and at -O3.
# 8-byte vectors hold one {f32 x, y} entity, 16-byte vectors two.
set -eu
src=bench/vectorize.c
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc --version | head -1
for flags in "-O2" "-O2 -fvect-cost-model=dynamic" "-O3"; do
    echo
    echo "== gcc $flags"
    gcc -std=c11 -Wall -Wextra -Wpedantic -Werror $flags -DNDEBUG -Iruntime/include -Ibuild/gen \
        -fopt-info-vec-optimized="$out/info" -c "$src" -o "$out/v.o"
    grep -n '/\* loop: ' "$src" | while IFS=: read -r line text; do
        name=$(echo "$text" | sed 's/.*loop: \(.*\) \*\/.*/\1/')
        sizes=$(grep "^$src:$line:" "$out/info" | grep -o 'loop vectorized using [0-9]* byte' | grep -o '[0-9]*' |
            sort -rnu | tr '\n' ' ')
        case "$sizes" in
        "16 8 ") verdict="16-byte vectors: 2 entities a step (8-byte epilogue)" ;;
        "8 ") verdict="8-byte vectors: 1 entity a step" ;;
        "") verdict="not vectorized: scalar" ;;
        *) verdict="vectors of $sizes bytes" ;;
        esac
        if grep -q "^$src:$line:.*versioned.*aliasing" "$out/info"; then
            verdict="$verdict, behind a run-time alias check"
        fi
        printf '  %-46s %s\n' "$name" "${verdict:-not vectorized}"
    done
done
