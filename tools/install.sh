#!/bin/sh
# Install Strata under $DESTDIR$PREFIX (PREFIX defaults to /usr/local):
#   bin/strata-gen                       the generator's command
#   share/strata/codegen/                the generator's package (and its
#                                        bytecode) and templates
#   share/strata/strata.schema.json      the schema language's JSON Schema, for editors
#   include/strata.h                     the runtime's header
#   lib/libstrata.a                      the runtime, release build (-O2 -DNDEBUG)
#   lib/libstrata_debug.a                the runtime, debug build (-O0 -g, asserts on)
#   lib/libstrata_json.a                 JSON loading (needs yajl)
#   lib/pkgconfig/strata.pc, strata-debug.pc, strata-json.pc
#                                        their flags, for pkg-config
#   include/strata_inspect.h, lib/libstrata_inspect.a,
#   lib/pkgconfig/strata-inspect.pc      the live inspector (needs civetweb),
#                                        when INSPECT.a is given
#   include/strata_live.h, lib/libstrata_live.a,
#   lib/pkgconfig/strata-live.pc         live reload, when LIVE.a is given
#   lib/cmake/Strata/                    the CMake package: find_package(Strata),
#                                        imported targets, strata_add_world
#   share/strata/install-manifest.txt    every file written and every
#                                        directory created, for uninstall.sh
# An earlier install with a manifest in the same place is uninstalled first,
# so that files a newer version no longer ships do not stay behind.
# Usage: [PREFIX=/usr/local] [DESTDIR=] sh tools/install.sh RELEASE.a DEBUG.a JSON.a [INSPECT.a [LIVE.a]]
set -eu

