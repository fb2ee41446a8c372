"""`ninja demo` fed four frame patterns (1/60 s, 1/30 s, 1/144 s, random
lengths of 1 to 50 ms, all summing to the same time) ends in the same state:
the rules run in a fixed-rate phase whose runs depend only on the total
time. Each run also saves mid-game, loads and replays to the same end.

    python3 tests/examples/test_demo_frames.py build/gcc/rectangle_eater
"""
import os
import re
import subprocess
import sys

PATTERNS = ["60", "30", "144", "mix"]


def play(exe, pattern, out):
    """The demo's printed report for one pattern (it must exit 0)."""
    result = subprocess.run([exe, "--frames-of", pattern, "--every", "0", "--out", f"{out}/{pattern}.png",
                             "--save", f"{out}/{pattern}.save"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"FAIL: frames of {pattern}: exit {result.returncode}\n{result.stdout}{result.stderr}")
    return result.stdout


def main():
    exe = sys.argv[1]
    out = "build/demo-frames"
    os.makedirs(out, exist_ok=True)
    hashes, frames = {}, {}
    for pattern in PATTERNS:
        report = play(exe, pattern, out)
        print(report, end="")
        hashes[pattern] = re.search(r"state hash ([0-9a-f]{16})", report).group(1)
        frames[pattern] = int(re.search(r"in (\d+) frames", report).group(1))
        if "the same final state" not in report:
            sys.exit(f"FAIL: frames of {pattern}: the save, loaded and replayed, ended elsewhere")
    if len(set(frames.values())) != len(PATTERNS):
        sys.exit(f"FAIL: the patterns did not split the time differently: {frames}")
    if len(set(hashes.values())) != 1:
        sys.exit(f"FAIL: the final state depends on the frames: {hashes}")
    print(f"the same final state ({hashes['60']}) from frames of {', '.join(PATTERNS)}")


if __name__ == "__main__":
    main()
