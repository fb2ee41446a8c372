#!/bin/sh
# `ninja bench-js`: install the pinned bitECS from npm into build/bench-js/
# (the only step of the build that uses the network), then run the five
# noctjs cases on it in Node.js.
# Usage: bench/js/run.sh PACKAGE@VERSION RESULTS.json
set -eu
package=$1 results=$2
dir=build/bench-js
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
    echo "bench-js: needs node and npm (apt-get install nodejs npm)" >&2
    exit 1
}
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$package" >/dev/null
# Beside node_modules, so `import "bitecs"` finds the package just installed.
cp bench/js/cases.mjs bench/js/bitecs.mjs "$dir"/
node "$dir"/bitecs.mjs "$results"