if [ $# -lt 3 ] || [ $# -gt 5 ]; then
    echo "usage: tools/install.sh LIBSTRATA_RELEASE.a LIBSTRATA_DEBUG.a LIBSTRATA_JSON.a [LIBSTRATA_INSPECT.a" \
        "[LIBSTRATA_LIVE.a]]" >&2
    exit 1
fi
tools=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$tools")
. "$tools/install-common.sh"

version=$(sed -n 's/^#define STRATA_VERSION_STRING "\(.*\)"$/\1/p' "$top/runtime/include/strata.h")
if [ -z "$version" ]; then
    echo "strata: no STRATA_VERSION_STRING in runtime/include/strata.h" >&2
    exit 1
fi
# strata-gen runs with the Python the build checked for Jinja2 and PyYAML:
# the interpreter itself, not a wrapper on PATH that may pick another one.
python=$(python3 -c 'import sys; print(sys.executable)') && [ -n "$python" ] || {
    echo "strata: python3 not found, or it cannot name its executable" >&2
    exit 1
}

if [ -f "$DESTDIR$MANIFEST" ]; then
    sh "$tools/uninstall.sh" >/dev/null
fi
if [ -n "$DESTDIR" ]; then
    mkdir -p "$DESTDIR" # the staging root itself is not part of the install
fi

early="" # records made before the manifest's directory exists

# record KIND PATH: add a line to the manifest (PATH without DESTDIR).
record() {
    if [ -f "$DESTDIR$MANIFEST" ]; then
        printf '%s %s\n' "$1" "$2" >>"$DESTDIR$MANIFEST"
    else
        early="$early$1 $2
"
    fi
}

# make_dir DIR: create DIR (under PREFIX) one level at a time, recording each
# level created, so that uninstall removes those and only those.
make_dir() {
    if [ -d "$DESTDIR$1" ]; then
        return 0
    fi
    parent=${1%/*}
    make_dir "${parent:-/}"
    mkdir "$DESTDIR$1"
    record dir "$1"
}

# put MODE FILE: install standard input as FILE (under PREFIX), replacing
# what is there in one rename.
put() {
    make_dir "${2%/*}"
    cat >"$DESTDIR$2.tmp"
    chmod "$1" "$DESTDIR$2.tmp"
    mv -f "$DESTDIR$2.tmp" "$DESTDIR$2"
    record file "$2"
    echo "strata: installed $DESTDIR$2"
}

make_dir "$PREFIX/share/strata"
printf '%s' "$early" >"$DESTDIR$MANIFEST"

# pkg_config NAME LIB WHAT [REQUIRES]: write NAME.pc, for -lLIB, from strata.pc.in.
pkg_config() {
    requires="/^@REQUIRES@\$/d"
    [ $# -ge 4 ] && requires="s|^@REQUIRES@\$|Requires: $4|"
    sed -e "s|@PC@|$1|g" -e "s|@LIB@|$2|g" -e "s|@WHAT@|$3|g" -e "s|@PREFIX@|$PREFIX|g" \
        -e "s|@VERSION@|$version|g" -e "$requires" "$tools/strata.pc.in" | put 644 "$PREFIX/lib/pkgconfig/$1.pc"
}

put 644 "$PREFIX/include/strata.h" <"$top/runtime/include/strata.h"
put 644 "$PREFIX/lib/libstrata.a" <"$1"
put 644 "$PREFIX/lib/libstrata_debug.a" <"$2"
put 644 "$PREFIX/lib/libstrata_json.a" <"$3"
pkg_config strata strata "the runtime, release build (-O2, asserts off)"
pkg_config strata-debug strata_debug "the runtime, debug build (-O0 -g, asserts on)"
pkg_config strata-json strata_json "JSON loading (list it before strata or strata-debug)" yajl
if [ $# -ge 4 ]; then
    put 644 "$PREFIX/include/strata_inspect.h" <"$top/runtime/include/strata_inspect.h"
    put 644 "$PREFIX/lib/libstrata_inspect.a" <"$4"
    sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$version|g" "$tools/strata-inspect.pc.in" |
        put 644 "$PREFIX/lib/pkgconfig/strata-inspect.pc"
fi
if [ $# -eq 5 ]; then
    put 644 "$PREFIX/include/strata_live.h" <"$top/runtime/include/strata_live.h"
    put 644 "$PREFIX/lib/libstrata_live.a" <"$5"
    sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$version|g" "$tools/strata-live.pc.in" |
        put 644 "$PREFIX/lib/pkgconfig/strata-live.pc"
fi
for f in "$top"/codegen/*.py; do
    put 644 "$PREFIX/share/strata/codegen/${f##*/}" <"$f"
done
# Their bytecode, compiled by the Python that runs strata-gen: strata-gen
# writes none into the install, and without it each run compiles every
# module again (a fifth of the generator's time on a small schema).
make_dir "$PREFIX/share/strata/codegen/__pycache__"
compiled=$("$python" -c '
import importlib.util, py_compile, sys
destdir, package, names = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.pycache_prefix = None  # beside the modules, whatever PYTHONPYCACHEPREFIX says
for name in names:
    final = f"{package}/{name}"
    compiled = importlib.util.cache_from_source(final)
    py_compile.compile(destdir + final, cfile=destdir + compiled, dfile=final, doraise=True)
    print(compiled)
' "$DESTDIR" "$PREFIX/share/strata/codegen" $(cd "$top/codegen" && echo *.py))
while IFS= read -r f; do
    record file "$f"
    echo "strata: installed $DESTDIR$f"
done <<EOF
$compiled
EOF
for f in "$top"/codegen/templates/*.j2; do
    put 644 "$PREFIX/share/strata/codegen/templates/${f##*/}" <"$f"
done
put 644 "$PREFIX/share/strata/strata.schema.json" <"$top/schema/strata.schema.json"
for f in StrataConfig.cmake StrataTargets.cmake StrataWorld.cmake; do
    put 644 "$PREFIX/lib/cmake/Strata/$f" <"$tools/cmake/$f"
done
bits=$(getconf LONG_BIT)
sed -e "s|@VERSION@|$version|g" -e "s|@BITS@|$bits|g" -e "s|@POINTER_BYTES@|$((bits / 8))|g" \
    "$tools/cmake/StrataConfigVersion.cmake.in" | put 644 "$PREFIX/lib/cmake/Strata/StrataConfigVersion.cmake"
sed "1s|@PYTHON@|$python|" "$tools/strata-gen.in" | put 755 "$PREFIX/bin/strata-gen"

echo "strata: installed Strata $version into $DESTDIR$PREFIX; manifest $DESTDIR$MANIFEST"
