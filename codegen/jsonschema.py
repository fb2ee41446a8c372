"""The JSON Schema of Strata's schema language, for editors.

`python3 -m codegen --json-schema` prints `text()`, committed as
`schema/strata.schema.json`. yaml-language-server (VS Code's YAML extension,
Neovim's yamlls, Helix, Zed, Emacs) reads it to complete keys and field
types, show a key's description on hover and flag mistakes as you type.

It is JSON Schema draft-07: the draft yaml-language-server has always
supported in full (and the newest one Debian's python3-jsonschema checks).
It is built from spec.py's keys and the validator's own names and limits,
so the editor and the generator agree on every key. What a JSON Schema can
say, it says: unknown keys, names that are not C identifiers (or are C
keywords), missing `world` or `version`, lists where lists belong, field
types, and the type of a default. What needs the whole file (does a
component named in `read:` exist? is a default in range? does a struct
contain itself?) stays with the generator, whose diagnostics an editor can
show too (`--diagnostics=json`).

Field types: the built-in ones (bool, i8..u64, f32, f64, entity, char[N],
T[N]) are spelled out, each with its default's syntax. A name declared
under `types:` cannot be known by a schema for every file, so any C
identifier that is not a built-in type or a C keyword is accepted as a
type (with any default); the generator checks that it is declared.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Tuple

from . import spec
# The validator's own names, number syntax and limits, so the two cannot disagree.
from .checks import BUILTIN_TYPES, C_KEYWORDS, FLOAT, INTEGER, STDBOOL_NAMES
from .limits import MAX_EVERY, MAX_INTERVAL, MAX_NAME_LENGTH, MAX_RATE, MAX_RUNS, MAX_VERSION, MAX_STATES
from .model import INTEGER_RANGES, SCALARS
from .spec import Item, Key

DRAFT = "http://json-schema.org/draft-07/schema#"

Schema = Dict[str, Any]


def text() -> str:
    """The JSON Schema as the committed file holds it."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def json_schema() -> Schema:
    """The JSON Schema of a Strata schema file."""
    top = {"$schema": DRAFT, "title": "Strata schema"}
    top.update(_object(spec.TOP_LEVEL, nullable=False, item=spec.ITEMS["schema"]))
    top["definitions"] = {"field": _field()}
    return top


# --- names -------------------------------------------------------------------------

RESERVED_WORDS = tuple(sorted(C_KEYWORDS | STDBOOL_NAMES))
_IDENT_TAIL = f"[A-Za-z0-9_]{{0,{MAX_NAME_LENGTH - 1}}}"


def name_pattern(exclude: Iterable[str] = ()) -> str:
    """A C identifier the validator accepts as a name: at most
    MAX_NAME_LENGTH characters, not a C keyword, nor one of `exclude`."""
    words = "|".join(sorted(set(RESERVED_WORDS) | set(exclude)))
    return f"^(?!(?:{words})$)[A-Za-z_]{_IDENT_TAIL}$"


NAME_MESSAGE = (f"not a name: a C identifier (letters, digits, '_'), not a C keyword, at most {MAX_NAME_LENGTH} "
                "characters")


def _name(description: str = "", example: Any = None) -> Schema:
    schema = {"type": "string", "pattern": name_pattern(), "patternErrorMessage": NAME_MESSAGE}
    return _described(schema, description, example) if description else schema


def _names(description: str, example: Any, min_items: int = 0) -> Schema:
    """A list of distinct names (an absent or empty value lists none)."""
    schema: Schema = {"type": ["array", "null"], "items": _name(), "uniqueItems": True}
    if min_items:
        schema["type"] = "array"
        schema["minItems"] = min_items
    return _described(schema, description, example)


# --- field types ---------------------------------------------------------------------

