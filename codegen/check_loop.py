"""The checks of the game loop: `phases:` (a phase written as a mapping has
a fixed `rate`), `states:` (state machines), and a system's keys that gate
it in its phase (`in_state`, `run_if`, `interval`, `every`) or run it at
transitions instead (`on_enter`, `on_exit`), with the rules between them
and the keys they exclude. The schedule (schedule.py) orders a system's
`run_if` after the writers of its resource.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

from . import numbers
from .checks import FLOAT, Entry, Section, is_empty_list, parse_integer, shown
from .errors import did_you_mean
from .limits import MAX_EVERY, MAX_INTERVAL, MAX_RATE, MAX_RUNS, MAX_STATES
from .load import Mapping, Node, Scalar, Sequence
from .model import Condition, Field, FixedPhase, Resource, StateMachine, StateTest, TypeRef
from .spec import DEFAULT_PHASES, GATE_KEYS, MAX_RUNS_SECONDS, NOT, PHASE_KEYS, TRANSITION_KEYS

# The phase of a system that runs at transitions (it has none).
TRANSITION_PHASE = ""
# The fields of a state machine's resource, as the runtime lays it out
# (strata_machine_state_t): where it is, what was asked, whether.
MACHINE_FIELDS = ("current", "next", "pending", "entered")
NANOSECONDS = 10 ** 9


@dataclass(frozen=True)
class SystemLoop:
    """A system's loop keys, checked."""
    in_state: Tuple[StateTest, ...] = ()
    run_if: Tuple[Condition, ...] = ()
    interval: int = 0  # nanoseconds
    every: int = 0
    on_enter: Tuple[StateTest, ...] = ()
    on_exit: Tuple[StateTest, ...] = ()

    @property
    def transition(self) -> bool:
        return bool(self.on_enter or self.on_exit)


