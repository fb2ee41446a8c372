"""The checks of the data a world holds: components (fields, hooks),
relations (each also a component holding its links), resources and events.
Each fills the symbols the queries, systems and assemblages after it name.
"""
from __future__ import annotations

from typing import List, Tuple

from .check_renames import Renames
from .check_types import Types
from .checks import Entry, Section, Symbols, is_empty_body, split_key
from .check_types import TYPE_SPELLING
from .errors import Reporter, did_you_mean
from .limits import MAX_COMPONENTS, MAX_RELATIONS, MAX_RESOURCES, MAX_SPARSE
from .load import Scalar
from .model import Component, Event, Field, Relation, Resource, TypeRef
from .spec import (DEFAULT_SENDER, GAME, HOOK_KEYS, POLICIES, RELATION_KEYS, RELATION_POLICY, SENDERS, SENT_BY_KEY,
                   STORAGE_KEY, STORAGES)

LINK_TARGET = "target"  # the field of an exclusive relation's component that holds the target


class Elements(Section):
    def __init__(self, report: Reporter, symbols: Symbols, types: Types, renames: Renames) -> None:
        super().__init__(report, symbols)
        self.types = types
        self.renames = renames

    def components(self, entries: Tuple[Entry, ...]) -> Tuple[Component, ...]:
        components = []
        for index, (key, value) in enumerate(entries):
            if index == MAX_COMPONENTS:
                self.error(key.loc, f"too many components: at most {MAX_COMPONENTS}", "STRATA_MAX_COMPONENTS")
            owner = f"component '{key.text}'"
            self.symbols.component_names.append(key.text)
            renamed_from, value = self.renames.split_renamed(value, owner)
            entries = self.types.field_entries(value, owner)
            hooks = {k.text: self.flag((k, v), f"{owner}: '{k.text}'") for k, v in entries if k.text in HOOK_KEYS}
            on_set_key = next((k for k, _ in entries if k.text == "on_set"), None)
            storage_entry = next(((k, v) for k, v in entries if k.text == STORAGE_KEY), None)
            storage = self.storage(storage_entry, owner) if storage_entry is not None else STORAGES[0]
            if storage == "sparse":
                if len(self.symbols.sparse_names) == MAX_SPARSE:
                    self.error(storage_entry[1].loc, f"{owner}: too many sparse components: at most {MAX_SPARSE}",
                               "STRATA_MAX_SPARSE; keep the others in tables")
                self.symbols.sparse_names.add(key.text)
            entries = tuple((k, v) for k, v in entries if k.text not in HOOK_KEYS and k.text != STORAGE_KEY)
            if not entries:
                self.symbols.tag_names.add(key.text)
            if on_set_key is not None and hooks["on_set"]:
                if not entries:
                    self.error(on_set_key.loc, f"{owner}: 'on_set' on a tag, which has no value to set",
                               "use on_add for a tag")
                self.symbols.on_set_components.append((key.text, on_set_key.loc))
            fields = self.types.body_fields(entries, owner, key.loc, key.text, policies=True)
            components.append(Component(key.text, index, fields, key.loc, on_add=hooks.get("on_add", False),
                                        on_remove=hooks.get("on_remove", False), on_set=hooks.get("on_set", False),
                                        renamed_from=renamed_from, storage=storage))
        return tuple(components)

    def storage(self, entry: Entry, owner: str) -> str:
        """A component's `storage` (reported, and taken as `table`, when it is not one of STORAGES)."""
        node = entry[1]
        if isinstance(node, Scalar) and not node.quoted and node.text in STORAGES:
            return node.text
        text = node.text if isinstance(node, Scalar) else ""
        hint = did_you_mean(text, STORAGES) if text else None
        if hint is None and TYPE_SPELLING.fullmatch(text.partition("=")[0].strip()):
            hint = "'storage' is the component's own key, not a field: name the field otherwise"
        self.error(node.loc, f"{owner}: 'storage' must be one of {', '.join(STORAGES)}", hint)
        return STORAGES[0]

    def relations(self, entries: Tuple[Entry, ...], first: int) -> Tuple[Tuple[Relation, ...], Tuple[Component, ...]]:
        """The relations, and the components holding their links (ids from
        `first`, the number of declared components)."""
        relations: List[Relation] = []
        links: List[Component] = []
        for key, value in entries:
            if not self.symbols.declared(key.text, key.loc):
                continue  # a bad or taken name: reported by declare_all
            owner = f"relation '{key.text}'"
            index = first + len(links)
            if index == MAX_COMPONENTS:
                self.error(key.loc, f"too many components and relations: at most {MAX_COMPONENTS}",
                           "STRATA_MAX_COMPONENTS")
            if len(relations) == MAX_RELATIONS:
                self.error(key.loc, f"too many relations: at most {MAX_RELATIONS}", "STRATA_MAX_RELATIONS")
            keys = self.known_keys(self.mapping_or_empty(value, owner, "e.g. { exclusive: true }"),
                                   RELATION_KEYS + (STORAGE_KEY,), owner)
            if STORAGE_KEY in keys:
                self.error(keys[STORAGE_KEY][0].loc, f"{owner}: a relation's links are always stored in tables",
                           "'storage' is for components: the index of links and cascades read the links there")
            exclusive = self.flags(keys, ("exclusive",), owner).get("exclusive", False)
            policy = RELATION_POLICY
            if "on_target_destroy" in keys:
                policy = self.one_of(keys["on_target_destroy"], POLICIES, owner, RELATION_POLICY)
            if policy == "clear" and not exclusive:
                self.error(keys["on_target_destroy"][1].loc,
                           f"{owner}: 'clear' keeps a link with no target, which only an exclusive relation has",
                           f"use '{RELATION_POLICY}', or make the relation exclusive")
            data: Tuple[Field, ...] = ()
            if "data" in keys:
                data_key, data_node = keys["data"]
                if not exclusive:
                    self.error(data_key.loc, f"{owner}: 'data' needs an exclusive relation",
                               "add 'exclusive: true', or keep the data in a component")
                data = self.types.body_fields(self.types.field_entries(data_node, f"{owner}: 'data'"), owner, key.loc,
                                              key.text)
                for f in data:
                    if f.name == LINK_TARGET:
                        self.error(f.loc, f"{owner}: field '{LINK_TARGET}' is the link's own",
                                   "rename it; the link's target has its own function")
            renamed_from = self.renames.renamed_from(keys.get("renamed_from"), owner)
            target = Field(LINK_TARGET, TypeRef("entity"), 0, key.loc)
            fields = (target,) + data if exclusive else ()
            self.symbols.component_names.append(key.text)
            if exclusive:
                self.symbols.exclusive_relations.add(key.text)
            else:
                self.symbols.tag_names.add(key.text)
            relations.append(Relation(key.text, len(relations), index, exclusive, policy, data, key.loc))
            links.append(Component(key.text, index, fields, key.loc, renamed_from=renamed_from, relation=key.text))
        return tuple(relations), tuple(links)

    def resources(self, entries: Tuple[Entry, ...]) -> Tuple[Resource, ...]:
        resources = []
        for index, (key, value) in enumerate(entries):
            if index == MAX_RESOURCES:
                self.error(key.loc, f"too many resources: at most {MAX_RESOURCES}")
            owner = f"resource '{key.text}'"
            self.symbols.resource_names.append(key.text)
            renamed_from, value = self.renames.split_renamed(value, owner)
            if is_empty_body(value):
                self.error(key.loc, f"{owner}: a resource needs at least one field")
            fields = self.types.body_fields(self.types.field_entries(value, owner), owner, key.loc, key.text)
            self.symbols.resource_fields[key.text] = fields
            resources.append(Resource(key.text, fields, key.loc, renamed_from))
        return tuple(resources)

    def events(self, entries: Tuple[Entry, ...]) -> Tuple[Event, ...]:
        """The event types, numbered 0.. in declaration order."""
        events = []
        for key, value in entries:
            if not self.symbols.declared(key.text, key.loc):
                continue  # a bad or taken name: reported by declare_all
            owner = f"event '{key.text}'"
            index = len(self.symbols.event_names)
            self.symbols.event_names.append(key.text)
            sender, value = split_key(value, SENT_BY_KEY)
            # A bad `sent_by` is taken as `game`: no "no system emits it" on top of it.
            sent_by = self.one_of(sender, SENDERS, owner, GAME) if sender else DEFAULT_SENDER
            if is_empty_body(value):
                self.error(key.loc, f"{owner}: an event needs at least one field",
                           "C has no empty structs; e.g. { who: entity }")
            fields = self.types.body_fields(self.types.field_entries(value, owner), owner, key.loc, key.text)
            events.append(Event(key.text, index, fields, key.loc, sent_by))
        return tuple(events)
