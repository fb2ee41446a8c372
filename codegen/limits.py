"""Every limit the generator enforces, each with one home.

The runtime's limits are read from the `#define STRATA_MAX_* N` lines of the
runtime's header, strata.h, when this module is imported: the header beside
the sources (runtime/include/strata.h, for `python3 -m codegen` in a
checkout) or the one installed with the generator (PREFIX/include/strata.h,
for `strata-gen` run from PREFIX/share/strata/codegen). A world the
generator accepts is therefore one the runtime it is built with accepts:
raise a limit in strata.h and the generator follows.

The generator's own limits (names, fields, sizes, nesting) are below; each
says why it is what it is. docs/schema.md lists them all in one table, and
tests/codegen/test_limits.py checks each at the limit and one past it.
"""
from __future__ import annotations

import os
import re
from typing import Dict, Iterable, Tuple

_DEFINE = re.compile(r"^#define (STRATA_MAX_[A-Z_]+) +(0x[0-9a-fA-F]+|[0-9]+)[uU]?\b", re.M)


def header_places(package: str) -> Tuple[str, str]:
    """Where strata.h is for the generator's package directory `package`,
    in the order tried: a checkout's runtime/include, then an installed
    tree's include directory (PREFIX/share/strata/codegen -> PREFIX/include)."""
    return (os.path.join(package, os.pardir, "runtime", "include", "strata.h"),
            os.path.join(package, os.pardir, os.pardir, os.pardir, "include", "strata.h"))


def read_runtime_limits(places: Iterable[str]) -> Dict[str, int]:
    """{'STRATA_MAX_COMPONENTS': 256, ...} from the first strata.h of `places`
    that exists. Raises ImportError naming the places when none does, or
    when the header defines none of the limits."""
    tried = []
    for place in places:
        path = os.path.normpath(place)
        tried.append(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            continue
        found = {name: int(value, 0) for name, value in _DEFINE.findall(text)}
        if not found:
            raise ImportError(f"strata-gen: {path} defines no STRATA_MAX_* limit")
        return found
    raise ImportError("strata-gen: the runtime's header strata.h is in none of: " + ", ".join(tried))


RUNTIME = read_runtime_limits(header_places(os.path.dirname(os.path.abspath(__file__))))

# --- the runtime's, as the generator checks them ---------------------------------
MAX_COMPONENTS = RUNTIME["STRATA_MAX_COMPONENTS"]  # component ids: components, relations and aspects
MAX_RELATIONS = RUNTIME["STRATA_MAX_RELATIONS"]  # relations per world
MAX_QUERIES = RUNTIME["STRATA_MAX_QUERIES"]  # free queries plus systems with terms
MAX_MONITORS = RUNTIME["STRATA_MAX_MONITORS"]  # systems with an aspect, on_add or on_remove
MAX_CHANGED = RUNTIME["STRATA_MAX_CHANGED"]  # queries and systems with `changed`, plus components with on_set
MAX_SPARSE = RUNTIME["STRATA_MAX_SPARSE"]  # components with `storage: sparse`
MAX_STATES = RUNTIME["STRATA_MAX_STATES"]  # states of one state machine (a gate's mask of them is 64 bits)
MASK_WORDS = MAX_COMPONENTS // 64  # the 64-bit words of a strata_mask_t

# --- the generator's own ------------------------------------------------------------
MAX_NAME_LENGTH = 63  # C99's significant characters of an external identifier, and a sane name
MAX_ARRAY_LENGTH = 65535  # keeps defaults (one Python value per element) and structs sane
MAX_FIELDS = 256  # fields of one struct type, component, resource, event, aspect or link
MAX_VALUE_BYTES = 1 << 20  # C size of one of those (1 MiB)
MAX_RESOURCES = 256  # resources per world
MAX_VERSION = 2 ** 32 - 1  # strata_schema_t.version is a uint32_t
# The game loop: a fixed phase's accumulator adds a step's nanoseconds x rate,
# and an interval in a fixed phase counts nanoseconds x rate, in 64 bits; these
# keep both far from overflowing (a step of 10^15 ns, an hour's interval).
MAX_RATE = 10000  # runs a second of a fixed phase
MAX_RUNS = 10000  # max_runs of a fixed phase
MAX_INTERVAL = 3600  # seconds of an interval
MAX_EVERY = 2 ** 32 - 1  # `every`: steps or runs
# How deep a value's braces may nest: a struct is one level, an array one
# more. The C of a default nests its braces as deep, and clang stops at 256
# brackets; the renderer walks values by recursion, kept far from Python's limit.
MAX_TYPE_DEPTH = 32