class Loop(Section):
    """Phases, state machines and the loop keys of systems."""

    # --- phases ---------------------------------------------------------------------

    def phases(self, entry: Optional[Entry]) -> Tuple[Tuple[str, ...], Tuple[FixedPhase, ...]]:
        """The phases in order ([update] when the schema names none) and the
        fixed ones among them."""
        if entry is None:
            return DEFAULT_PHASES, ()
        key, node = entry
        items = self.items(node, "'phases'")
        if not items:
            if is_empty_list(node):
                self.error(key.loc, "'phases' needs at least one phase", "leave it out for the default [update]")
            return DEFAULT_PHASES, ()
        specs = [self.phase_mapping(item) if isinstance(item, Mapping) else (item, 0, 0) for item in items]
        names = self.distinct_names([node for node, _, _ in specs if node is not None], "phase name",
                                    "duplicate phase")
        fixed: List[FixedPhase] = []
        for node, rate, max_runs in specs:
            if rate and node is not None and node.text in names and node.text not in (f.name for f in fixed):
                runs = max_runs or max(1, math.ceil(rate * MAX_RUNS_SECONDS))
                fixed.append(FixedPhase(node.text, rate, runs, node.loc))
        return (tuple(names) or DEFAULT_PHASES), tuple(fixed)

    def phase_mapping(self, item: Mapping) -> Tuple[Optional[Node], int, int]:
        """A phase written `{name: N, rate: R, max_runs: M}`: its name's node
        (None when missing), its rate and max_runs (0 when not given or bad)."""
        keys = self.known_keys(item, PHASE_KEYS, "phase")
        if "name" not in keys:
            self.error(item.loc, "phase: missing 'name'", "e.g. { name: physics, rate: 60 }")
            return None, 0, 0
        owner = f"phase '{keys['name'][1].text}'" if isinstance(keys["name"][1], Scalar) else "phase"
        rate = self.count(keys["rate"], owner, MAX_RATE, "runs a second") if "rate" in keys else 0
        max_runs = self.count(keys["max_runs"], owner, MAX_RUNS, "runs") if "max_runs" in keys else 0
        if "max_runs" in keys and "rate" not in keys:
            self.error(keys["max_runs"][0].loc, f"{owner}: 'max_runs' needs a 'rate'",
                       "an ordinary phase runs once a step; e.g. { name: physics, rate: 60, max_runs: 4 }")
        return keys["name"][1], rate, max_runs

    def count(self, entry: Entry, owner: str, limit: int, unit: str) -> int:
        """A positive integer of at most `limit` (0 after reporting anything else)."""
        key, node = entry
        value = parse_integer(node.text) if isinstance(node, Scalar) and not node.quoted else None
        if value is None or value < 1:
            self.error(node.loc, f"{owner}: '{key.text}' must be a positive integer, got {shown(node)}",
                       f"{unit}, e.g. '{key.text}: 60'" if key.text == "rate" else None)
            return 0
        if value > limit:
            self.error(node.loc, f"{owner}: '{key.text}' {value} is too large", f"at most {limit:,} {unit}")
            return 0
        return value

    def misplaced_rate(self, body: Mapping, owner: str) -> Mapping:
        """`body` without a `rate` key, reported: a rate belongs to a phase."""
        for key, _ in body.items:
            if key.text == "rate":
                self.error(key.loc, f"{owner}: 'rate' belongs to a phase, not a system",
                           "write the phase as { name: physics, rate: 60 } in 'phases' and give the system "
                           "'phase: physics'")
        return Mapping(tuple((k, v) for k, v in body.items if k.text != "rate"), body.loc)

    # --- state machines -----------------------------------------------------------------

    def machines(self, entries: Tuple[Entry, ...]) -> Tuple[StateMachine, ...]:
        """The state machines, numbered 0.. in declaration order; each
        becomes a resource of its name (machine_resource)."""
        machines: List[StateMachine] = []
        for key, value in entries:
            if not self.symbols.declared(key.text, key.loc):
                continue  # a bad or taken name: reported by declare_all
            owner = f"state machine '{key.text}'"
            hint = f"e.g. {key.text}: [title, playing, paused, over]"
            if isinstance(value, Mapping):
                self.error(value.loc, f"{owner} must be a list of states", hint)
                continue
            items = self.items(value, owner)
            if not items:
                if is_empty_list(value):
                    self.error(key.loc, f"{owner}: needs at least one state", hint)
                continue
            states = self.distinct_names(items, "state name", "duplicate state")
            if len(states) > MAX_STATES:
                self.error(items[MAX_STATES].loc, f"{owner}: too many states: at most {MAX_STATES}",
                           "STRATA_MAX_STATES")
                states = states[:MAX_STATES]
            if not states:
                continue
            machine = StateMachine(key.text, len(machines), tuple(states), key.loc)
            machines.append(machine)
            self.symbols.machines[key.text] = machine.states
            self.symbols.resource_names.append(key.text)
        return tuple(machines)

    @staticmethod
    def machine_resource(m: StateMachine) -> Resource:
        """The resource that holds where machine m is: in its initial state,
        not entered yet, with a request to enter it (the first step does)."""
        state = TypeRef("enum", m.name)
        initial = m.states[0]
        current, after, pending, entered = MACHINE_FIELDS
        return Resource(m.name, (Field(current, state, initial, m.loc), Field(after, state, initial, m.loc),
                                 Field(pending, TypeRef("scalar", "bool"), True, m.loc, explicit_default=True),
                                 Field(entered, TypeRef("scalar", "bool"), False, m.loc)), m.loc, machine=True)

    # --- a system's keys ----------------------------------------------------------------

    def system(self, keys: Dict[str, Entry], owner: str, phase: str) -> SystemLoop:
        """A system's gates and transitions, and the rules between them and
        its other keys (`phase` is its phase, or the default)."""
        loop = SystemLoop(
            in_state=self.state_map(keys.get("in_state"), owner),
            run_if=self.conditions(keys.get("run_if"), owner),
            interval=self.interval(keys.get("interval"), owner),
            every=self.count(keys["every"], owner, MAX_EVERY, "runs") if "every" in keys else 0,
            on_enter=self.state_map(keys.get("on_enter"), owner),
            on_exit=self.state_map(keys.get("on_exit"), owner))
        transition_keys = [k for k in TRANSITION_KEYS if k in keys]
        if transition_keys:
            first = keys[transition_keys[0]][0]
            if "phase" in keys:
                self.error(keys["phase"][0].loc, f"{owner}: '{first.text}' and 'phase' exclude each other",
                           f"a system with '{first.text}' runs at the transition, not in a phase")
            for name in GATE_KEYS:
                if name in keys and name != "run_if":
                    self.error(keys[name][0].loc, f"{owner}: '{name}' does not apply to a system that runs "
                                                  f"'{first.text}'",
                               "it runs once at each transition; 'run_if' may hold it back")
            self.no_receive(keys, f"{owner}: a system that runs '{first.text}'",
                            "it runs at transitions, not once a step: receive in a system of a phase (with "
                            "'in_state') and keep what it needs in a resource")
        rate = self.symbols.fixed_phases.get(phase, 0)
        if rate and not transition_keys:
            self.no_receive(keys, f"{owner}: a system of fixed phase '{phase}' (0..n runs a step)",
                            "receive them in a system of an ordinary phase and keep what the fixed phase needs in "
                            "a resource")
        if "interval" in keys and "every" in keys:
            self.error(keys["every"][0].loc, f"{owner}: 'interval' and 'every' exclude each other",
                       "'interval' counts seconds, 'every' runs: keep one")
        if loop.interval and rate and loop.interval * rate >= 2 ** 63:
            self.error(keys["interval"][1].loc, f"{owner}: 'interval' is too long for fixed phase '{phase}'",
                       f"at most {MAX_INTERVAL} s")
        return loop

    def no_receive(self, keys: Dict[str, Entry], who: str, hint: str) -> None:
        """Report `receive` and `receive_late` in `keys`: `who` cannot receive events."""
        for name in ("receive", "receive_late"):
            if name in keys:
                self.error(keys[name][0].loc, f"{who} cannot '{name}' events", hint)

    def state_map(self, entry: Optional[Entry], owner: str) -> Tuple[StateTest, ...]:
        """`{Machine: state}` or `{Machine: [state, ...]}`, for each machine
        named (in_state, on_enter, on_exit)."""
        if entry is None:
            return ()
        key, node = entry
        what = f"{owner}: '{key.text}'"
        example = f"e.g. {key.text}: {{ Game: playing }}"
        if not isinstance(node, Mapping) or not node.items:
            self.error(node.loc, f"{what} must map a state machine to its states", example)
            return ()
        tests: List[StateTest] = []
        for machine_node, states_node in node.items:
            machine = machine_node.text
            if machine not in self.symbols.machines:
                hint = self.kind_hint(machine) or did_you_mean(machine, list(self.symbols.machines))
                if hint is None and not self.symbols.machines:
                    hint = "declare it under 'states:', e.g. states: { Game: [title, playing] }"
                self.error(machine_node.loc, f"{what}: unknown state machine '{machine}'", hint)
                continue
            known = self.symbols.machines[machine]
            items = states_node.items if isinstance(states_node, Sequence) else (states_node,)
            if not items:
                self.error(states_node.loc, f"{what}: '{machine}' lists no state", example)
                continue
            chosen: List[str] = []
            for item in items:
                state = item.text if isinstance(item, Scalar) else None
                if state is None or state not in known:
                    text = item.text if isinstance(item, Scalar) else ""
                    hint = did_you_mean(text, known) or f"'{machine}' has {', '.join(known)}"
                    self.error(item.loc, f"{what}: '{machine}' has no state {shown(item)}", hint)
                    continue
                if state in chosen:
                    self.error(item.loc, f"{what}: state '{state}' is listed twice")
                    continue
                chosen.append(state)
            if chosen:
                tests.append(StateTest(machine, tuple(s for s in known if s in chosen)))
        return tuple(tests)

    def conditions(self, entry: Optional[Entry], owner: str) -> Tuple[Condition, ...]:
        """`{Resource: field}`, `{Resource: [field, not other]}`: bool fields
        of resources the system runs under."""
        if entry is None:
            return ()
        key, node = entry
        what = f"{owner}: 'run_if'"
        example = "e.g. run_if: { Settings: ai_enabled }, or { Settings: 'not paused' }"
        if not isinstance(node, Mapping) or not node.items:
            self.error(node.loc, f"{what} must map a resource to a bool field (or a list of them)", example)
            return ()
        found: List[Condition] = []
        for resource_node, fields_node in node.items:
            resource = resource_node.text
            if resource in self.symbols.machines:
                self.error(resource_node.loc, f"{what}: '{resource}' is a state machine",
                           f"run only in its states with 'in_state: {{ {resource}: ... }}'")
                continue
            if resource not in self.symbols.resource_fields:
                hint = self.kind_hint(resource) or did_you_mean(resource, list(self.symbols.resource_fields))
                self.error(resource_node.loc, f"{what}: unknown resource '{resource}'", hint)
                continue
            fields = {f.name: f for f in self.symbols.resource_fields[resource]}
            items = fields_node.items if isinstance(fields_node, Sequence) else (fields_node,)
            if not items:
                self.error(fields_node.loc, f"{what}: '{resource}' lists no field", example)
            for item in items:
                condition = self.condition(item, resource, fields, what)
                if condition is None:
                    continue
                if any(c.resource == resource and c.field == condition.field for c in found):
                    self.error(item.loc, f"{what}: field '{resource}.{condition.field}' is listed twice")
                    continue
                found.append(condition)
        return tuple(found)

    def condition(self, item: Node, resource: str, fields: Dict[str, Field], what: str) -> Optional[Condition]:
        """One `field` or `not field` of resource `resource`."""
        words = item.text.split() if isinstance(item, Scalar) else []
        if len(words) == 1:
            name, expect = words[0], True
        elif len(words) == 2 and words[0] == NOT:
            name, expect = words[1], False
        else:
            self.error(item.loc, f"{what}: expected a field of '{resource}', or 'not FIELD', got {shown(item)}")
            return None
        if name not in fields:
            hint = did_you_mean(name, list(fields)) or f"'{resource}' has {', '.join(fields) or 'no field'}"
            self.error(item.loc, f"{what}: resource '{resource}' has no field '{name}'", hint)
            return None
        t = fields[name].type
        if not (t.kind == "scalar" and t.name == "bool"):
            self.error(item.loc, f"{what}: field '{resource}.{name}' is {_type_text(t)}, not bool",
                       "a condition is a bool field of a resource; add one, e.g. 'enabled: bool = true'")
            return None
        return Condition(resource, name, expect)

    def interval(self, entry: Optional[Entry], owner: str) -> int:
        """`interval: SECONDS` in nanoseconds (rounded to the nearest, at least 1); 0 after reporting."""
        if entry is None:
            return 0
        key, node = entry
        value = None
        if isinstance(node, Scalar) and not node.quoted and FLOAT.fullmatch(node.text):
            value = numbers.parse_float_text(node.text)
        if value is None or value <= 0:
            self.error(node.loc, f"{owner}: 'interval' must be a positive number of seconds, got {shown(node)}",
                       "e.g. 'interval: 0.5'")
            return 0
        if value > MAX_INTERVAL:
            self.error(node.loc, f"{owner}: 'interval' {node.text} is too long", f"at most {MAX_INTERVAL} s")
            return 0
        return max(1, round(Fraction(value) * NANOSECONDS))


def _type_text(t: TypeRef) -> str:
    """A field type as a message names it."""
    if t.kind == "scalar":
        return t.name
    if t.kind == "array":
        return f"an array of {t.length}"
    if t.kind == "string":
        return f"char[{t.length}]"
    return f"{'an' if t.kind == 'enum' else 'a'} {t.kind} ({t.name})" if t.name else t.kind
