"""The schedule: the order systems run in, what keeps two of them apart,
and the batches of the threaded step. Every rule of the order lives here;
the validator checks the names `before` / `after` give (check_systems.py)
and calls these in turn, and the model keeps the result (`Schema.systems`
in run order, `Schema.schedule` the batches) for the templates.

**Order.** Systems run phase by phase; within a phase, as `before` /
`after` say, then a receiver after the emitters of the events it
`receive`s when nothing else decides, then in declaration order (a stable
topological sort: of the systems whose constraints are met, the earliest
declared runs first). A cycle is an error.

**Conflicts.** Two systems conflict when one writes what the other reads or
writes (a component or a resource; a `run_if` reads its resource, so its
writers run in an earlier batch), when one emits an event type the other
receives (a receiver reads the buffer the emitter's events go to; two
emitters of one type may share a batch: each view emits into its own
buffer, appended in schedule order when the batch ends), or when the schema
orders them (`before` / `after`, directly or through others: a game says so
when one needs what the other does to the world, e.g. components it adds).
A system with `changed` terms runs alone: its changed set is fed by the
marks of every writer. Two systems of a phase that write the same component
or resource with no `before` / `after` between them get a warning: they run
in declaration order, which moving a line would change.

**Batches.** Batches never cross a phase. Each system goes to the batch
after the last batch of an earlier system of its phase that it conflicts
with, so every pair that conflicts keeps the order of the single-threaded
schedule, and two systems that do not may run side by side. Without
`threads: true` every system is a batch of its own (the pairs kept apart are
still worked out and shown). The batch order is the order the step runs
them in; inside a batch, the schedule order decides whose structural
changes apply first.
"""
from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Mapping, NamedTuple, Sequence, Set, Tuple

from . import model
from .checks import cycle_path, cycles, stable_topological_order
from .errors import Reporter
from .model import Apart, Batch, Schedule

# --- order ------------------------------------------------------------------------


def receivers_after_emitters(systems: Sequence, runs_after: Dict[str, Set[str]]) -> None:
    """Order each receiver after the emitters of its phase when nothing
    else decides: an edge is added to `runs_after` unless before/after (or an
    edge added earlier) already puts the receiver first. `systems` have
    name, phase, emit and receive (names)."""
    for receiver in systems:
        for event in receiver.receive:
            for emitter in systems:
                if emitter.phase != receiver.phase or event not in emitter.emit:
                    continue
                if not _reaches(runs_after, emitter.name, receiver.name):
                    runs_after[receiver.name].add(emitter.name)


def run_order(phases: Sequence[str], systems: Sequence, runs_after: Mapping[str, Set[str]],
              report: Reporter) -> List[str]:
    """The systems' names in run order: by phase, then `runs_after`, then
    declaration order. Reports each cycle once (those on it run in
    declaration order after the rest of their phase). `systems` have name,
    phase and loc."""
    by_name = {y.name: y for y in systems}
    order: List[str] = []
    for phase in phases:
        names = [y.name for y in systems if y.phase == phase]
        placed, leftover = stable_topological_order(names, runs_after)
        for cycle in cycles(leftover, runs_after):
            # The walk follows "runs after"; print it as "runs before".
            runs_before = [cycle[0]] + list(reversed(cycle[1:]))
            report.error(by_name[cycle[0]].loc, f"system '{cycle[0]}': before/after cycle: {cycle_path(runs_before)}",
                         "each arrow reads 'runs before'")
        order += placed + leftover
    return order


def _reaches(runs_after: Mapping[str, Set[str]], start: str, target: str) -> bool:
    """True if `target` must run before `start` (directly or through others)."""
    seen: Set[str] = set()
    pending = [start]
    while pending:
        name = pending.pop()
        for first in runs_after.get(name, ()):
            if first == target:
                return True
            if first not in seen:
                seen.add(first)
                pending.append(first)
    return False


# --- conflicts -------------------------------------------------------------------------


class _Access:
    """A system's data, as sets, worked out once for the pair tests."""

    def __init__(self, y: model.System):
        self.write = set(y.terms.write) | {"res " + r for r in y.resources_write}
        self.uses = set(y.terms.read + y.terms.optional + y.terms.write) | {
            "res " + r for r in y.resources_read + y.resources_write + y.condition_resources}
        self.emit = set(y.emit)
        self.receives = set(y.receives)
        self.changed = bool(y.terms.changed)


def _conflicts(a: _Access, b: _Access) -> List[str]:
    """What keeps a and b from running at the same time (empty: nothing)."""
    data = sorted(a.write & b.uses | b.write & a.uses, key=lambda k: (k.startswith("res "), k))
    reasons = data + ["event " + e for e in sorted(a.emit & b.receives | b.emit & a.receives)]
    if a.changed or b.changed:
        reasons.append("changed set")
    return reasons