_INTEGERS = tuple(INTEGER_RANGES)
_FLOATS = tuple(t for t in SCALARS if t not in INTEGER_RANGES and t != "bool")
_DIM = r"\s*\[\s*0*[1-9][0-9]*\s*\]"
_STRING = r"char\s*\[\s*0*(?:[2-9]|[1-9][0-9]+)\s*\]"
_BUILTIN = "|".join(BUILTIN_TYPES)
# A name from `types:`: an identifier that is neither a built-in type nor a C keyword.
_DECLARED = f"(?!(?:{_BUILTIN}|{'|'.join(RESERVED_WORDS)})(?![A-Za-z0-9_]))[A-Za-z_][A-Za-z0-9_]*"
_ELEMENTS = f"(?:{'|'.join(SCALARS)}|entity|{_DECLARED})"  # what an array may hold


def _with_default(value: str) -> str:
    return fr"(?:\s*=\s*{value})?"


def _alternatives(*patterns: str) -> str:
    return "^\\s*(?:" + "|".join(patterns) + ")\\s*$"


def _one_of(names: Iterable[str]) -> str:
    return "(?:" + "|".join(names) + ")"


# A field's short form, `TYPE` or `TYPE = DEFAULT`, with the default's syntax
# for each built-in type (arrays and structs take a default in the long form only).
SHORT_FIELD = _alternatives(
    "bool" + _with_default("(?:true|false)"),
    _one_of(_INTEGERS) + _with_default(INTEGER.pattern),
    _one_of(_FLOATS) + _with_default(FLOAT.pattern),
    "entity",
    _STRING + _with_default(r"\S.*"),
    _ELEMENTS + _DIM,
    _DECLARED + _with_default(r"\S.*"))
# The long form's `type:`: the same types, without a default.
FIELD_TYPE = _alternatives(_ELEMENTS + f"(?:{_DIM})?", _STRING)
FIELD_MESSAGE = ("not a field type: expected bool, i8..i64, u8..u64, f32, f64, entity, char[N], T[N] or a name "
                 "from 'types:', then optionally '= DEFAULT' of that type")
TYPE_MESSAGE = ("not a field type: expected bool, i8..i64, u8..u64, f32, f64, entity, char[N], T[N] or a name "
                "from 'types:'")


def _type_completions() -> List[Schema]:
    """Completion items for a field's type: each built-in type, with what it is."""
    items = [{"label": name, "description": spec.SCALAR_DESCRIPTIONS[name], "body": name} for name in SCALARS]
    items.append({"label": "entity", "description": spec.ENTITY_DESCRIPTION, "body": "entity"})
    items.append({"label": "char[16]", "description": spec.STRING_DESCRIPTION, "body": "char[16]"})
    items.append({"label": "f32[4]", "description": spec.ARRAY_DESCRIPTION, "body": "f32[4]"})
    return items


def _default_rules() -> List[Schema]:
    """The long form's default, by the type it gives: a number for a number,
    true/false for bool, a string for char[N], a list for T[N], none for an entity."""
    def rule(type_pattern: str, default: Any) -> Schema:
        return {"if": {"properties": {"type": {"type": "string", "pattern": type_pattern}}, "required": ["type"]},
                "then": {"properties": {"default": default}}}
    return [
        rule(r"^\s*bool\s*$", {"type": "boolean"}),
        rule(r"^\s*" + _one_of(_INTEGERS) + r"\s*$", {"type": "integer"}),
        rule(r"^\s*" + _one_of(_FLOATS) + r"\s*$", {"type": "number"}),
        rule(r"^\s*" + _STRING + r"\s*$", {"type": "string"}),
        rule(r"^(?!\s*char\s*\[).*\]\s*$", {"type": "array"}),
        rule(r"^\s*entity\s*$", {"not": {}, "description": "an entity field has no default: it is always the "
                                                            "null entity"}),
    ]


def _field() -> Schema:
    """A field in any of its three forms: `TYPE`, `"TYPE = DEFAULT"` or
    `{type: TYPE, default: VALUE, renamed_from: NAME}` (keywords of one JSON
    type apply to that type only, so one schema holds both)."""
    long_form = {k.name: _key_schema(k) for k in spec.LONG_FIELD}
    long_form["type"].update({"pattern": FIELD_TYPE, "patternErrorMessage": TYPE_MESSAGE})
    item = spec.ITEMS["field"]
    return _described({
        "type": ["string", "object"],
        "pattern": SHORT_FIELD,
        "patternErrorMessage": FIELD_MESSAGE,
        "properties": long_form,
        "required": [k.name for k in spec.LONG_FIELD if k.required],
        "additionalProperties": False,
        "allOf": _default_rules(),
        "defaultSnippets": _type_completions(),
    }, item.description, item.example)


