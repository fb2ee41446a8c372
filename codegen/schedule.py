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
        behind: List[int] = []  # per system of `done`: a bit per earlier system it waits for, transitively
        for y in (y for y in schema.systems if y.phase == phase):
            level = first if schema.threads else len(batches)
            direct: List[Tuple[int, Tuple[str, ...]]] = []
            for i, x in enumerate(done):
                reasons = _conflicts(access[x.name], access[y.name])
                if x.name in ahead.get(y.name, ()) or y.name in ahead.get(x.name, ()):
                    reasons.append("order")
                if reasons:
                    direct.append((i, tuple(reasons)))
                    level = max(level, batch_of[x.name] + 1)
            implied = 0
            for i, _ in direct:
                implied |= behind[i]
            for i, reasons in direct:
                if not implied >> i & 1:
                    apart.append(Apart(done[i].name, y.name, reasons))
            mask = implied
            for i, _ in direct:
                mask |= 1 << i
            while len(batches) <= level:
                batches.append((phase, []))
            batches[level][1].append(y)
            batch_of[y.name] = level
            done.append(y)
            behind.append(mask)
    return Schedule(tuple(Batch(i, phase, tuple(ys)) for i, (phase, ys) in enumerate(batches)), tuple(apart))


def resource_bits(schema: model.Schema, y: model.System) -> str:
    """The C constant of the resources y writes, bit i for resource i (the
    first 64: what the runtime's debug check of a batch covers)."""
    bits = sum(1 << i for i, r in enumerate(schema.resources[:64]) if r.name in y.resources_write)
    return f"UINT64_C({bits:#x})"