def _bits(mask: int) -> Iterator[int]:
    """The set bits of mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Phase:
    """The systems of a phase placed so far, indexed by what they touch: for
    each component, resource ("res R") and event, a bit per system that
    writes, uses, emits or receives it, so a system's conflicts with all of
    them are a few mask operations instead of a test per pair."""

    def __init__(self) -> None:
        self.writes: Dict[str, int] = {}
        self.uses: Dict[str, int] = {}
        self.emits: Dict[str, int] = {}
        self.receives: Dict[str, int] = {}
        self.changed = 0
        self.placed = 0  # a bit per system placed

    def conflicts(self, a: _Access) -> int:
        """The placed systems the next one, a, conflicts with."""
        mask = self.changed
        if a.changed:
            mask |= self.placed
        for key in a.uses:
            mask |= self.writes.get(key, 0)
        for key in a.write:
            mask |= self.uses.get(key, 0)
        for e in a.receives:
            mask |= self.emits.get(e, 0)
        for e in a.emit:
            mask |= self.receives.get(e, 0)
        return mask

    def writers(self, a: _Access) -> int:
        """The placed systems that write something a writes."""
        mask = 0
        for key in a.write:
            mask |= self.writes.get(key, 0)
        return mask

    def place(self, a: _Access, i: int) -> None:
        bit = 1 << i
        for table, keys in ((self.writes, a.write), (self.uses, a.uses), (self.emits, a.emit),
                            (self.receives, a.receives)):
            for key in keys:
                table[key] = table.get(key, 0) | bit
        self.changed |= bit if a.changed else 0
        self.placed |= bit


# --- batches --------------------------------------------------------------------------


class LooseWriters(NamedTuple):
    """A system that writes what earlier systems of its phase write, with
    no order between them."""
    system: model.System
    earlier: Tuple[model.System, ...]  # in run order
    shared: Tuple[str, ...]  # the components and resources they all write


def compute(systems: Sequence[model.System], phases: Sequence[str], threads: bool,
            ordered_by: Mapping[str, Set[str]]) -> Tuple[Schedule, List[LooseWriters]]:
    """The batches of `systems` (in run order), the pairs they keep apart,
    and the writers with no order between them. `ordered_by[y]`: the systems
    of y's phase `before` / `after` put directly ahead of y.

    A pair is listed when nothing else already keeps it apart: if x must
    wait for z and z for y, the pair (x, y) says nothing new and is left
    out (a chain of n systems that all write one component lists n - 1
    pairs, not n * (n - 1) / 2)."""
    batch_of: Dict[str, int] = {}
    apart: List[Apart] = []
    loose: List[LooseWriters] = []
    batches: List[Tuple[str, List[model.System]]] = []
    for phase in phases:
        first = len(batches)
        done: List[model.System] = []
        access: List[_Access] = []
        place: Dict[str, int] = {}
        index = _Phase()
        behind: List[int] = []  # per system of `done`: a bit per earlier system it waits for, transitively
        ahead: List[int] = []  # per system of `done`: a bit per earlier system before/after put ahead of it
        for y in (y for y in systems if y.phase == phase):
            a = _Access(y)
            # Those before/after put ahead of y, transitively; in run order they
            # are placed already (one on a cycle, an error, is left out).
            ordered = 0
            for name in ordered_by.get(y.name, ()):
                if name in place:
                    ordered |= ahead[place[name]] | 1 << place[name]
            direct = index.conflicts(a) | ordered
            level = first if threads else len(batches)
            # Latest first: what an earlier system waits for, a later one that
            # waits for it waits for too, in an earlier batch, so it is skipped.
            implied, rest = 0, direct
            while rest:
                i = rest.bit_length() - 1
                level = max(level, batch_of[done[i].name] + 1)
                implied |= behind[i]
                rest &= ~(behind[i] | 1 << i)
            for i in _bits(direct & ~implied):
                reasons = _conflicts(access[i], a)
                if ordered >> i & 1:
                    reasons.append("order")
                apart.append(Apart(done[i].name, y.name, tuple(reasons)))
            unordered = [done[i] for i in _bits(index.writers(a) & ~ordered)]
            if unordered:
                shared = tuple(k[4:] if k.startswith("res ") else k for k in _written(y)
                               if any(k in access[place[x.name]].write for x in unordered))
                loose.append(LooseWriters(y, tuple(unordered), shared))
            while len(batches) <= level:
                batches.append((phase, []))
            batches[level][1].append(y)
            batch_of[y.name] = level
            place[y.name] = len(done)
            index.place(a, len(done))
            done.append(y)
            access.append(a)
            behind.append(implied | direct)
            ahead.append(ordered)
    schedule = Schedule(tuple(Batch(i, phase, tuple(ys)) for i, (phase, ys) in enumerate(batches)), tuple(apart))
    return schedule, loose


def _written(y: model.System) -> Iterable[str]:
    """What y writes, components then resources ("res R"), in schema order."""
    return list(y.terms.write) + ["res " + r for r in y.resources_write]


def warn_loose_writers(loose: Iterable[LooseWriters], report: Reporter) -> None:
    """One warning per system that writes what earlier systems of its phase
    write with no before/after between them, naming them (three at most)."""
    for y, earlier, shared in loose:
        names = ", ".join(f"'{n}'" for n in shared)
        shown = ", ".join(f"'{x.name}'" for x in earlier[:3])
        if len(earlier) > 3:
            shown += f" (and {len(earlier) - 3:,} more)"
        verb = "all write" if len(earlier) > 1 else "both write"
        report.warn(y.loc, f"systems {shown} and '{y.name}' {verb} {names} in phase '{y.phase}' with no order "
                           f"between them", f"give '{y.name}' 'after: [{earlier[-1].name}]' to make the order explicit")


def resource_bits(schema: model.Schema, y: model.System) -> str:
    """The C constant of the resources y writes, bit i for resource i (the
    first 64: what the runtime's debug check of a batch covers)."""
    bits = sum(1 << i for i, r in enumerate(schema.resources[:64]) if r.name in y.resources_write)
    return f"UINT64_C({bits:#x})"

