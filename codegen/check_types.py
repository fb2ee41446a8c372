"""The checks of types and values: `types:` (structs and enums), fields in
their three forms, field types (`f32`, `Color`, `u8[4]`, `char[16]`) and
defaults, each resolved to a complete value of its type.

Every Field of the model carries its resolved default. A field whose type is
bad is reported once and left out, so nothing later reports it again.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence as SequenceType, Set, Tuple

from . import numbers
from .checks import (BUILTIN_TYPES, FLOAT, INTEGER, Entry, Section, Symbols, cut, cycle_path, cycles, is_empty_body,
                     is_empty_list, parse_integer, shown, stable_topological_order)
from .check_renames import Renames
from .errors import Reporter, did_you_mean
from .limits import MAX_ARRAY_LENGTH, MAX_FIELDS, MAX_TYPE_DEPTH, MAX_VALUE_BYTES
from .load import Mapping, Node, Scalar, Sequence
from .model import INTEGER_RANGES, SCALAR_SIZES, SCALARS, EnumType, Field, Loc, StructType, TypeRef, Value
from .spec import FIELD_POLICY, FOREIGN_TYPES, LONG_FIELD_KEYS, POLICIES, STRING_SPELLING

TYPE_SPELLING = re.compile(r"(?P<base>[A-Za-z_][A-Za-z0-9_]*)(?P<dims>(?:\s*\[[^\[\]]*\])*)")
_DIM = re.compile(r"\[([^\[\]]*)\]")
_ARRAY_SUFFIX = re.compile(r"(.*?)((?:\s*\[[^\[\]]*\])*)\s*", re.S)
_DIGITS = re.compile(r"[0-9]+")
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]+")


@dataclass(frozen=True)
class _FieldSpec:
    """A field as written, before its default is resolved."""
    name: str
    loc: Loc  # the field's key
    where: str  # how messages name it: "component 'A': field 'x'"
    type: Optional[TypeRef]  # None when the type is bad (already reported)
    default: Optional[Node]  # None when no default is given
    short: bool  # the default came from `TYPE = VALUE`
    renamed_from: Tuple[str, ...] = ()  # the long form's `renamed_from`, checked
    policy: str = FIELD_POLICY  # the long form's `on_target_destroy`, checked


class Types(Section):
    """Types, fields and values. Fills symbols.struct_names, enums,
    struct_fields and struct_layouts as it goes."""

    def __init__(self, report: Reporter, symbols: Symbols, renames: Renames) -> None:
        super().__init__(report, symbols)
        self.renames = renames

    def body_fields(self, entries: Iterable[Entry], owner: str, loc: Loc, element: str = "",
                    policies: bool = False) -> Tuple[Field, ...]:
        """The fields of a body's `name: TYPE` entries, checked against the
        limits of a body (fields, bytes). `element` names the type or
        component values may override (for symbols.broken_fields)."""
        specs = self.field_specs(entries, owner)
        fields = self.fields_from_specs(specs, element, policies)
        self.check_body(owner, loc, specs, fields)
        return fields

    def types(self, entries: Tuple[Entry, ...]) -> Tuple[Tuple[StructType, ...], Tuple[EnumType, ...]]:
        """The structs (in dependency order) and enums (in declaration order)."""
        struct_entries = []
        for key, value in entries:
            if isinstance(value, Mapping) and value.get("enum") is not None:
                self.symbols.enums[key.text] = self.enum_type(key, value)
            else:
                self.symbols.struct_names.add(key.text)
                struct_entries.append((key, value))
        specs: Dict[str, Tuple[Scalar, List[_FieldSpec]]] = {}
        for key, value in struct_entries:
            owner = f"type '{key.text}'"
            field_entries = self.field_entries(value, owner)
            if is_empty_body(value):
                self.error(key.loc, f"{owner}: a struct type needs at least one field",
                           "C has no empty structs; for a marker, use a tag component")
            specs[key.text] = (key, self.field_specs(field_entries, owner))
        names = list(specs)
        uses = {name: {used for spec in specs[name][1] for used in structs_in(spec.type)} for name in names}
        order, leftover = stable_topological_order(names, uses)
        for cycle in cycles(leftover, uses):
            self.error(specs[cycle[0]][0].loc, f"type '{cycle[0]}': contains itself: {cycle_path(cycle)}",
                       "a struct cannot contain itself, directly or through other types")
        structs = []
        depths: Dict[str, int] = {}
        for name in order:  # a struct follows those it uses: each depth is known when needed
            key, field_specs = specs[name]
            inner = [depth_of(spec.type, depths) for spec in field_specs if spec.type is not None]
            depths[name] = 1 + max(inner, default=0)
            if depths[name] > MAX_TYPE_DEPTH:
                if all(depths.get(used, 0) <= MAX_TYPE_DEPTH for used in uses[name]):  # the first past it only
                    self.error(key.loc, f"type '{name}': nests {depths[name]} levels deep (at most {MAX_TYPE_DEPTH})",
                               "a struct or an array inside a struct is one level")
                self.symbols.struct_fields[name] = ()
                self.symbols.struct_layouts[name] = (0, 1)
                continue
            fields = self.fields_from_specs(field_specs, name)
            self.symbols.struct_fields[name] = fields
            self.symbols.struct_layouts[name] = self.check_body(f"type '{name}'", key.loc, field_specs, fields)
            structs.append(StructType(name, fields, key.loc))
        return tuple(structs), tuple(self.symbols.enums.values())

    def enum_type(self, key: Scalar, value: Mapping) -> EnumType:
        owner = f"type '{key.text}'"
        for other, _ in value.items:
            if other.text != "enum":
                self.error(other.loc, f"{owner}: unknown key '{other.text}'", "an enum has only 'enum: [...]'")
        node = value.get("enum")
        items = self.items(node, f"{owner}: 'enum'")
        if is_empty_list(node):
            self.error(node.loc, f"{owner}: an enum needs at least one member")
        members = self.distinct_names(items, f"{owner}: member name", f"{owner}: duplicate member")
        return EnumType(key.text, tuple(members), key.loc)

    def field_entries(self, node: Node, owner: str) -> Tuple[Entry, ...]:
        """The `field: TYPE` entries of a struct, component or resource body."""
        body = self.mapping_or_empty(node, owner, "of fields, e.g. { x: f32, y: f32 }")
        return body.items

    def field_specs(self, entries: Iterable[Entry], owner: str) -> List[_FieldSpec]:
        specs = []
        for key, value in entries:
            self.name(key, f"{owner}: field name")
            specs.append(self.field_spec(key, value, f"{owner}: field '{key.text}'"))
        return specs

    def field_spec(self, key: Scalar, value: Node, where: str) -> _FieldSpec:
        """Read one field in any of its three forms."""
        if isinstance(value, Mapping):
            return self.long_field(key, value, where)
        if isinstance(value, Scalar) and not value.is_null:
            return self.short_field(key, value, where)
        loc = key.loc if isinstance(value, Scalar) else value.loc
        self.error(loc, f"{where}: expected a type", "e.g. 'f32', 'f32 = 1' or {type: f32, default: 1}")
        return _FieldSpec(key.text, key.loc, where, None, None, False)

    def short_field(self, key: Scalar, value: Scalar, where: str) -> _FieldSpec:
        """`name: TYPE` or `name: "TYPE = DEFAULT"`."""
        type_text, equals, default_text = value.text.partition("=")
        type_ref = self.parse_type(type_text.strip(), value.loc, where)
        default = None
        if equals:
            default = _short_default(default_text.strip(), value.loc)
            if default is None:
                self.error(value.loc, f"{where}: missing default after '='")
        return _FieldSpec(key.text, key.loc, where, type_ref, default, True)

    def long_field(self, key: Scalar, value: Mapping, where: str) -> _FieldSpec:
        """`name: {type: TYPE, default: VALUE}`."""
        keys = self.known_keys(value, LONG_FIELD_KEYS, where)
        type_ref = None
        if "type" not in keys:
            self.error(value.loc, f"{where}: missing 'type'", "the long form is {type: T, default: V}")
        else:
            node = keys["type"][1]
            if isinstance(node, Scalar) and not node.is_null:
                type_ref = self.parse_type(node.text.strip(), node.loc, where)
            else:
                self.error(node.loc, f"{where}: 'type' must be a type name", "e.g. f32, Color or char[16]")
        default = keys["default"][1] if "default" in keys else None
        renamed_from = self.renames.renamed_from(keys.get("renamed_from"), where)
        policy = FIELD_POLICY
        if "on_target_destroy" in keys:
            policy = self.one_of(keys["on_target_destroy"], POLICIES, where, FIELD_POLICY)
            if type_ref is not None and type_ref.kind != "entity":
                self.error(keys["on_target_destroy"][0].loc,
                           f"{where}: 'on_target_destroy' needs an entity field, not {type_name(type_ref)}",
                           "only a component's 'entity' field names a target")
        return _FieldSpec(key.text, key.loc, where, type_ref, default, False, renamed_from, policy)

    def fields_from_specs(self, specs: Iterable[_FieldSpec], element: str = "",
                          policies: bool = False) -> Tuple[Field, ...]:
        """Resolve the defaults; fields whose type is bad (reported once
        already) are left out, and listed in symbols.broken_fields[element]
        so that no value overriding them is reported again. Only a
        component's fields (`policies`) may have `on_target_destroy`."""
        specs = list(specs)
        broken = {spec.name for spec in specs if spec.type is None}
        if broken:
            self.symbols.broken_fields.setdefault(element, set()).update(broken)
        for spec in specs:
            if spec.policy != FIELD_POLICY and not policies:
                self.error(spec.loc, f"{spec.where}: 'on_target_destroy' is for a component's entity fields",
                           "a link elsewhere is not followed when its target dies")
        return tuple(f for f in (self.field(spec) for spec in specs) if f is not None)

    def check_body(self, owner: str, loc: Loc, specs: SequenceType[_FieldSpec],
                   fields: Tuple[Field, ...]) -> Tuple[int, int]:
        """The limits of a struct body (fields, bytes); returns its C (size, alignment)."""
        if len(specs) > MAX_FIELDS:
            self.error(specs[MAX_FIELDS].loc, f"{owner}: too many fields: at most {MAX_FIELDS}")
        size, align = struct_layout(fields, self.symbols.struct_layouts)
        if size > MAX_VALUE_BYTES:
            self.error(loc, f"{owner}: {size} bytes is too large", f"at most {MAX_VALUE_BYTES}")
        return size, align

    def field(self, spec: _FieldSpec) -> Optional[Field]:
        if spec.type is None:
            return None
        if spec.default is None:
            value = self.zero(spec.type)
        elif spec.short and spec.type.kind in ("array", "struct"):
            example = "[1, 2]" if spec.type.kind == "array" else "{x: 1}"
            self.error(spec.default.loc, f"{spec.where}: {type_name(spec.type)} needs the long form for a default",
                       f"{{type: {type_name(spec.type)}, default: {example}}}")
            value = self.zero(spec.type)
        else:
            value = self.value(spec.type, spec.default, spec.where)
        return Field(spec.name, spec.type, value, spec.loc, explicit_default=spec.default is not None,
                     renamed_from=spec.renamed_from, on_target_destroy=spec.policy)

    def parse_type(self, text: str, loc: Loc, where: str) -> Optional[TypeRef]:
        """The TypeRef `text` spells (`f32`, `Color`, `u8[4]`, `char[16]`), or
        None after reporting why it is not one."""
        foreign = self.foreign_type(text)
        if foreign:
            self.error(loc, f"{where}: unknown type '{text}'", foreign)
            return None
        match = TYPE_SPELLING.fullmatch(text)
        if not match:
            self.error(loc, f"{where}: invalid type '{text}'", "e.g. f32, Color, u8[4] or char[16]")
            return None
        base, dims = match["base"], _DIM.findall(match["dims"])
        if len(dims) > 1:
            what = "arrays of strings are" if base == "char" else "nested arrays are"
            self.error(loc, f"{where}: {what} not supported: '{text}'", "wrap the inner one in a struct type")
            return None
        if base == "char":
            return self.string_type(dims, loc, where)
        element = self.named_type(base, loc, where)
        if element is None or not dims:
            return element
        length = self.array_length(dims[0], loc, where)
        return TypeRef("array", element=element, length=length) if length else None

    def foreign_type(self, text: str) -> Optional[str]:
        """The hint for a type spelled as C (or another language) spells it,
        `int`, `unsigned int`, `char *`, `size_t[4]`, unless the schema
        declares a type of that name; else None."""
        base, dims = _ARRAY_SUFFIX.fullmatch(text).groups()
        base = " ".join(base.replace("*", " * ").split())
        spelling = FOREIGN_TYPES.get(base)
        if spelling is None or base in self.symbols.struct_names or base in self.symbols.enums:
            return None
        if spelling == STRING_SPELLING:
            return f"a string is {spelling}" + ("; for an array of them, a struct type holding one" if dims else "")
        dims = "".join(f"[{d.strip()}]" for d in _DIM.findall(dims))
        return f"'{base}{dims}' is '{spelling}{dims}' in a schema"

    def string_type(self, dims: List[str], loc: Loc, where: str) -> Optional[TypeRef]:
        if not dims:
            self.error(loc, f"{where}: 'char' needs a length", "a string is char[N], e.g. char[16]")
            return None
        length = self.array_length(dims[0], loc, where)
        if length is None:
            return None
        if length < 2:
            self.error(loc, f"{where}: char[{length}] has no room for text",
                       "char[N] holds N-1 bytes and a NUL; use N >= 2")
            return None
        return TypeRef("string", length=length)

    def named_type(self, name: str, loc: Loc, where: str) -> Optional[TypeRef]:
        if name in SCALARS:
            return TypeRef("scalar", name)
        if name == "entity":
            return TypeRef("entity")
        if name in self.symbols.struct_names:
            return TypeRef("struct", name)
        if name in self.symbols.enums:
            return TypeRef("enum", name)
        hint = self.kind_hint(name)
        if hint:
            hint += "; a field's type must be built in or declared under 'types:'"
        else:
            hint = did_you_mean(name, list(BUILTIN_TYPES) + sorted(self.symbols.struct_names | set(self.symbols.enums)))
        self.error(loc, f"{where}: unknown type '{name}'", hint)
        return None

    def array_length(self, text: str, loc: Loc, where: str) -> Optional[int]:
        text = text.strip()
        if _DIGITS.fullmatch(text) and len(text.lstrip("0")) > len(str(MAX_ARRAY_LENGTH)):
            self.error(loc, f"{where}: array length {cut(text)} is too large", f"at most {MAX_ARRAY_LENGTH}")
            return None
        if not _DIGITS.fullmatch(text) or int(text.lstrip("0") or "0") < 1:
            self.error(loc, f"{where}: array length must be a positive integer, got '{cut(text)}'")
            return None
        value = int(text.lstrip("0"))  # at most six digits now
        if value > MAX_ARRAY_LENGTH:
            self.error(loc, f"{where}: array length {value} is too large", f"at most {MAX_ARRAY_LENGTH}")
            return None
        return value

    def zero(self, t: TypeRef) -> Value:
        """The default of a field of type `t` that gives none."""
        if t.kind == "scalar" and t.name == "bool":
            return False
        if t.kind == "scalar":
            return 0 if t.name in INTEGER_RANGES else 0.0
        if t.kind == "enum":
            members = self.symbols.enums[t.name].members
            return members[0] if members else ""
        if t.kind == "struct":
            return tuple((f.name, f.default) for f in self.symbols.struct_fields.get(t.name, ()))
        if t.kind == "array":
            return ()  # every element at the element's zero
        if t.kind == "string":
            return ""
        return 0  # entity: the null entity

    def value(self, t: TypeRef, node: Node, where: str, base: Optional[Value] = None) -> Value:
        """The default `node` gives a field of type `t`; reports a bad one
        and returns the type's zero instead. A struct's mapping overrides
        fields of `base` (by default the struct's own defaults)."""
        if isinstance(node, Scalar) and node.is_null:
            self.error(node.loc, f"{where}: missing default value")
            return self.zero(t)
        if t.kind == "entity":
            self.error(node.loc, f"{where}: an entity field cannot have a default", "it is always the null entity")
            return 0
        if t.kind == "struct":
            return self.struct_value(t, node, where, self.zero(t) if base is None else base)
        if t.kind == "array":
            return self.array_value(t, node, where)
        if not isinstance(node, Scalar):
            self.error(node.loc, f"{where}: expected a single value for {type_name(t)}")
            return self.zero(t)
        if t.kind == "enum":
            return self.enum_value(t, node, where)
        if t.kind == "string":
            return self.string_value(t, node, where)
        if t.name == "bool":
            return self.bool_value(node, where)
        if t.name in INTEGER_RANGES:
            return self.integer_value(t.name, node, where)
        return self.float_value(t.name, node, where)

    def bool_value(self, node: Scalar, where: str) -> bool:
        if not node.quoted and node.text in ("true", "false"):
            return node.text == "true"
        self.error(node.loc, f"{where}: invalid default for bool: {shown(node)}", "expected true or false")
        return False

    def integer_value(self, type_name: str, node: Scalar, where: str) -> int:
        value = None if node.quoted else parse_integer(node.text)
        if value is None and not node.quoted and INTEGER.fullmatch(node.text):
            low, high = INTEGER_RANGES[type_name]
            self.error(node.loc, f"{where}: default {cut(node.text)} is out of range for {type_name}", f"{low}..{high}")
            return 0
        if value is None:
            hint = None
            if not node.quoted and _LEADING_ZERO.fullmatch(node.text):
                hint = "C would read a leading 0 as octal; write it without"
            self.error(node.loc, f"{where}: invalid default for {type_name}: {shown(node)} is not an integer", hint)
            return 0
        low, high = INTEGER_RANGES[type_name]
        if not low <= value <= high:
            self.error(node.loc, f"{where}: default {node.text} is out of range for {type_name}", f"{low}..{high}")
            return 0
        return value

    def float_value(self, type_name: str, node: Scalar, where: str) -> float:
        if node.quoted or not FLOAT.fullmatch(node.text):
            self.error(node.loc, f"{where}: invalid default for {type_name}: {shown(node)} is not a number")
            return 0.0
        value, why, hint = numbers.float_value(type_name, node.text)
        if value is None:
            self.error(node.loc, f"{where}: default {cut(node.text)} {why}", hint)
            return 0.0
        return value

    def enum_value(self, t: TypeRef, node: Scalar, where: str) -> str:
        members = self.symbols.enums[t.name].members
        if node.text in members:
            return node.text
        hint = did_you_mean(node.text, members) or f"one of: {', '.join(members)}"
        self.error(node.loc, f"{where}: unknown member '{node.text}' of enum '{t.name}'", hint)
        return self.zero(t)

    def string_value(self, t: TypeRef, node: Scalar, where: str) -> str:
        try:
            size = len(node.text.encode("utf-8"))
        except UnicodeEncodeError as e:  # a lone surrogate: YAML's "\udc80" is text no UTF-8 holds
            self.error(node.loc, f"{where}: a string default cannot hold a lone surrogate "
                                 f"('{node.text[e.start:e.end]}')", "UTF-8 has no bytes for it")
            return ""
        if size > t.length - 1:
            self.error(node.loc, f"{where}: default is {size} bytes long; char[{t.length}] holds at most "
                                 f"{t.length - 1}")
            return ""
        if "\0" in node.text:
            self.error(node.loc, f"{where}: a string default cannot contain a NUL character")
            return ""
        return node.text

    def array_value(self, t: TypeRef, node: Node, where: str) -> Tuple[Value, ...]:
        """A list of at most `length` values; the rest take the element's
        zero (the model keeps only the values given)."""
        if not isinstance(node, Sequence):
            self.error(node.loc, f"{where}: expected a list of at most {t.length} values for {type_name(t)}")
            return self.zero(t)
        if len(node.items) > t.length:
            self.error(node.items[t.length].loc,
                       f"{where}: {len(node.items)} values given; {type_name(t)} holds {t.length}")
        return tuple(self.value(t.element, item, f"{where}: element {i}")
                     for i, item in enumerate(node.items[:t.length]))

    def struct_value(self, t: TypeRef, node: Node, where: str,
                     base: Tuple[Tuple[str, Value], ...]) -> Tuple[Tuple[str, Value], ...]:
        """A mapping overriding some fields of `base`, a value of the struct;
        a struct-typed field is overridden field by field in turn."""
        fields = self.symbols.struct_fields.get(t.name)
        if fields is None:  # the struct is part of a cycle, reported already
            return ()
        if not isinstance(node, Mapping):
            self.error(node.loc, f"{where}: expected a mapping of {t.name}'s fields to override",
                       f"e.g. {{{fields[0].name}: ...}}" if fields else None)
            return self.zero(t)
        by_name = {f.name: f for f in fields}
        values = dict(base)
        for key, value in node.items:
            f = by_name.get(key.text)
            if f is None and key.text in self.symbols.broken_fields.get(t.name, ()):
                continue  # its type is wrong, and said so
            if f is None:
                self.error(key.loc, f"{where}: type '{t.name}' has no field '{key.text}'",
                           did_you_mean(key.text, by_name))
                continue
            values[f.name] = self.value(f.type, value, f"{where}: field '{f.name}'", values[f.name])
        return tuple((f.name, values[f.name]) for f in fields)


