#!/bin/sh
# Build the live reload test's module: the world of SRC/arena.yaml
# generated with --live into SRC/gen, compiled with SRC/*.c into OUT (a
# shared library, replaced at once). A file SRC/old-runtime makes the
# module say it was compiled against another runtime, as one built with an
# older Strata would. Usage: tests/live/build-module.sh SRC OUT
#
# The test's sessions and variants build the same sources many times, so
# what the generator and the compiler make is kept in a cache they share
# (build/live-cache, or $STRATA_LIVE_CACHE), named by a hash of all they
# read: the generator's output by the schema's bytes, the generator's
# sources and this script; each object by its source's bytes, every header
# it may include (SRC's, SRC/gen's, the runtime's), the flags and the
# compiler. Each build still runs this script, writes SRC/gen and links
# OUT, so a session sees what a build gives; only successes are kept (a
# failed build runs in full every time, its diagnostics its own). The
# generator writes the schema's path into gen/arena_live.c (.schema, for a
# refusal's file:line:col), so a cached output has SRC's put back, and
# that file is compiled for each SRC. A path the generator would escape
# is built without the cache.
set -e
src=$1
out=$2
cache=${STRATA_LIVE_CACHE:-build/live-cache}
py=${PYTHON:-python3}
cc=${CC:-cc}
flags="-std=c11 -O0 -fPIC -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror"

# A name for what stdin holds.
hash() {
    sha256sum | cut -c1-32
}

# Move the filled file or folder $1 to the cache's $2 at once (a build
# running beside this one may have put the same there first).
keep() {
    mv -T "$1" "$cache/$2" 2>/dev/null || rm -rf "$1"
}

case $src in
*[!A-Za-z0-9_./-]*)
    "$py" -m codegen "$src/arena.yaml" -o "$src/gen" --live
    uncached=1
    ;;
*)
    mkdir -p "$src/gen" "$cache"
    generated=gen-$({
        ls -lL "$(command -v "$py")"
        find codegen -name '*.py' -o -name '*.j2' | sort | xargs cat
        cat "$0" "$src/arena.yaml"
    } | hash)
    if [ -f "$cache/$generated/arena_live.c" ]; then
        cp "$cache/$generated"/* "$src/gen/"
        sed "s|^    \.schema = \".*\",\$|    .schema = \"$src/arena.yaml\",|" \
            "$cache/$generated/arena_live.c" >"$src/gen/arena_live.c"
    else
        "$py" -m codegen "$src/arena.yaml" -o "$src/gen" --live
        mkdir -p "$cache/$generated.$$"
        cp "$src/gen"/* "$cache/$generated.$$/"
        keep "$cache/$generated.$$" "$generated"
    fi
    uncached=
    ;;
esac
if [ -f "$src/old-runtime" ]; then
    sed 's/\.runtime_version = STRATA_VERSION/.runtime_version = 1/' "$src/gen/arena_live.c" >"$src/gen/old.c"
    mv "$src/gen/old.c" "$src/gen/arena_live.c"
fi
if [ -n "$uncached" ]; then
    # shellcheck disable=SC2086
    "$cc" $flags -shared -Iruntime/include -I"$src/gen" -I"$src" "$src"/*.c "$src/gen/arena.c" \
        "$src/gen/arena_live.c" -o "$out.tmp"
    mv "$out.tmp" "$out"
    exit 0
fi
headers=$({
    echo "$cc $flags"
    "$cc" --version
    sha256sum runtime/include/*.h
    cd "$src" && sha256sum ./*.h gen/*.h
} | hash)
objects=
for c in "$src"/*.c "$src/gen/arena.c" "$src/gen/arena_live.c"; do
    o=o-$({ echo "$headers"; cat "$c"; } | hash).o
    if [ ! -f "$cache/$o" ]; then
        # shellcheck disable=SC2086
        "$cc" $flags -Iruntime/include -I"$src/gen" -I"$src" -c "$c" -o "$cache/$o.$$" || {
            rm -f "$cache/$o.$$"
            exit 1
        }
        keep "$cache/$o.$$" "$o"
    fi
    objects="$objects $cache/$o"
done
# shellcheck disable=SC2086
"$cc" -shared $objects -o "$out.tmp"
mv "$out.tmp" "$out"
