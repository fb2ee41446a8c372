"""The checks of queries and systems: terms, `cascade`, resources a system
reads and writes, its events (`emit`, `receive`, `receive_late`), aspects,
hooks and threads, and the names `before` / `after` give. The order those
make, and the batches, are schedule.py's; the event flow (every event sent
and received) is checked once every system is known.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping as MappingType, Optional, Set, Tuple

from . import schedule
from .check_loop import TRANSITION_PHASE, Loop, SystemLoop
from .check_types import Types
from .checks import Entry, Section, Symbols, node_of, texts
from .errors import Reporter, did_you_mean
from .limits import MAX_CHANGED, MAX_COMPONENTS, MAX_MONITORS, MAX_QUERIES
from .load import Node, Scalar, Sequence
from .model import Event, Field, Loc, Query, Schedule, System, Terms
from .spec import (DEFAULT_PHASE, EVENT_KEYS, HOOK_KEYS, QUERY_KEYS, REQUIRED_TERMS,
                   RESOURCE_ACCESS_KEYS, SENT_BY_KEY, SYSTEM_KEYS, TERM_KEYS)


@dataclass(frozen=True)
class _SystemSpec:
    """A system as written, before it is placed in the schedule."""
    name: str
    loc: Loc
    phase: str
    terms: Terms
    before: Tuple[Node, ...]
    after: Tuple[Node, ...]
    resources_read: Tuple[str, ...]
    resources_write: Tuple[str, ...]
    aspect: Tuple[Field, ...]
    on_add: bool
    on_remove: bool
    parallel: bool
    main_thread: bool
    # event lists: (event name, where it is listed), by key of EVENT_KEYS
    events: MappingType[str, Tuple[Tuple[str, Loc], ...]]
    loop: SystemLoop  # its gates and transitions (check_loop.py)

    @property
    def emit(self) -> Tuple[str, ...]:
        return _names_of(self.events["emit"])

    @property
    def receive(self) -> Tuple[str, ...]:
        return _names_of(self.events["receive"])


class Systems(Section):
    """Queries and systems, over the components, resources and events
    declared before them."""

    def __init__(self, report: Reporter, symbols: Symbols, types: Types) -> None:
        super().__init__(report, symbols)
        self.types = types
        self.loop = Loop(report, symbols)
        self.receive_locs: Dict[str, Tuple[Tuple[str, Loc], ...]] = {}  # system -> its `receive` items

    def queries(self, entries: Tuple[Entry, ...]) -> Tuple[Query, ...]:
        """The free queries, numbered 0.. in declaration order."""
        queries = []
        for index, (key, value) in enumerate(entries):
            self.check_query_limit(index, key)
            owner = f"query '{key.text}'"
            body = self.mapping_or_empty(value, owner, "e.g. { read: [Position], with: [Collision] }")
            keys = self.known_keys(body, QUERY_KEYS, owner)
            terms = self.terms(keys, owner)
            if not lists_something(keys, REQUIRED_TERMS):
                self.error(key.loc, f"{owner}: needs at least one 'read', 'write' or 'with' term")
            queries.append(Query(key.text, index, terms, key.loc))
        self.symbols.free_queries = tuple(queries)
        return self.symbols.free_queries

    def check_query_limit(self, count_before: int, key: Scalar) -> None:
        """Report the first query or system past STRATA_MAX_QUERIES."""
        if count_before == MAX_QUERIES:
            self.error(key.loc, f"too many queries and systems: at most {MAX_QUERIES}", "STRATA_MAX_QUERIES")

    def terms(self, keys: MappingType[str, Entry], owner: str) -> Terms:
        """The component terms among `keys`; a component may be in one list only."""
        lists: Dict[str, List[str]] = {term: [] for term in TERM_KEYS}
        first: Dict[str, str] = {}  # component -> the term it was first listed in
        for term, (_, node) in keys.items():
            if term not in TERM_KEYS:
                continue
            listed: Set[str] = set()
            for item in self.items(node, f"{owner}: '{term}'"):
                name = self.reference(item, self.symbols.component_names, "component", owner)
                if name is None:
                    continue
                if name in listed:
                    self.error(item.loc, f"{owner}: component '{name}' is listed twice in '{term}'")
                    continue
                listed.add(name)
                if name in first:
                    self.error(item.loc, f"{owner}: {term_conflict(first[name], term, name)}")
                    continue
                first[name] = term
                if term in ("read", "write") and name in self.symbols.tag_names:
                    if self.symbols.data_names.get(name, ("", None))[0] == "relation":
                        self.error(item.loc, f"{owner}: relation '{name}' has many targets a source, no column; "
                                             f"use 'with'", "its targets are read with '<world>_<relation>_targets'")
                    else:
                        self.error(item.loc, f"{owner}: tag '{name}' has no data; use 'with'")
                    continue
                if term == "write" and name in self.symbols.exclusive_relations:
                    self.error(item.loc, f"{owner}: relation '{name}' is changed through its functions, not "
                                         f"written", "use 'read'; set links with '<world>_<relation>_set'")
                    continue
                lists[term].append(name)
        changed: List[str] = []
        if "changed" in keys:
            for item in self.items(keys["changed"][1], f"{owner}: 'changed'"):
                name = self.reference(item, self.symbols.component_names, "component", owner)
                if name is None:
                    continue
                if name in changed:
                    self.error(item.loc, f"{owner}: component '{name}' is listed twice in 'changed'")
                elif name not in lists["read"] and name not in lists["write"]:
                    self.error(item.loc, f"{owner}: 'changed' lists '{name}', which is not read or written",
                               f"add '{name}' to 'read' or 'write'")
                else:
                    changed.append(name)
        cascade = self.cascade(keys.get("cascade"), owner, changed)
        sparse = [name for term in TERM_KEYS for name in lists[term] if name in self.symbols.sparse_names]
        if cascade and sparse:
            self.error(keys["cascade"][0].loc, f"{owner}: 'cascade' over sparse component '{sparse[0]}'",
                       "a cascade visits whole runs of a table's rows; filter inside the system, or store it in "
                       "tables")
            cascade = ""
        return Terms(read=tuple(lists["read"]), write=tuple(lists["write"]), with_=tuple(lists["with"]),
                     without=tuple(lists["without"]), optional=tuple(lists["optional"]), changed=tuple(changed),
                     cascade=cascade)

    def cascade(self, entry: Optional[Entry], owner: str, changed: List[str]) -> str:
        """The exclusive relation a `cascade` names ("" when absent or bad)."""
        if entry is None:
            return ""
        key, node = entry
        if not isinstance(node, Scalar) or node.text not in self.symbols.exclusive_relations:
            text = node.text if isinstance(node, Scalar) else ""
            if self.symbols.data_names.get(text, ("", None))[0] == "relation":
                hint: Optional[str] = f"relation '{text}' has many targets a source; give it 'exclusive: true'"
            else:
                hint = self.kind_hint(text) or did_you_mean(text, sorted(self.symbols.exclusive_relations))
            self.error(node.loc, f"{owner}: 'cascade' must name an exclusive relation", hint)
            return ""
        if changed:
            self.error(key.loc, f"{owner}: 'cascade' and 'changed' do not mix",
                       "a changed pass visits entities in the order they were written")
            return ""
        return node.text

    def systems(self, entries: Tuple[Entry, ...], first_query_index: int,
                threads: bool) -> Tuple[Tuple[System, ...], Schedule]:
        """The systems in run order, and their batches (schedule.py). Those
        with terms get query ids numbered in run order from
        `first_query_index` (the number of free queries); those without get
        None."""
        specs = []
        for index, (key, value) in enumerate(entries):
            self.check_query_limit(first_query_index + index, key)
            specs.append(self.system_spec(key, value))
        ordered_by = self.ordering(specs)
        runs_after = {name: set(firsts) for name, firsts in ordered_by.items()}
        schedule.receivers_after_emitters(specs, runs_after)
        self.receive_locs = {spec.name: spec.events["receive"] for spec in specs}
        by_name = {spec.name: spec for spec in specs}
        systems = []
        next_query = first_query_index
        phases = self.symbols.phases + ((TRANSITION_PHASE,) if any(spec.loop.transition for spec in specs) else ())
        for order, name in enumerate(schedule.run_order(phases, specs, runs_after, self.report)):
            spec = by_name[name]
            query_index = None
            if not spec.terms.empty:
                query_index = next_query
                next_query += 1
            systems.append(System(
                name=spec.name, phase=spec.phase, order=order, terms=spec.terms, query_index=query_index,
                before=texts(spec.before), after=texts(spec.after), resources_read=spec.resources_read,
                resources_write=spec.resources_write, loc=spec.loc, aspect=spec.aspect, on_add=spec.on_add,
                on_remove=spec.on_remove, emit=spec.emit, receive=spec.receive,
                receive_late=_names_of(spec.events["receive_late"]), parallel=spec.parallel,
                main_thread=spec.main_thread, in_state=spec.loop.in_state, run_if=spec.loop.run_if,
                interval=spec.loop.interval, every=spec.loop.every, on_enter=spec.loop.on_enter,
                on_exit=spec.loop.on_exit))
        batches, loose = schedule.compute(systems, self.symbols.phases, threads, ordered_by)
        schedule.warn_loose_writers(loose, self.report)
        self.check_tracking_limits(systems)
        return tuple(systems), batches

    def check_tracking_limits(self, systems: Tuple[System, ...]) -> None:
        """The runtime's limits on what it tracks per world: reported at the first element past each."""
        monitored = [y for y in systems if y.monitored]
        if len(monitored) > MAX_MONITORS:
            self.error(monitored[MAX_MONITORS].loc, f"too many systems with an aspect or hooks: at most {MAX_MONITORS}",
                       "STRATA_MAX_MONITORS")
        with_aspect = [y for y in systems if y.aspect]
        room = max(MAX_COMPONENTS - len(self.symbols.component_names), 0)
        if len(with_aspect) > room:
            self.error(with_aspect[room].loc,
                       f"too many aspects: components and aspects share {MAX_COMPONENTS} column ids",
                       "STRATA_MAX_COMPONENTS")
        changed = [(q.name, q.loc) for q in self.symbols.free_queries if q.terms.changed]
        changed += [(y.name, y.loc) for y in systems if y.terms.changed]
        if len(changed) + len(self.symbols.on_set_components) > MAX_CHANGED:
            name, loc = (changed + self.symbols.on_set_components)[MAX_CHANGED]
            what = "queries and systems with 'changed'" + (" and components with 'on_set'"
                                                          if self.symbols.on_set_components else "")
            self.error(loc, f"too many {what}: at most {MAX_CHANGED}", "STRATA_MAX_CHANGED")

    def system_spec(self, key: Scalar, value: Node) -> _SystemSpec:
        owner = f"system '{key.text}'"
        body = self.mapping_or_empty(value, owner, "e.g. { read: [Velocity], write: [Position] }")
        keys = self.known_keys(self.loop.misplaced_rate(body, owner), SYSTEM_KEYS, owner)
        terms = self.terms(keys, owner)
        if lists_something(keys, TERM_KEYS) and not lists_something(keys, REQUIRED_TERMS):
            self.error(key.loc, f"{owner}: needs at least one 'read', 'write' or 'with' term",
                       "a system with no terms at all runs once a step")
        reads, writes = self.resource_access(keys.get("resources"), owner)
        aspect: Tuple[Field, ...] = ()
        if "aspect" in keys:
            aspect_owner = f"{owner}: aspect"
            aspect_entries = self.types.field_entries(keys["aspect"][1], aspect_owner)
            if not aspect_entries:
                self.error(keys["aspect"][0].loc, f"{aspect_owner}: needs at least one field",
                           "e.g. aspect: { sprite: u32 }")
            aspect = self.types.body_fields(aspect_entries, aspect_owner, keys["aspect"][0].loc)
        hooks = self.flags(keys, HOOK_KEYS, owner)
        if terms.empty:
            for name in ("aspect", "changed", "cascade") + HOOK_KEYS:
                if name in keys:
                    self.error(keys[name][0].loc, f"{owner}: '{name}' needs query terms",
                               "a system with no terms matches no entity")
        threads = self.flags(keys, ("parallel", "main_thread"), owner)
        events = self.event_lists(keys, owner)
        if threads.get("parallel"):
            self.check_parallel(keys, terms, threads, owner)
        phase = self.phase_of(keys.get("phase"), owner)
        loop = self.loop.system(keys, owner, phase)
        return _SystemSpec(
            name=key.text, loc=key.loc, phase=TRANSITION_PHASE if loop.transition else phase, terms=terms,
            before=self.items(node_of(keys.get("before")), f"{owner}: 'before'"),
            after=self.items(node_of(keys.get("after")), f"{owner}: 'after'"),
            resources_read=reads, resources_write=writes, aspect=aspect, on_add=hooks.get("on_add", False),
            on_remove=hooks.get("on_remove", False), parallel=threads.get("parallel", False),
            main_thread=threads.get("main_thread", False), events=events, loop=loop)

    def check_parallel(self, keys: Dict[str, Entry], terms: Terms, threads: Dict[str, bool], owner: str) -> None:
        """What a system split into chunks cannot have: no rows to split, a
        changed set (one shared list, visited in order), a cascade (one
        ordered pass), a place on the calling thread. (Its chunks' events are staged and merged in chunk
        order, so it may emit.)"""
        loc = keys["parallel"][0].loc
        if terms.empty:
            self.error(loc, f"{owner}: 'parallel' needs query terms", "a system with no terms has no rows to split")
        if terms.changed:
            self.error(loc, f"{owner}: 'parallel' cannot be used with 'changed'",
                       "a changed set is visited one entity at a time, in table then row order")
        if terms.cascade:
            self.error(loc, f"{owner}: 'parallel' cannot be used with 'cascade'",
                       "a cascade visits parents before children, batch after batch, in one pass")
        if threads.get("main_thread"):
            self.error(loc, f"{owner}: 'parallel' and 'main_thread' exclude each other",
                       "a split system runs its chunks on every worker")

    def phase_of(self, entry: Optional[Entry], owner: str) -> str:
        """The system's phase: as given, else 'update' if there is one, else the first."""
        default = DEFAULT_PHASE if DEFAULT_PHASE in self.symbols.phases else self.symbols.phases[0]
        if entry is None:
            return default
        node = entry[1]
        text = node.text if isinstance(node, Scalar) else ""
        if text not in self.symbols.phases:
            hint = did_you_mean(text, self.symbols.phases) or f"phases: {', '.join(self.symbols.phases)}"
            self.error(node.loc, f"{owner}: unknown phase '{text}'", hint)
            return default
        return text

    def resource_access(self, entry: Optional[Entry], owner: str) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
        """The resources a system reads and writes (`resources: {read, write}`)."""
        if entry is None:
            return (), ()
        body = self.mapping_or_empty(entry[1], f"{owner}: 'resources'",
                                     "e.g. { read: [Input], write: [Score] }")
        keys = self.known_keys(body, RESOURCE_ACCESS_KEYS, f"{owner}: resources")
        lists: Dict[str, List[str]] = {"read": [], "write": []}
        first: Dict[str, str] = {}
        for access, (_, node) in keys.items():
            for item in self.items(node, f"{owner}: resources: '{access}'"):
                name = self.reference(item, self.symbols.resource_names, "resource", owner)
                if name is None:
                    continue
                if name in first:
                    if first[name] == access:
                        self.error(item.loc, f"{owner}: resource '{name}' is listed twice in '{access}'")
                    else:
                        self.error(item.loc, f"{owner}: resource '{name}' is both read and written",
                                   "'write' gives read access too")
                    continue
                first[name] = access
                lists[access].append(name)
        return tuple(lists["read"]), tuple(lists["write"])

    def event_lists(self, keys: MappingType[str, Entry], owner: str) -> Dict[str, Tuple[Tuple[str, Loc], ...]]:
        """A system's emit / receive / receive_late: each event once, in one
        of the receive lists, and never both emitted and received."""
        lists: Dict[str, List[Tuple[str, Loc]]] = {key: [] for key in EVENT_KEYS}
        first: Dict[str, str] = {}  # event -> the list it was first named in
        for key in EVENT_KEYS:
            if key not in keys:
                continue
            for item in self.items(keys[key][1], f"{owner}: '{key}'"):
                name = self.reference(item, self.symbols.event_names, "event", owner)
                if name is None:
                    continue
                other = first.get(name)
                if other == key:
                    self.error(item.loc, f"{owner}: event '{name}' is listed twice in '{key}'")
                    continue
                if other is not None and other != "emit":
                    self.error(item.loc, f"{owner}: event '{name}' is in both '{other}' and '{key}'",
                               "'receive_late' receives it too")
                    continue
                if other == "emit":
                    self.error(item.loc, f"{owner}: event '{name}' is both emitted and received",
                               "a system does not receive its own events; emit another event or split the system")
                    continue
                first[name] = key
                lists[key].append((name, item.loc))
        return {key: tuple(items) for key, items in lists.items()}

    def reference(self, item: Node, known: Iterable[str], kind: str, owner: str) -> Optional[str]:
        """The `kind` (component, resource, event, system) among `known` that
        `item` names, or None after reporting it is not one."""
        if not isinstance(item, Scalar):
            self.error(item.loc, f"{owner}: expected a {kind} name")
            return None
        if item.text in known:
            return item.text
        hint = self.kind_hint(item.text) or did_you_mean(item.text, list(known))
        self.error(item.loc, f"{owner}: unknown {kind} '{item.text}'", hint)
        return None

    def check_event_flow(self, events: Tuple[Event, ...], systems: Tuple[System, ...]) -> None:
        """Every event has a sender (a system that emits it, or `sent_by:
        game`) and a receiver; warn about a receiver that runs before an
        emitter without saying so (`receive_late`)."""
        for e in events:
            if not e.sent_by_game and not any(e.name in y.emit for y in systems):
                self.error(e.loc, f"event '{e.name}': no system emits it",
                           f"list it in a system's 'emit', say '{SENT_BY_KEY}: game' if game code sends it, or "
                           f"remove the event")
            if not any(e.name in y.receives for y in systems):
                self.error(e.loc, f"event '{e.name}': no system receives it",
                           "list it in a system's 'receive', or remove the event")
        for r in systems:
            for event, loc in self.receive_locs.get(r.name, ()):
                for y in systems:
                    if event in y.emit and y.order > r.order:
                        self.warn(loc, f"system '{r.name}' receives '{event}' but runs before '{y.name}', which emits "
                                       f"it: it sees those events one step late",
                                  f"list '{event}' in 'receive_late' to say so, or order '{r.name}' after '{y.name}'")

    def ordering(self, specs: List[_SystemSpec]) -> Dict[str, Set[str]]:
        """Check before/after and return, for each system, the systems of its
        phase that must run before it."""
        by_name = {spec.name: spec for spec in specs}
        phase_index = {phase: i for i, phase in enumerate(self.symbols.phases + (TRANSITION_PHASE,))}
        runs_after: Dict[str, Set[str]] = {spec.name: set() for spec in specs}
        for spec in specs:
            owner = f"system '{spec.name}'"
            for relation, items in (("before", spec.before), ("after", spec.after)):
                listed: Set[str] = set()
                for item in items:
                    name = self.reference(item, by_name, "system", owner)
                    if name is None:
                        continue
                    other = by_name[name]
                    if other.name == spec.name:
                        self.error(item.loc, f"{owner}: '{relation}' names the system itself")
                        continue
                    if other.name in listed:
                        self.error(item.loc, f"{owner}: '{other.name}' is listed twice in '{relation}'")
                        continue
                    listed.add(other.name)
                    first, then = (spec, other) if relation == "before" else (other, spec)
                    if (spec.phase == TRANSITION_PHASE) != (other.phase == TRANSITION_PHASE):
                        where = "at transitions" if other.phase == TRANSITION_PHASE else f"in phase '{other.phase}'"
                        self.error(item.loc, f"{owner}: '{relation}' names '{other.name}', which runs {where}",
                                   "systems that run on_enter / on_exit are ordered among themselves only")
                    elif phase_index[first.phase] > phase_index[then.phase]:
                        # The phases already order them the other way round.
                        later = "after" if relation == "before" else "before"
                        self.error(item.loc, f"{owner}: cannot run {relation} '{other.name}'",
                                   f"phase '{spec.phase}' runs {later} phase '{other.phase}'")
                    elif first.phase == then.phase:
                        runs_after[then.name].add(first.name)
        return runs_after


# --- helpers without state ------------------------------------------------------


def _names_of(items: Iterable[Tuple[str, Loc]]) -> Tuple[str, ...]:
    return tuple(name for name, _ in items)


def lists_something(keys: MappingType[str, Entry], terms: Iterable[str]) -> bool:
    """True if any of `terms` is given a non-empty list."""
    return any(isinstance(keys[t][1], Sequence) and keys[t][1].items for t in terms if t in keys)


def term_conflict(first: str, second: str, name: str) -> str:
    """What is wrong with listing component `name` under two terms."""
    pair = {first, second}
    if pair == {"read", "write"}:
        return f"component '{name}' is both read and written"
    if "without" in pair and pair & {"read", "write", "with"}:
        return f"component '{name}' is both required and excluded"
    if pair == {"optional", "without"}:
        return f"component '{name}' is both optional and excluded"
    return f"component '{name}' is in both '{first}' and '{second}'"