# --- helpers without state ------------------------------------------------------


def _short_default(text: str, loc: Loc) -> Optional[Scalar]:
    """The default of `TYPE = DEFAULT` as a scalar node (None if empty).
    Quotes around it make it a string: `char[8] = " hi"`."""
    if not text:
        return None
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return Scalar(text[1:-1], "str", True, loc)
    return Scalar(text, "str", False, loc)


def type_name(t: TypeRef) -> str:
    """The type as the schema spells it."""
    if t.kind == "array":
        return f"{type_name(t.element)}[{t.length}]"
    if t.kind == "string":
        return f"char[{t.length}]"
    if t.kind == "entity":
        return "entity"
    return t.name


def structs_in(t: Optional[TypeRef]) -> Set[str]:
    """The struct types a field of type `t` contains by value."""
    if t is None:
        return set()
    if t.kind == "struct":
        return {t.name}
    if t.kind == "array":
        return structs_in(t.element)
    return set()


def depth_of(t: TypeRef, structs: Dict[str, int]) -> int:
    """How deep the braces of a value of type t nest (a scalar: 0)."""
    if t.kind == "array":
        return 1 + depth_of(t.element, structs)  # arrays do not nest: one call deeper at most
    if t.kind == "struct":
        return structs.get(t.name, 0)
    return 0


def layout_of(t: TypeRef, structs: Dict[str, Tuple[int, int]]) -> Tuple[int, int]:
    """The C (size, alignment) of a field of type t, as the generated code declares it."""
    if t.kind == "scalar":
        return SCALAR_SIZES[t.name], SCALAR_SIZES[t.name]
    if t.kind == "entity":
        return 8, 8
    if t.kind == "enum":
        return 4, 4
    if t.kind == "string":
        return t.length, 1
    if t.kind == "array":
        size, align = layout_of(t.element, structs)
        return size * t.length, align
    return structs.get(t.name, (0, 1))  # a struct (one in error counts as empty)


def struct_layout(fields: Iterable[Field], structs: Dict[str, Tuple[int, int]]) -> Tuple[int, int]:
    """The C (size, alignment) of a struct of these fields: each at the next
    multiple of its alignment, the whole rounded up to the largest."""
    offset, largest = 0, 1
    for f in fields:
        size, align = layout_of(f.type, structs)
        offset = (offset + align - 1) // align * align + size
        largest = max(largest, align)
    return (offset + largest - 1) // largest * largest, largest