def _names_to(entry: Schema, exclude: Iterable[str] = ()) -> Schema:
    """A mapping from names to `entry`s. (Not patternProperties: editors
    complete the values of additionalProperties only.)"""
    return {"type": ["object", "null"],
            "propertyNames": {"pattern": name_pattern(exclude), "patternErrorMessage": NAME_MESSAGE},
            "additionalProperties": entry}


def _fields(item: Item, reserved: Tuple[Key, ...] = (), min_fields: int = 0) -> Schema:
    """A mapping of fields (a struct, component, resource or aspect body),
    with the reserved keys of that body (hooks, renamed_from)."""
    schema = _names_to({"$ref": "#/definitions/field"})
    if reserved:
        schema["properties"] = {k.name: _key_schema(k) for k in reserved}
    if min_fields:
        schema["type"] = "object"
        schema["minProperties"] = min_fields
    return _described(schema, item.description, item.example)


# --- sections ----------------------------------------------------------------------------

def _section(key: Key, entry: Schema, exclude: Iterable[str] = ()) -> Schema:
    """A top-level section: a mapping from names to entries."""
    return _described(_names_to(entry, exclude), key.description, key.example, key.default)


def _type_entry() -> Schema:
    item = spec.ITEMS["type"]
    enum = {"type": "object", "properties": {spec.ENUM_KEY.name: _key_schema(spec.ENUM_KEY)},
            "required": [spec.ENUM_KEY.name], "additionalProperties": False}
    enum["properties"][spec.ENUM_KEY.name].update({"type": "array", "minItems": 1})
    struct = _fields(item, min_fields=1)
    return _described({"if": {"type": "object", "required": [spec.ENUM_KEY.name]}, "then": enum, "else": struct},
                      item.description, item.example)


def _query_entry() -> Schema:
    schema = _object(spec.QUERY, nullable=False, item=spec.ITEMS["query"])
    schema["anyOf"] = [{"required": [term], "properties": {term: {"minItems": 1}}} for term in spec.REQUIRED]
    return schema


def _assemblage_entry() -> Schema:
    override = spec.ITEMS["override"]
    value = _described({}, "The field's value in this assemblage, checked against its type by the generator.", 20)
    schema = _names_to(_described(_names_to(value), override.description, override.example))
    schema["properties"] = {spec.EXTENDS_KEY.name: _key_schema(spec.EXTENDS_KEY)}
    return _described(schema, spec.ITEMS["assemblage"].description, spec.ITEMS["assemblage"].example)


