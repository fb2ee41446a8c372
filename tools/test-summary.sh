#!/bin/sh
# Add up the test logs under build/ and print one closing line:
# "tests: N passed, N failed". Exits 1 if any test failed.
# Usage: tools/test-summary.sh LOG...
set -u
# cmocka: "[  PASSED  ] 12 test(s)." / "[  FAILED  ] 1 test(s), listed below:"
# unittest: "Ran 40 tests in 1.2s" then "OK" or "FAILED (failures=1, errors=2)"
awk '
/^\[  PASSED  \] [0-9]+ test/ { passed += $4 }
/^\[  FAILED  \] [0-9]+ test/ { failed += $4 }
/^Ran [0-9]+ test/ { passed += $2 }
/^FAILED \(.*\)$/ {
    n = split(substr($0, 9, length($0) - 9), counts, ",")
    for (i = 1; i <= n; i++) {
        sub(/.*=/, "", counts[i])
        passed -= counts[i]
        failed += counts[i]
    }
}
END {
    printf "tests: %d passed, %d failed\n", passed, failed
    exit failed != 0
}' "$@"
