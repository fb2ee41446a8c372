#!/bin/sh
# Check what a target of the build needs on this machine; install what is
# missing with apt-get when running as root, otherwise print the one command
# that would. The build runs it once for each group of packages its edges
# need (build/deps/GROUP.stamp), so a target checks and installs only what it
# builds: `ninja demo` a C compiler, Python 3 with Jinja2 and PyYAML, and
# libpng; nothing of the tests' toolchain.
#
# Usage: tools/deps.sh [--dry-run] [--stamp FILE] [NAME...]
#   NAME      a target (demo, test, install, ...) or a group (png, clang, ...);
#             `tools/deps.sh --list` prints the targets with their groups;
#             none: test
#   --dry-run print what would be installed (apt-get and npm), change nothing
#   --stamp   touch FILE when everything is present
# STRATA_DEPS_ROOT (default /) is where headers and /usr/bin/chromium are
# looked for: the tests point it at an empty directory.
set -u

root=${STRATA_DEPS_ROOT:-}
npm_prefix=$(cd "$(dirname "$0")/.." && pwd)/build/npm

# --- The groups: what each needs, and how it is checked ----------------------

missing="" npm_missing=""
# need PACKAGE: add an apt package to the missing ones (once).
need() {
    case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
}
has() { command -v "$1" >/dev/null 2>&1; }
header() { [ -f "$root/usr/include/$1" ]; }
py_has() { has python3 && python3 -c "import $1" >/dev/null 2>&1; }

# npm_pinned NAME@VERSION: needed in build/npm/ unless that version is there.
npm_pinned() {
    grep -q "\"version\": \"${1##*@}\"" "$npm_prefix/node_modules/${1%@*}/package.json" 2>/dev/null ||
        npm_missing="$npm_missing $1"
}

# A C compiler, and the generator: Python 3 with Jinja2 and PyYAML.
group_core() {
    has cc || has gcc || need gcc
    has ninja || need ninja-build
    has python3 || need python3
    py_has jinja2 || need python3-jinja2
    py_has yaml || need python3-yaml
}
# The examples write PNGs.
group_png() { header png.h || need libpng-dev; }
# The runtime (libstrata) hashes its checksum (strata_checksum: the rollback
# demo's desync check) with xxHash's XXH3, from the header alone: every
# target that builds the runtime needs the header; nothing links a library.
group_xxhash() { header xxhash.h || need libxxhash-dev; }
# JSON loading (libstrata_json) streams with yajl.
group_yajl() { header yajl/yajl_parse.h || need libyajl-dev; }
# The live inspector (libstrata_inspect) serves HTTP with civetweb.
group_civetweb() { header civetweb.h || need libcivetweb-dev; }
# clang, and its runtime libraries for the sanitizers and libFuzzer: a clang
# whose -fsanitize=fuzzer does not link needs the libclang-rt of its version.
group_clang() {
    if has clang; then
        probe=$(mktemp -d)
        printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
            >"$probe/probe.c"
        clang -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" >/dev/null 2>&1 ||
            need "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
        rm -rf "$probe"
    else
        need clang
        need libclang-rt-dev
    fi
}
# The C tests' framework.
group_cmocka() { header cmocka.h || need libcmocka-dev; }
# A game outside the tree (tests/outside) is built with each of these.
group_outside() {
    has make || need make
    has cmake || need cmake
    has meson || need meson
    has pkg-config || need pkg-config
}
# The game's window (`ninja play`): SDL2, whose flags come from pkg-config.
group_sdl2() {
    has pkg-config || need pkg-config
    has pkg-config && pkg-config --exists sdl2 2>/dev/null || need libsdl2-dev
}
# Node.js and npm: the editor's language server and the browser test's
# driver run on it (and `ninja bench-js`, bitECS).
group_node() {
    has node || need nodejs
    has npm || need npm
}
# The editor tests: yaml-language-server (what VS Code's YAML extension and
# Neovim's yamlls run) from npm; the JSON Schema checked with
# python3-jsonschema. 1.25.0 is the newest release that runs on Debian's
# Node.js 20 (2.x needs Node.js 22).
group_editor() {
    group_node
    py_has jsonschema || need python3-jsonschema
    npm_pinned yaml-language-server@1.25.0
}
# The inspector's browser test: Debian's chromium, driven by playwright-core
# (only the driver from npm; no browser download).
group_browser() {
    group_node
    [ -x "$root/usr/bin/chromium" ] || need chromium
    npm_pinned playwright-core@1.65.1
}
# `ninja format-check`, and the generator's test that its C is laid out as
# .clang-format says.
group_format() { has clang-format || need clang-format; }