def _key_schema(key: Key) -> Schema:
    """The schema of one key's value, from what spec.py says it holds."""
    kind = key.value
    if kind == "name":
        schema = _name(key.description, key.example)
    elif kind == "names":
        schema = _names(key.description, key.example)
    elif kind == "former_names":
        many = {"type": "array", "items": _name(), "uniqueItems": True, "minItems": 1}
        schema = _described({"anyOf": [_name(), many]}, key.description, key.example)
    elif kind == "phases":
        phase = spec.ITEMS["phase"]
        fixed = _object(spec.PHASE, nullable=False)
        schema = _described({"type": "array", "minItems": 1, "uniqueItems": True,
                             "items": _described({"anyOf": [_name(), fixed]}, phase.description, phase.example)},
                            key.description, key.example)
    elif kind == "rate":
        schema = _described({"type": "integer", "minimum": 1, "maximum": MAX_RATE}, key.description, key.example)
    elif kind == "count":
        top = MAX_RUNS if key.name == "max_runs" else MAX_EVERY
        schema = _described({"type": "integer", "minimum": 1, "maximum": top}, key.description, key.example)
    elif kind == "seconds":
        schema = _described({"type": "number", "exclusiveMinimum": 0, "maximum": MAX_INTERVAL}, key.description,
                            key.example)
    elif kind == "states":
        machine = spec.ITEMS["machine"]
        states = _names(machine.description, machine.example, min_items=1)
        states["maxItems"] = MAX_STATES
        schema = _section(key, states)
    elif kind == "state_map":
        one_or_more = {"anyOf": [_name(), {"type": "array", "items": _name(), "uniqueItems": True, "minItems": 1}]}
        schema = _described({"type": "object", "minProperties": 1, "propertyNames": {"pattern": name_pattern()},
                             "additionalProperties": one_or_more}, key.description, key.example)
    elif kind == "conditions":
        field = {"type": "string", "pattern": f"^(?:{spec.NOT}\\s+)?[A-Za-z_]{_IDENT_TAIL}$",
                 "patternErrorMessage": "a bool field of the resource, or 'not FIELD'"}
        one_or_more = {"anyOf": [field, {"type": "array", "items": field, "uniqueItems": True, "minItems": 1}]}
        schema = _described({"type": "object", "minProperties": 1, "propertyNames": {"pattern": name_pattern()},
                             "additionalProperties": one_or_more}, key.description, key.example)
    elif kind == "version":
        schema = _described({"type": "integer", "minimum": 1, "maximum": MAX_VERSION}, key.description, key.example)
    elif kind == "flag":
        schema = _described({"type": "boolean"}, key.description, key.example)
    elif kind == "fields":
        schema = _fields(Item(key.description, key.example), min_fields=1)
    elif kind == "field_type":
        schema = _described({"type": "string", "defaultSnippets": _type_completions()},
                            key.description, key.example)
    elif kind == "any":
        schema = _described({}, key.description, key.example)
    elif kind == "policy":
        schema = _described({"enum": list(spec.POLICIES)}, key.description, key.example)
    elif kind == "storage":
        schema = _described({"enum": list(spec.STORAGES)}, key.description, key.example)
    elif kind == "sender":
        schema = _described({"enum": list(spec.SENDERS)}, key.description, key.example)
    elif kind == "relations":
        schema = _section(key, _object(spec.RELATION, item=spec.ITEMS["relation"]))
    elif kind == "access":
        schema = _object(spec.RESOURCE_ACCESS, item=Item(key.description, key.example))
    elif kind == "types":
        schema = _section(key, _type_entry(), exclude=BUILTIN_TYPES)
    elif kind == "components":
        schema = _section(key, _fields(spec.ITEMS["component"], reserved=spec.HOOKS + (spec.STORAGE, spec.RENAMED)))
    elif kind == "resources":
        schema = _section(key, _fields(spec.ITEMS["resource"], reserved=(spec.RENAMED,), min_fields=1))
    elif kind == "events":
        schema = _section(key, _fields(spec.ITEMS["event"], reserved=(spec.SENT_BY,), min_fields=1))
    elif kind == "queries":
        schema = _section(key, _query_entry())
    elif kind == "systems":
        schema = _section(key, _object(spec.SYSTEM, item=spec.ITEMS["system"]))
    elif kind == "assemblages":
        schema = _section(key, _assemblage_entry())
    else:
        raise ValueError(f"key '{key.name}': no JSON Schema for a value of kind {kind!r}")
    if key.default is not None:
        schema["default"] = key.default
    return schema


def _object(keys: Tuple[Key, ...], nullable: bool = True, item: Optional[Item] = None) -> Schema:
    """A mapping with exactly these keys (any other is flagged)."""
    schema: Schema = {
        "type": ["object", "null"] if nullable else "object",
        "properties": {k.name: _key_schema(k) for k in keys},
        "additionalProperties": False,
    }
    required = [k.name for k in keys if k.required]
    if required:
        schema["required"] = required
    if item is not None:
        _described(schema, item.description, item.example)
    return schema


def _described(schema: Schema, description: str, example: Any = None, default: Any = None) -> Schema:
    """`schema` with its hover text (plain and Markdown) and an example."""
    schema["description"] = description
    schema["markdownDescription"] = description
    if example is not None:
        schema["examples"] = [example]
    if default is not None:
        schema["default"] = default
    return schema
