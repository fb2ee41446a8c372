"""Fill the Jinja2 templates from the model.

One environment, set up here. Templates see the model, the `Names` object and
the few helpers below (C literals, masks): logic beyond a loop and an `if`
lives here or in the model, never in a template.
"""
from __future__ import annotations

import functools
import math
import os
import re
from typing import Dict, List, Set, Tuple

import jinja2

from . import __version__, model, numbers
from .limits import MASK_WORDS
from . import schedule as threaded_schedule
from .layout import COLUMN_LIMIT, c_header, c_wrap  # noqa: F401 -- COLUMN_LIMIT for the tests
from .names import Names

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
TEMPLATES = ("world.h.j2", "world.c.j2", "_macros.j2", "schedule.txt.j2", "schedule.dot.j2", "saves.h.j2",
             "reflect.c.j2", "assemblages.c.j2", "live.c.j2")


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja2's cache of compiled templates on disk, so that a run of the
    generator does not compile the templates again (compiling them is most
    of a small schema's run: a live reload waits for it). Jinja2 keys each
    entry by the template's name and checks its source's checksum; a cache
    that cannot be read or written costs only the compile."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 -- unreadable or foreign: compile instead
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache():
    """The cache in $STRATA_GEN_CACHE (made if missing; empty: no cache),
    else Jinja2's own per-user folder in the system's temporary folder."""
    directory = os.environ.get("STRATA_GEN_CACHE")
    if directory == "":
        return None
    try:
        if directory:
            os.makedirs(directory, exist_ok=True)
        return _BytecodeCache(directory)
    except (OSError, RuntimeError):
        return None


@functools.lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    """The one environment, made once a process: it keeps each template
    compiled, so rendering many worlds parses the templates once (and,
    through the bytecode cache, so do later runs)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    # Consecutive pairs (a, b), (b, c), ...: the run order's arrows.
    env.filters["zip_pairs"] = lambda items: list(zip(list(items), list(items)[1:]))
    env.filters["c_wrap"] = c_wrap
    env.filters["c_header"] = c_header
    env.filters["commented"] = commented
    return env


def template_paths() -> List[str]:
    """Absolute paths of every template a render reads (for --depfile)."""
    return [os.path.join(TEMPLATE_DIR, t) for t in TEMPLATES]


def commented(rows, indent: int = 4) -> str:
    """Lines of (code, comment), the comments aligned one space after the
    longest code, as clang-format aligns trailing comments (a list of
    initializers with a comment each also stays one a line)."""
    rows = list(rows)
    width = max(len(code) for code, _ in rows)
    return "\n".join(f"{' ' * indent}{code.ljust(width)} /* {comment} */" for code, comment in rows)


def _float_literal(value: float, scalar: str) -> str:
    """The shortest decimal that a C compiler rounds back to `value` (already
    a value of the type: the validator rounded it), denormals included."""
    if math.isinf(value) or math.isnan(value):
        raise ValueError("non-finite default")  # the validator rejects these
    return numbers.shortest(numbers.FORMATS[scalar], value) + ("f" if scalar == "f32" else "")


def _int_literal(value: int, scalar: str) -> str:
    if scalar == "u64":
        return f"UINT64_C({value})"
    if scalar == "i64":
        # INT64_MIN has no literal form: write it as an expression.
        if value == -(2 ** 63):
            return "INT64_MIN"
        return f"INT64_C({value})"
    if scalar == "u32":
        return f"{value}u"
    if scalar == "i32" and value == -(2 ** 31):
        return "INT32_MIN"
    return str(value)


class Literals:
    """C initializers for resolved default values.

    A value whose bits are all zero is never spelt out: a struct lists only
    its fields that are not zero, an array stops at its last non-zero
    element, and an all-zero value is `{0}`. So the output grows with what
    the schema says, not with the size of its types.
    """

    def __init__(self, schema: model.Schema, names: Names):
        self.schema = schema
        self.names = names
        self._struct_defaults_zero: Dict[str, bool] = {}
        self._fields = {t.name: t.fields for t in schema.structs}

    def element_default(self, t: model.TypeRef) -> model.Value:
        """The value an array element takes when the schema gives none."""
        if t.kind == "struct":
            return tuple((f.name, f.default) for f in self._fields[t.name])
        if t.kind == "scalar":
            return False if t.name == "bool" else (0.0 if t.name in ("f32", "f64") else 0)
        if t.kind == "enum":
            return self.schema.enum(t.name).members[0]
        return "" if t.kind == "string" else 0

    def is_zero(self, t: model.TypeRef, v: model.Value) -> bool:
        """True if a value of type t has every bit zero (so `{0}` writes it)."""
        if t.kind == "scalar":
            if t.name in ("f32", "f64"):
                return v == 0 and math.copysign(1.0, v) > 0
            return not v
        if t.kind == "entity":
            return True
        if t.kind == "enum":
            return v == self.schema.enum(t.name).members[0]
        if t.kind == "string":
            return v == ""
        if t.kind == "struct":
            return all(self.is_zero(f.type, x) for f, (_, x) in zip(self._fields[t.name], v))
        if t.kind == "array":
            return all(self.is_zero(t.element, x) for x in v) and (
                len(v) == t.length or self._element_default_is_zero(t.element))
        raise ValueError(t.kind)

    def _element_default_is_zero(self, t: model.TypeRef) -> bool:
        if t.kind != "struct":
            return self.is_zero(t, self.element_default(t))
        if t.name not in self._struct_defaults_zero:
            self._struct_defaults_zero[t.name] = self.is_zero(t, self.element_default(t))
        return self._struct_defaults_zero[t.name]

    def value(self, t: model.TypeRef, v: model.Value) -> str:
        """An initializer for a value of type t (usable in a brace initializer)."""
        if t.kind == "scalar":
            if t.name == "bool":
                return "true" if v else "false"
            if t.name in ("f32", "f64"):
                return _float_literal(v, t.name)
            return _int_literal(int(v), t.name)
        if t.kind == "entity":
            return "{0}"
        if t.kind == "enum":
            return self.names.enum_member(t.name, v)
        if t.kind == "struct":
            return self.fields(self._fields[t.name], dict(v))
        if t.kind == "array":
            items = list(v)
            if not self._element_default_is_zero(t.element):
                items += [self.element_default(t.element)] * (t.length - len(items))
            while items and self.is_zero(t.element, items[-1]):
                items.pop()
            if not items:
                return "{0}"  # only at the top: a nested zero is left out
            if any(self.is_zero(t.element, x) for x in items):
                # A zero in the middle: name the others, so no nested {0} is needed.
                return "{" + ", ".join(f"[{i}] = {self.value(t.element, x)}" for i, x in enumerate(items)
                                       if not self.is_zero(t.element, x)) + "}"
            return "{" + ", ".join(self.value(t.element, x) for x in items) + "}"
        if t.kind == "string":
            return string_literal(v)
        raise ValueError(t.kind)

    def fields_zero(self, fields) -> bool:
        """True if every field's default is zero (then no initializer is needed)."""
        return all(self.is_zero(f.type, f.default) for f in fields)

    def designated(self, fields, values=None, prefix: str = "") -> List[Tuple[str, str]]:
        """A struct of `fields` (values override defaults) as its leaves:
        (designator, literal) for each scalar that is not zero, nested
        structs and arrays spelt out (`.rules.decay[2]`). One leaf a line
        keeps a long default within the line length clang-format wants."""
        out: List[Tuple[str, str]] = []
        for f in fields:
            v = f.default if values is None else values[f.name]
            self._leaves(f.type, v, f"{prefix}.{f.name}", out)
        return out

    def _leaves(self, t: model.TypeRef, v: model.Value, at: str, out: List[Tuple[str, str]]) -> None:
        if self.is_zero(t, v):
            return
        if t.kind == "struct":
            out += self.designated(self._fields[t.name], dict(v), at)
        elif t.kind == "array":
            items = list(v)
            if not self._element_default_is_zero(t.element):
                items += [self.element_default(t.element)] * (t.length - len(items))
            for i, x in enumerate(items):
                self._leaves(t.element, x, f"{at}[{i}]", out)
        else:
            out.append((at, self.value(t, v)))

    def fields(self, fields, values=None) -> str:
        """A designated initializer for a struct of `fields` (values override
        defaults); fields that are zero are left to the zero-initialisation."""
        parts = []
        for f in fields:
            v = f.default if values is None else values[f.name]
            if not self.is_zero(f.type, v):
                parts.append(f".{f.name} = {self.value(f.type, v)}")
        if not parts:
            return "{0}"
        return "{" + ", ".join(parts) + "}"

    def compound(self, fields) -> str:
        """The braces of a compound literal `(T){...}` holding the defaults
        of `fields`. All zero, it names the first scalar inside the first
        field (`{.pos.x = 0}`, `{.rgb[0] = 0}`) instead of `{0}`: gcc
        takes `{0}` for any struct in a declaration, but inside another
        initializer (`&(rect_bundle){ .color = &RECT_COLOR_DEFAULT }`) it
        warns of missing braces when the first field is an array or a struct."""
        text = self.fields(fields)
        if text != "{0}" or not fields:
            return text
        designator, value = self._first_scalar(fields[0])
        return f"{{{designator} = {value}}}"

    def _first_scalar(self, f) -> Tuple[str, str]:
        """The designator of the first scalar of field f, and its zero."""
        path, t = f".{f.name}", f.type
        while t.kind in ("array", "struct"):
            if t.kind == "array":
                path, t = path + "[0]", t.element
            else:
                first = self._fields[t.name][0]
                path, t = f"{path}.{first.name}", first.type
        if t.kind == "string":
            return path + "[0]", "0"
        if t.kind == "entity":
            return path, "{0}"
        if t.kind == "enum":
            return path, self.names.enum_member(t.name, self.schema.enum(t.name).members[0])
        return path, ("false" if t.name == "bool" else "0")


# C11 requires compilers to take string literals of 4095 characters; past
# that -Wpedantic warns, so a longer string is written as a list of chars.
MAX_STRING_LITERAL = 4095


def string_literal(s: str) -> str:
    """A C initializer for a char array holding `s` (UTF-8): a string literal
    in which no trigraph can form ('?' is written as an escape), or for a
    string past MAX_STRING_LITERAL bytes, a brace list of character constants."""
    data = s.encode("utf-8")
    if len(data) > MAX_STRING_LITERAL:
        return "{" + ", ".join(f"'{_char(b, quote=39)}'" for b in data) + "}"
    return '"' + "".join(_char(b, quote=34) for b in data) + '"'


def _char(b: int, quote: int) -> str:
    """One byte inside a C string literal or character constant."""
    if b in (quote, 92, 63):  # the quote, backslash, '?'
        return "\\" + chr(b)
    if 0x20 <= b < 0x7F:
        return chr(b)
    return f"\\{b:03o}"


def comment_text(text: str) -> str:
    """`text` made safe inside a C comment: printable ASCII, no '*/', no '?'
    (a trigraph such as ??/ could end a line early)."""
    return re.sub(r"[^A-Za-z0-9 ._+,:=@%-]", "_", text)


class Reflection:
    """The C initializers of the reflection data (strata_field_desc_t) that
    saves and JSON walk at run time."""

    def __init__(self, schema: model.Schema, names: Names):
        self.schema = schema
        self.names = names

    @staticmethod
    def formers(names: Tuple[str, ...]) -> str:
        """A NULL-terminated list of former names (a compound literal, static
        at file scope), or NULL when there are none."""
        if not names:
            return "NULL"
        return "(const char *const[]){" + ", ".join(f'"{x}"' for x in names) + ", NULL}"

    def field(self, f: model.Field, owner_ctype: str) -> List[Tuple[str, str]]:
        """f's strata_field_desc_t, f a member of `owner_ctype`, as (member, value) pairs."""
        t = f.type
        element = t.element if t.kind == "array" else t
        if element.kind == "string":
            kind, size = "STRATA_KIND_STRING", f"{element.length}u"
        elif element.kind == "scalar":
            kind, size = f"STRATA_KIND_{element.name.upper()}", f"sizeof({self.names.ctype(element)})"
        else:
            kind = {"entity": "STRATA_KIND_ENTITY", "enum": "STRATA_KIND_ENUM", "struct": "STRATA_KIND_STRUCT"}[
                element.kind]
            size = f"sizeof({self.names.ctype(element)})"
        type_ref = "NULL"
        if element.kind == "enum":
            type_ref = f"&{self.names.enum(element.name).type_}"
        elif element.kind == "struct":
            type_ref = f"&{self.names.type_desc(element.name)}"
        old = self.formers(f.renamed_from)
        count = f"{t.length}u" if t.kind == "array" else "1u"
        array = "true" if t.kind == "array" else "false"
        return [("name", f'"{f.name}"'), ("renamed_from", old), ("type", type_ref),
                ("offset", f"offsetof({owner_ctype}, {f.name})"), ("size", size), ("count", count), ("kind", kind),
                ("array", array)]

    def used(self, type_name: str) -> bool:
        """True if a component or resource contains the type (directly or
        through other types): only those get reflection data."""
        return type_name in self.schema.saved_types

    def resource(self, r: model.Resource, block_ctype: str) -> List[Tuple[str, str]]:
        """The resource block's field for resource r (a struct of r's type), as (member, value) pairs."""
        return [("name", f'"{r.name}"'), ("renamed_from", self.formers(r.renamed_from)),
                ("type", f"&{self.names.type_desc(r.name)}"),
                ("offset", f"offsetof({block_ctype}, {self.names.member(r.name)})"),
                ("size", f"sizeof({self.names.type(r.name)})"), ("count", "1u"), ("kind", "STRATA_KIND_STRUCT"),
                ("array", "false")]

    def loop_fields(self) -> List[Tuple[str, List[Tuple[str, str]]]]:
        """The clock of the loop as the save sees it: (member of the clock,
        its fields as (member, value) pairs): a phase's accumulator (u64) by
        fixed phase, a system's counter (u64) by counted system."""
        clock = "sizeof(strata_phase_clock_t)"
        parts = []
        if self.schema.fixed:
            parts.append(("clocks", [self._u64(f.name, f"{i}u * {clock}") for i, f in enumerate(self.schema.fixed)]))
        if self.schema.counted_systems:
            parts.append(("counters", [self._u64(y.name, f"{i}u * sizeof(uint64_t)")
                                       for i, y in enumerate(self.schema.counted_systems)]))
        return parts

    @staticmethod
    def _u64(name: str, offset: str) -> List[Tuple[str, str]]:
        return [("name", f'"{name}"'), ("renamed_from", "NULL"), ("type", "NULL"), ("offset", offset),
                ("size", "sizeof(uint64_t)"), ("count", "1u"), ("kind", "STRATA_KIND_U64"), ("array", "false")]


# The resource a save holds the loop's clock in: not a C identifier, so no
# schema name is ever it.
LOOP_RESOURCE = "(loop)"
# Its two members, as the save names them.
LOOP_PARTS = {"clocks": "phases", "counters": "systems"}


def live_locations(schema: model.Schema) -> List[Tuple[str, str, str, int, int]]:
    """Where each element is declared, as a live module's entry lists them
    (name as a load report spells it, the struct type a field goes on in,
    the place, line, column): components and relations with their fields,
    resources with theirs, types with theirs, the world."""
    def struct_of(t: model.TypeRef) -> str:
        element = t.element if t.kind == "array" else t
        return element.name if element.kind == "struct" else ""

    rows = []
    def add(name: str, place: str, loc, fields=()) -> None:
        rows.append((name, "", place, loc.line, loc.col))
        rows.extend((f"{name}.{f.name}", struct_of(f.type), place, f.loc.line, f.loc.col) for f in fields)

    for c in schema.components:
        add(c.name, "STRATA_LIVE_COMPONENT", c.loc, c.fields)
    for r in schema.resources:
        add(f"resource.{r.name}", "STRATA_LIVE_RESOURCE", r.loc, r.fields)
    for t in schema.structs:
        add(t.name, "STRATA_LIVE_TYPE", t.loc, t.fields)
    for e in schema.enums:
        add(e.name, "STRATA_LIVE_TYPE", e.loc)
    add(schema.world, "STRATA_LIVE_WORLD", schema.world_loc or model.Loc(schema.path, 1, 1))
    return rows


def mask_words(schema: model.Schema, component_names) -> List[str]:
    """The strata_mask_t words (hex literals) of a set of component names, up
    to the last nonzero one: the words an initializer leaves out are zero, so
    an empty set is no words (the member is left out). A 1,000-system world
    has a query a system, each with five masks: written whole, that table
    alone was most of its .c (and of clang-format's time on it)."""
    words = [0] * MASK_WORDS
    for name in component_names:
        i = schema.component(name).index
        words[i // 64] |= 1 << (i % 64)
    while words and not words[-1]:
        words.pop()
    return [f"UINT64_C(0x{w:x})" for w in words]


class QueryEntry:
    """One runtime query, by id: a free query, or a system's (then `system` is set)."""

    def __init__(self, name: str, terms: model.Terms, system=None):
        self.name = name
        self.terms = terms
        self.system = system


def query_table(schema: model.Schema) -> List[QueryEntry]:
    """The runtime's queries by id: free queries, then systems that have terms."""
    table = [QueryEntry(q.name, q.terms) for q in schema.queries]
    table += [QueryEntry(y.name, y.terms, y) for y in schema.systems if y.query_index is not None]
    return table


def aspect_ids(schema: model.Schema) -> Dict[str, int]:
    """The column id of each system aspect: after the components, in query id order."""
    with_aspect = [y.name for y in schema.systems if y.query_index is not None and y.aspect]
    return {name: len(schema.components) + k for k, name in enumerate(with_aspect)}


class ScheduleRow:
    """One system as the schedule listing shows it (texts joined here, not in the template)."""

    def __init__(self, y: model.System, sent_by_game: Set[str]):
        self.system = y
        self.reads = ", ".join(list(y.terms.read) + [f"{c}?" for c in y.terms.optional] +
                               [f"res {r}" for r in y.resources_read] +
                               [f"res {r} (run_if)" for r in y.condition_resources
                                if r not in y.resources_read + y.resources_write]) or "-"
        self.writes = ", ".join(list(y.terms.write) + [f"res {r}" for r in y.resources_write]) or "-"
        self.order = ", ".join([f"after {a}" for a in y.after] + [f"before {b}" for b in y.before])
        self.filter = ", ".join([f"with {c}" for c in y.terms.with_] + [f"without {c}" for c in y.terms.without])
        self.changed = ", ".join(y.terms.changed)
        tracks = [f"aspect {{ {', '.join(f.name for f in y.aspect)} }}"] if y.aspect else []
        tracks += [h for h in ("on_add", "on_remove") if getattr(y, h)]
        self.tracks = ", ".join(tracks)
        self.emits = ", ".join(y.emit)
        marks = {e: " (late)" for e in y.receive_late}
        self.receives = ", ".join(e + marks.get(e, "") + (" (sent by the game)" if e in sent_by_game else "")
                                  for e in y.receives)
        self.gate = gate_text(y)
        self.when = when(y)


def gate_text(y: model.System) -> str:
    """What holds a system back, as the schedule files say it: 'in Mode
    playing|paused, if Settings.ai, every 0.5 s' ('' for none)."""
    parts = [f"in {t.machine} {'|'.join(t.states)}" for t in y.in_state]
    parts += [f"if {'' if c.expect else 'not '}{c.resource}.{c.field}" for c in y.run_if]
    if y.interval:
        parts.append(f"every {numbers.shortest(numbers.FORMATS['f64'], y.interval / 1e9)} s")
    if y.every:
        parts.append(f"every {y.every} runs")
    return ", ".join(parts)


def phase_text(schema: model.Schema, phase: str) -> str:
    """A phase as the schedule files name it: 'physics (fixed: 60 runs a second, at most 15 a step)'."""
    fixed = next((f for f in schema.fixed if f.name == phase), None)
    if fixed is None:
        return phase
    return f"{phase} (fixed: {fixed.rate} runs a second, at most {fixed.max_runs} a step)"


def when(y: model.System) -> str:
    """Where a system runs, as comments and listings say it: 'phase update',
    'on enter Mode.title, on exit Mode.playing'."""
    if not y.transition:
        return f"phase {y.phase}"
    parts = [f"on {verb} {t.machine}.{'|'.join(t.states)}" for verb, tests in (("enter", y.on_enter),
                                                                              ("exit", y.on_exit)) for t in tests]
    return ", ".join(parts)


class StepRun:
    """A run of a table of the step: a phase's batches, or a batch's systems
    (`alone`: the C of its one system when it runs alone, else STRATA_NO_SYSTEM)."""

    def __init__(self, name: str, first: int, count: int, alone: str = "STRATA_NO_SYSTEM"):
        self.name = name
        self.first = first
        self.count = count
        self.alone = alone


class StepTables:
    """The schedule as the runtime's step walks it (strata_schedule_t): the
    batches in step order, each a run of the systems listed batch after
    batch (and of their items); the phases in step order, each a run of
    the batches (a phase with no system has none); the gates and their
    tests, the state machines and the systems their transitions run."""

    def __init__(self, schema: model.Schema, threaded: model.Schedule, names: Names):
        self.schema = schema
        self.names = names
        self.batches: List[StepRun] = []
        at = 0
        per_phase: Dict[str, int] = {}
        for b in threaded.batches:
            alone = names.system_id(b.systems[0].name) if b.alone else "STRATA_NO_SYSTEM"
            self.batches.append(StepRun(b.phase, at, len(b.systems), alone))
            at += len(b.systems)
            per_phase[b.phase] = per_phase.get(b.phase, 0) + 1
        self.phases: List[StepRun] = []
        at = 0
        for phase in schema.phases:
            self.phases.append(StepRun(phase, at, per_phase.get(phase, 0)))
            at += per_phase.get(phase, 0)
        # The events' clock of a fixed phase's systems: its first system's place (all its runs share it).
        self.moment = {}
        for b in threaded.batches:
            if schema.rate(b.phase):
                self.moment.setdefault(b.phase, names.system_id(b.systems[0].name))
        self.gated = [y for y in schema.systems if y.gated or (y.transition and y.run_if)]
        self.gate_of = {y.name: i for i, y in enumerate(self.gated)}
        self.counter_of = {y.name: i for i, y in enumerate(schema.counted_systems)}
        self.clock_of = {f.name: i for i, f in enumerate(schema.fixed)}
        self.tests: List[Tuple[str, str, str, str]] = []  # kind, at, value, comment
        self.test_first: Dict[str, int] = {}
        for y in self.gated:
            self.test_first[y.name] = len(self.tests)
            for t in y.in_state:
                self.tests.append(("STRATA_TEST_STATE", f"offsetof({names.resources_}, {names.member(t.machine)})",
                                   self.state_mask(t), f"{y.name}: {t.machine} in {', '.join(t.states)}"))
            for c in y.run_if:
                self.tests.append(("STRATA_TEST_CONDITION",
                                   f"offsetof({names.resources_}, {names.member(c.resource)}.{c.field})",
                                   "UINT64_C(1)" if c.expect else "UINT64_C(0)",
                                   f"{y.name}: {'' if c.expect else 'not '}{c.resource}.{c.field}"))

    def order(self, threaded: model.Schedule, names: Names):
        """The rows of the batches' system ids, batch after batch: (code, comment)."""
        return [(f"{names.system_id(y.name)},", f"batch {b.index} ({b.phase})") for b in threaded.batches
                for y in b.systems]

    def items(self, threaded: model.Schedule):
        """Each batch's strata_batch_item_t, batch after batch, as (member, value) pairs."""
        rows = []
        for b in threaded.batches:
            for y in b.systems:
                sn = self.names.system(y.name)
                pairs = [("system", sn.id), ("query", sn.query_id if y.query_index is not None else "STRATA_NO_QUERY"),
                         ("position", self.moment.get(y.phase, sn.id))]
                pairs += [(flag, "true") for flag, on in (("parallel", y.parallel), ("main_thread", y.main_thread))
                          if on]
                pairs.append(("writes", threaded_schedule.resource_bits(self.schema, y)))
                rows.append(pairs)
        return rows

    def phase(self, r: StepRun) -> List[Tuple[str, str]]:
        """A phase's strata_phase_desc_t as (member, value) pairs."""
        pairs = [("name", f'"{r.name}"'), ("first", f"{r.first}u"), ("count", f"{r.count}u")]
        fixed = next((f for f in self.schema.fixed if f.name == r.name), None)
        if fixed is not None:
            pairs += [("rate", f"{fixed.rate}u"), ("max_runs", f"{fixed.max_runs}u"),
                      ("clock", f"offsetof({self.names.resources_}, {self.names.loop_member}.clocks) + "
                                f"{self.clock_of[fixed.name]}u * sizeof(strata_phase_clock_t)"),
                      ("dt", f"1.0f / {fixed.rate}")]
            if fixed.name in self.moment:
                pairs.append(("moment", self.moment[fixed.name]))
        return pairs

    def gate(self, y: model.System) -> List[Tuple[str, str]]:
        """System y's strata_gate_desc_t as (member, value) pairs."""
        count = len(y.in_state) + len(y.run_if)
        pairs = [("first", f"{self.test_first[y.name]}u"), ("count", f"{count}u")]
        if y.counted:
            rate = self.schema.rate(y.phase)
            clock = "STRATA_GATE_TIME" if y.interval else "STRATA_GATE_RUNS"
            period = y.interval * (rate or 1) if y.interval else y.every
            pairs += [("clock", clock),
                      ("counter", f"offsetof({self.names.resources_}, {self.names.loop_member}.counters) + "
                                  f"{self.counter_of[y.name]}u * sizeof(uint64_t)"),
                      ("period", f"UINT64_C({period})")]
        return pairs

    def state_mask(self, t: model.StateTest) -> str:
        states = self.schema.machine(t.machine).states
        return f"UINT64_C({sum(1 << states.index(x) for x in t.states):#x})"

    def transitions(self):
        """The systems transitions run, in schedule order: (member, value) pairs each."""
        rows = []
        for y in self.schema.transition_systems:
            for enter, tests in ((False, y.on_exit), (True, y.on_enter)):
                for t in tests:
                    rows.append([("system", self.names.system_id(y.name)),
                                 ("machine", f"{self.schema.machine(t.machine).index}u"),
                                 ("states", self.state_mask(t)), ("enter", "true" if enter else "false")])
        return rows

    def flags(self, y: model.System) -> str:
        """The C expression of a system's strata_system_desc_t.flags ('' for none)."""
        return " | ".join(flag for flag, on in (("STRATA_SYSTEM_PARALLEL", y.parallel),
                                                ("STRATA_SYSTEM_MAIN_THREAD", y.main_thread),
                                                ("STRATA_SYSTEM_GATED", y.name in self.gate_of)) if on)


class SpawnTables:
    """An assemblage's arrays of component ids and values, as rows of
    (code, comment): one a line, in component order, then a spare."""

    def __init__(self, schema: model.Schema, names: Names):
        self.schema = schema
        self.names = names

    def ids(self, a: model.Assemblage):
        return [(f"{self.names.component_id(c)},", c) for c, _ in a.components] + [("0,", "a spare, never read")]

    def values(self, a: model.Assemblage):
        rows = [("NULL," if self.schema.component(c).is_tag else f"&{self.names.spawn_value(a.name, c)},", c)
                for c, _ in a.components]
        return rows + [("NULL,", "a spare, never read")]


def render(schema: model.Schema, live: bool = False) -> Dict[str, str]:
    """The generated files of one world: {file name: text}; with `live`,
    also the entry of a live module (docs/live.md)."""
    env = _environment()
    names = Names(schema)
    context = {
        "queries": query_table(schema),
        "aspect_ids": aspect_ids(schema),
        "schedule": [ScheduleRow(y, {e.name for e in schema.events if e.sent_by_game}) for y in schema.systems],
        "threaded": schema.schedule,
        "steps": StepTables(schema, schema.schedule, names),
        "spawns": SpawnTables(schema, names),
        # An event's first receiver, by name (systems come in schedule order); 0 when none receives it.
        "first_receiver": lambda event: next((names.system_id(y.name) for y in schema.systems
                                              if event in y.receives), "0u"),
        "resource_bits": lambda y: threaded_schedule.resource_bits(schema, y),
        "when": when,
        "phase_text": lambda phase: phase_text(schema, phase),
        "gate_text": gate_text,
        "s": schema,
        "n": names,
        "loop_resource": LOOP_RESOURCE,
        "loop_parts": LOOP_PARTS,
        "lit": Literals(schema, names),
        "reflect": Reflection(schema, names),
        "mask": lambda terms: mask_words(schema, terms),
        "version": __version__,
        "source": comment_text(os.path.basename(schema.path)),
        "runtime_version": _runtime_version_number(__version__),
        "string_literal": string_literal,
    }
    outputs = {
        names.header: env.get_template("world.h.j2").render(context),
        names.source: env.get_template("world.c.j2").render(context),
        names.schedule_text: env.get_template("schedule.txt.j2").render(context),
        names.schedule_dot: env.get_template("schedule.dot.j2").render(context),
    }
    if live:
        context["locations"] = live_locations(schema)
        outputs[names.live_source] = env.get_template("live.c.j2").render(context)
    return outputs


def _runtime_version_number(version: str) -> int:
    major, minor, patch = (int(x) for x in version.split("."))
    return major * 10000 + minor * 100 + patch
