#!/bin/sh
# Build the live reload test's module: the world of SRC/arena.yaml
# generated with --live into SRC/gen, compiled with SRC/*.c into OUT (a
# shared library, replaced at once). A file SRC/old-runtime makes the
# module say it was compiled against another runtime, as one built with an
# older Strata would. Usage: tests/live/build-module.sh SRC OUT
set -e
src=$1
out=$2
${PYTHON:-python3} -m codegen "$src/arena.yaml" -o "$src/gen" --live
if [ -f "$src/old-runtime" ]; then
    sed 's/\.runtime_version = STRATA_VERSION/.runtime_version = 1/' "$src/gen/arena_live.c" >"$src/gen/old.c"
    mv "$src/gen/old.c" "$src/gen/arena_live.c"
fi
${CC:-cc} -std=c11 -O0 -fPIC -fvisibility=hidden -shared -Wall -Wextra -Wpedantic -Werror -Iruntime/include \
    -I"$src/gen" -I"$src" "$src"/*.c "$src/gen/arena.c" "$src/gen/arena_live.c" -o "$out.tmp"
mv "$out.tmp" "$out"
