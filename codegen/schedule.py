"""The threaded schedule: systems grouped into batches whose members touch
disjoint data, so that a batch's systems can run at the same time.

Two systems conflict when one writes what the other reads or writes (a
component or a resource), when one emits an event type the other
receives (a receiver reads the buffer the emitter's events go to; two
emitters of one type may share a batch: each view emits into its own
buffer, appended in schedule order when the batch ends), or when the schema
orders them (`before` / `after`, directly or through others: a game says so
when one needs what the other does to the world, e.g. components it adds).
A system with `changed` terms runs alone: its changed set is fed by the
marks of every writer. Batches never cross a phase. Without `threads:
true` in the schema every system is a batch of its own (the pairs kept
apart are still worked out and shown).

Each system goes to the batch after the last batch of an earlier system of
its phase that it conflicts with, so every pair that conflicts keeps the
order of the single-threaded schedule, and two systems that do not may run
side by side. The batch order is the order the step runs them in; inside a
batch, the schedule order decides whose structural changes apply first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Set, Tuple

from . import model


@dataclass(frozen=True)
class Apart:
    """Why `later` runs in a batch after `earlier`'s: what they share."""
    earlier: str
    later: str
    reasons: Tuple[str, ...]  # "Position", "res Clock", "event Eaten", "order", "changed set"


@dataclass(frozen=True)
class Batch:
    index: int  # 0 first, over the whole step
    phase: str
    systems: Tuple[model.System, ...]  # schedule order

    @property
    def alone(self) -> bool:
        """One system that is not split: it runs as in a single-threaded step."""
        return len(self.systems) == 1 and not self.systems[0].parallel


@dataclass(frozen=True)
class Schedule:
    batches: Tuple[Batch, ...]
    apart: Tuple[Apart, ...]  # the conflicting pairs of a phase no chain of others implies, in schedule order

    def batch_of(self, name: str) -> int:
        return next(b.index for b in self.batches for y in b.systems if y.name == name)


def _ordered(systems: Tuple[model.System, ...]) -> Dict[str, Set[str]]:
    """For each system, the systems `before` / `after` put ahead of it (transitively)."""
    direct: Dict[str, Set[str]] = {y.name: set(y.after) for y in systems}
    for y in systems:
        for b in y.before:
            direct.setdefault(b, set()).add(y.name)
    closed: Dict[str, Set[str]] = {}

    def ahead(name: str, seen: Set[str]) -> Set[str]:
        if name in closed:
            return closed[name]
        out: Set[str] = set()
        for a in direct.get(name, ()):
            if a not in seen:
                out |= {a} | ahead(a, seen | {a})
        closed[name] = out
        return out

    for y in systems:
        ahead(y.name, {y.name})
    return closed


class _Access:
    """A system's data, as sets, worked out once for the pair tests."""

    def __init__(self, y: model.System):
        self.write = set(y.terms.write)
        self.uses = set(y.terms.read + y.terms.optional + y.terms.write)
        self.res_write = set(y.resources_write)
        self.res_uses = set(y.resources_read + y.resources_write)
        self.emit = set(y.emit)
        self.receives = set(y.receives)
        self.changed = bool(y.terms.changed)


def _conflicts(a: _Access, b: _Access) -> List[str]:
    """What keeps a and b from running at the same time (empty: nothing)."""
    parts = (a.write & b.uses | b.write & a.uses, a.res_write & b.res_uses | b.res_write & a.res_uses,
             a.emit & b.receives | b.emit & a.receives)
    reasons: List[str] = []
    for prefix, names in zip(("", "res ", "event "), parts):
        if names:
            reasons += [prefix + name for name in sorted(names)]
    if a.changed or b.changed:
        reasons.append("changed set")
    return reasons


def _bits(mask: int):
    """The set bits of mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Phase:
    """The systems of a phase placed so far, indexed by what they touch: for
    each component, resource and event, a bit per system that writes, uses,
    emits or receives it, so a system's conflicts with all of them are a few
    mask operations instead of a test per pair."""

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
        for key in a.uses | {"res " + r for r in a.res_uses}:
            mask |= self.writes.get(key, 0)
        for key in a.write | {"res " + r for r in a.res_write}:
            mask |= self.uses.get(key, 0)
        for e in a.receives:
            mask |= self.emits.get(e, 0)
        for e in a.emit:
            mask |= self.receives.get(e, 0)
        return mask

    def place(self, a: _Access, i: int) -> None:
        bit = 1 << i
        for key in a.write | {"res " + r for r in a.res_write}:
            self.writes[key] = self.writes.get(key, 0) | bit
        for key in a.uses | {"res " + r for r in a.res_uses}:
            self.uses[key] = self.uses.get(key, 0) | bit
        for e in a.emit:
            self.emits[e] = self.emits.get(e, 0) | bit
        for e in a.receives:
            self.receives[e] = self.receives.get(e, 0) | bit
        self.changed |= bit if a.changed else 0
        self.placed |= bit


def compute(schema: model.Schema) -> Schedule:
    """The batches of a schema's systems and the pairs they keep apart.

    A pair is listed when nothing else already keeps it apart: if x must
    wait for z and z for y, the pair (x, y) says nothing new and is left
    out (a chain of n systems that all write one component lists n - 1
    pairs, not n * (n - 1) / 2)."""
    ahead = _ordered(schema.systems)
    access = {y.name: _Access(y) for y in schema.systems}
    batch_of: Dict[str, int] = {}
    apart: List[Apart] = []
    batches: List[Tuple[str, List[model.System]]] = []
    for phase in schema.phases:
        first = len(batches)
        done: List[model.System] = []
        place: Dict[str, int] = {}
        index = _Phase()
        behind: List[int] = []  # per system of `done`: a bit per earlier system it waits for, transitively
        for y in (y for y in schema.systems if y.phase == phase):
            a = access[y.name]
            # The systems come in schedule order: all that before/after put
            # ahead of y are placed (a cycle is an error, so never rendered).
            ordered = 0
            for name in ahead.get(y.name, ()):
                if name in place:
                    ordered |= 1 << place[name]
            direct = index.conflicts(a) | ordered
            level = first if schema.threads else len(batches)
            # Latest first: what an earlier system waits for, a later one that
            # waits for it waits for too, in an earlier batch, so it is skipped.
            implied, rest = 0, direct
            while rest:
                i = rest.bit_length() - 1
                level = max(level, batch_of[done[i].name] + 1)
                implied |= behind[i]
                rest &= ~(behind[i] | 1 << i)
            for i in _bits(direct & ~implied):
                x = done[i]
                reasons = _conflicts(access[x.name], a)
                if ordered >> i & 1:
                    reasons.append("order")
                apart.append(Apart(x.name, y.name, tuple(reasons)))
            while len(batches) <= level:
                batches.append((phase, []))
            batches[level][1].append(y)
            batch_of[y.name] = level
            place[y.name] = len(done)
            index.place(a, len(done))
            done.append(y)
            behind.append(implied | direct)
    return Schedule(tuple(Batch(i, phase, tuple(ys)) for i, (phase, ys) in enumerate(batches)), tuple(apart))


def resource_bits(schema: model.Schema, y: model.System) -> str:
    """The C constant of the resources y writes, bit i for resource i (the
    first 64: what the runtime's debug check of a batch covers)."""
    bits = sum(1 << i for i, r in enumerate(schema.resources[:64]) if r.name in y.resources_write)
    return f"UINT64_C({bits:#x})"
