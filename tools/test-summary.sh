#!/bin/sh
# Add up the test logs under build/ and print one closing line:
# "tests: N passed, N failed". Exits 1 if any test failed.
# Usage: tools/test-summary.sh LOG...
set -u
passed=0 failed=0
for log in "$@"; do
    # cmocka: "[  PASSED  ] 12 test(s)." / "[  FAILED  ] 1 test(s), listed below:"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    # unittest: "Ran 40 tests in 1.2s" then "OK" or "FAILED (failures=1, errors=2)"
    ran=$(sed -n 's/^Ran \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    bad=$(sed -n 's/^FAILED (\(.*\))$/\1/p' "$log" | tr ',' '\n' | sed -n 's/.*=\([0-9]*\)/\1/p' | awk '{s+=$1} END {print s+0}')
    passed=$((passed + p + ran - bad))
    failed=$((failed + f + bad))
done
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
