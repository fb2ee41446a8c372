#!/bin/sh
# Check the build's dependencies on this machine; install the missing ones
# with apt when running as root, otherwise print the one command that would.
# Usage: tools/deps.sh [--sdl2] [STAMP]   (touches STAMP when everything is present)
# SDL2 is needed only by the game's window (`ninja play`, which passes
# --sdl2): without --sdl2 it is installed along with anything else missing
# when running as root, and its absence is never an error.
set -u

sdl2=required
if [ "${1:-}" = --sdl2 ]; then
    shift
else
    sdl2=optional
fi

missing=""
need() { missing="$missing $1"; }

command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || need gcc
# clang, and its runtime libraries for the libFuzzer targets (ninja fuzz):
# a clang whose -fsanitize=fuzzer does not link needs the libclang-rt
# package of its own version.
if command -v clang >/dev/null 2>&1; then
    probe=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
        >"$probe/probe.c"
    if ! clang -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" >/dev/null 2>&1; then
        need "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
    fi
    rm -rf "$probe"
else
    need clang
    need libclang-rt-dev
fi
command -v ninja >/dev/null 2>&1 || need ninja-build
command -v python3 >/dev/null 2>&1 || need python3
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import jinja2' >/dev/null 2>&1 || need python3-jinja2
    python3 -c 'import yaml' >/dev/null 2>&1 || need python3-yaml
fi
[ -f /usr/include/cmocka.h ] || need libcmocka-dev
# The out-of-tree tests (tests/outside) build a game with each of these.
command -v make >/dev/null 2>&1 || need make
command -v cmake >/dev/null 2>&1 || need cmake
command -v pkg-config >/dev/null 2>&1 || need pkg-config
# `ninja format-check` checks the C files with it.
command -v clang-format >/dev/null 2>&1 || need clang-format
# The runtime's checksum (strata_checksum, the rollback demo's desync check)
# hashes with xxHash's XXH3, from its header alone: building libstrata needs
# the header, nothing links a library.
[ -f /usr/include/xxhash.h ] || need libxxhash-dev
# JSON loading (libstrata_json) streams with yajl.
[ -f /usr/include/yajl/yajl_parse.h ] || need libyajl-dev
# The examples write PNGs with libpng.
[ -f /usr/include/png.h ] || need libpng-dev
# The editor tests (tests/editor) run yaml-language-server, from npm, on Node.js.
command -v node >/dev/null 2>&1 || need nodejs
command -v npm >/dev/null 2>&1 || need npm
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import jsonschema' >/dev/null 2>&1 || need python3-jsonschema
fi
# The inspector (libstrata_inspect) serves HTTP with civetweb; its browser
# test drives Debian's chromium with playwright-core (from npm, below).
[ -f /usr/include/civetweb.h ] || need libcivetweb-dev
[ -x /usr/bin/chromium ] || need chromium

# Optional: installed when something else is, never an error.
optional=""
if ! pkg-config --exists sdl2 2>/dev/null; then
    if [ "$sdl2" = required ]; then
        need libsdl2-dev
    else
        optional=" libsdl2-dev"
    fi
fi

install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "strata: installing missing packages:$missing$optional"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        # shellcheck disable=SC2086 # word splitting wanted
        install $missing $optional || install $missing || {
            echo "strata: apt-get install failed; run: apt-get install$missing" >&2
            exit 1
        }
        # A python3 that is not Debian's (pyenv, venv) does not see python3-* packages.
        if ! python3 -c 'import jinja2, yaml' >/dev/null 2>&1; then
            echo "strata: $(command -v python3) cannot import jinja2 and yaml; put /usr/bin first on PATH or install them for that python" >&2
            exit 1
        fi
    else
        echo "strata: missing dependencies; run: sudo apt-get install$missing" >&2
        [ -n "$optional" ] && echo "strata: and for the game's window (ninja play):$optional" >&2
        exit 1
    fi
fi
# --- test tools from the npm registry, pinned, into build/npm/ ---------------
npm_prefix=$(cd "$(dirname "$0")/.." && pwd)/build/npm
# npm_pinned NAME@VERSION: install it into build/npm/ unless that version is there.
npm_pinned() {
    if ! grep -q "\"version\": \"${1##*@}\"" "$npm_prefix/node_modules/${1%@*}/package.json" 2>/dev/null; then
        echo "strata: installing $1 into $npm_prefix"
        mkdir -p "$npm_prefix"
        npm install --prefix "$npm_prefix" --no-audit --no-fund --loglevel=error "$1" >/dev/null || {
            echo "strata: npm install failed; run: npm install --prefix $npm_prefix $1" >&2
            exit 1
        }
    fi
}
# The editor tests' language server: yaml-language-server (what VS Code's
# YAML extension and Neovim's yamlls run). 1.25.0 is the newest release that
# runs on Debian's Node.js 20 (2.x needs Node.js 22).
npm_pinned yaml-language-server@1.25.0
# The inspector's browser test: playwright-core, only the driver, no browser
# download (the test runs Debian's /usr/bin/chromium).
npm_pinned playwright-core@1.65.1
[ $# -ge 1 ] && touch "$1"
exit 0
