#!/bin/sh
# Run one test program, keep its output in LOG, touch STAMP when it passes.
# Usage: tools/run-test.sh LOG STAMP COMMAND...
set -u
# Python (the tests' own and every generator a test runs) keeps its compiled
# modules under build/pycache, as the build's edges do (configure.py).
PYTHONDONTWRITEBYTECODE=
PYTHONPYCACHEPREFIX="$PWD/build/pycache"
export PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX
log=$1 stamp=$2
shift 2
rm -f "$stamp"
if "$@" >"$log" 2>&1; then
    touch "$stamp"
    exit 0
fi
cat "$log"
echo "FAILED: $*" >&2
exit 1