GROUPS="core png xxhash yajl civetweb clang cmocka outside sdl2 node editor browser format"

# --- The targets: the groups each needs ------------------------------------------

# groups_of NAME: the groups a target's edges wait for (tests/tools/test_deps.py
# checks this table against build.ninja), or the group itself.
groups_of() {
    case $1 in
    generate | bench-vec) echo core ;;
    particles | bench-o3 | bench-profile | rollback-demo | live-demo | swarm-live) echo core xxhash ;;
    demo | swarm | orbits) echo core png xxhash ;;
    play) echo core png xxhash sdl2 ;;
    rollback-play) echo core xxhash sdl2 ;;
    live) echo core xxhash civetweb sdl2 ;;
    libs) echo core xxhash yajl ;;
    install | bench) echo core xxhash yajl civetweb ;;
    uninstall) ;;
    inspect) echo core png xxhash civetweb ;;
    inspect-screenshot) echo core png xxhash civetweb browser ;;
    bench-js) echo node ;;
    fuzz) echo core xxhash yajl clang cmocka ;;
    fuzz-long) echo core xxhash yajl clang cmocka ;;
    test-quick) echo core png xxhash yajl civetweb cmocka ;;
    test-san-gcc) echo core xxhash yajl civetweb cmocka ;;
    format-check) echo format ;;
    all) echo core png xxhash yajl civetweb clang cmocka ;;
    test) echo core png xxhash yajl civetweb clang cmocka outside editor browser format ;;
    *)
        for g in $GROUPS; do
            [ "$g" = "$1" ] && echo "$g" && return 0
        done
        return 1
        ;;
    esac
}
TARGETS="demo test install play swarm particles orbits inspect inspect-screenshot bench bench-o3 bench-profile
bench-vec bench-js fuzz fuzz-long format-check test-quick test-san-gcc generate libs all uninstall live live-demo swarm-live
rollback-demo rollback-play"

# --- Arguments ------------------------------------------------------------------------

dry_run=false stamp="" names=""
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry_run=true ;;
    --stamp)
        stamp=${2:?--stamp needs a file}
        shift
        ;;
    --list)
        for t in $TARGETS; do echo "$t: $(groups_of "$t")"; done
        exit 0
        ;;
    -*)
        echo "usage: tools/deps.sh [--dry-run] [--stamp FILE] [TARGET|GROUP...] (--list names them)" >&2
        exit 2
        ;;
    *) names="$names $1" ;;
    esac
    shift
done
# No name: what `ninja test` needs, which is all but SDL2.
[ -n "$names" ] || names=" test"

checked=""
for name in $names; do
    groups=$(groups_of "$name") || {
        echo "strata: tools/deps.sh: no target or group '$name' (--list names them)" >&2
        exit 2
    }
    for g in $groups; do
        case " $checked " in *" $g "*) continue ;; esac
        checked="$checked $g"
        "group_$g"
    done
done

# --- Install, or say what would ---------------------------------------------------------

if $dry_run; then
    [ -n "$missing" ] && echo "apt-get install$missing"
    [ -n "$npm_missing" ] && echo "npm install --prefix build/npm$npm_missing"
    [ -z "$missing$npm_missing" ] && echo "nothing to install for$names"
    exit 0
fi

apt() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && has apt-get; then
        echo "strata: installing missing packages:$missing"
        # shellcheck disable=SC2086 # word splitting wanted
        apt $missing || { DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt $missing; } || {
            echo "strata: apt-get install failed; run: apt-get install$missing" >&2
            exit 1
        }
        # A python3 that is not Debian's (pyenv, venv) does not see python3-* packages.
        for module in jinja2 yaml jsonschema; do
            case " $missing " in
            *" python3-$module "*)
                py_has "$module" || {
                    echo "strata: $(command -v python3) cannot import $module; put /usr/bin first on PATH or install it for that python" >&2
                    exit 1
                }
                ;;
            esac
        done
    else
        echo "strata: missing dependencies for$names; run: sudo apt-get install$missing" >&2
        exit 1
    fi
fi
for package in $npm_missing; do
    echo "strata: installing $package into $npm_prefix"
    mkdir -p "$npm_prefix"
    npm install --prefix "$npm_prefix" --no-audit --no-fund --loglevel=error "$package" >/dev/null || {
        echo "strata: npm install failed; run: npm install --prefix $npm_prefix $package" >&2
        exit 1
    }
done
[ -n "$stamp" ] && touch "$stamp"
exit 0
