#!/bin/sh
# The rollback demo (examples/rollback/): its peers converge on every
# confirmed frame, and a peer whose world is changed behind the game's back
# makes it fail at the first confirmed frame after, with a non-zero exit.
# Usage: tests/examples/rollback_demo.sh DEMO
set -u
demo=$1
out=$("$demo" --frames 240 --food 2000 --seed 3) || { echo "$out"; echo "the demo failed"; exit 1; }
echo "$out"
echo "$out" | grep -q '^converged: 240 confirmed frames, checksums equal$' || { echo "no convergence line"; exit 1; }
echo "$out" | grep -q ' [1-9][0-9]* rollbacks' || { echo "no rollback happened"; exit 1; }
out=$("$demo" --frames 240 --food 2000 --seed 3 --desync 100)
rc=$?
echo "$out"
[ "$rc" = 1 ] || { echo "a desync exited with $rc"; exit 1; }
echo "$out" | grep -q '^DIVERGED: peer 1 at confirmed frame 101:' || { echo "the desync was not caught at frame 101"; exit 1; }
