"""The checks of what saves need: `renamed_from` on components, resources,
relations and fields (the former names a load maps to the current ones) and
the top level's `save_name`.
"""
from __future__ import annotations

from typing import Dict, Optional, Set, Tuple

from .checks import Entry, Section, split_key
from .load import Node, Sequence
from .model import Component, Field, Loc, Resource, StructType
from .spec import RENAMED_FROM


class Renames(Section):
    """Former names: each a C identifier, none a current name of its kind,
    none claimed twice."""

    def save_name(self, entry: Optional[Entry]) -> str:
        """The top-level `save_name`, or "" when absent (then saves use `world`)."""
        if entry is None:
            return ""
        return self.name(entry[1], "save name") or ""

    def renamed_from(self, entry: Optional[Entry], owner: str) -> Tuple[str, ...]:
        """The former names a `renamed_from` entry gives: one name or a list,
        in the order a load tries them (bad ones are reported and left out)."""
        if entry is None:
            return ()
        node = entry[1]
        nodes = node.items if isinstance(node, Sequence) else (node,)
        if isinstance(node, Sequence) and not nodes:
            self.error(node.loc, f"{owner}: 'renamed_from' is an empty list", "give a name, or leave it out")
        names = [self.name(item, f"{owner}: 'renamed_from'") for item in nodes]
        return tuple(name for name in names if name)

    def split_renamed(self, node: Node, owner: str) -> Tuple[Tuple[str, ...], Node]:
        """The `renamed_from` of a component or resource body (reserved, not a
        field) and the body without it."""
        entry, rest = split_key(node, RENAMED_FROM)
        return self.renamed_from(entry, owner), rest

    def check_renames(self, components: Tuple[Component, ...], resources: Tuple[Resource, ...],
                      structs: Tuple[StructType, ...]) -> None:
        """A former name must not be a current name of the same kind, nor be
        claimed twice: a save's name must map to one element only."""
        for kind, elements in (("component", components), ("resource", resources)):
            current = {e.name for e in elements}
            claimed: Dict[str, str] = {}
            for e in elements:
                self.check_rename(f"{kind} '{e.name}'", e.renamed_from, e.loc, kind, current, claimed, e.name)
                self.check_field_renames(f"{kind} '{e.name}'", e.fields)
        for t in structs:
            self.check_field_renames(f"type '{t.name}'", t.fields)

    def check_field_renames(self, owner: str, fields: Tuple[Field, ...]) -> None:
        current = {f.name for f in fields}
        claimed: Dict[str, str] = {}
        for f in fields:
            self.check_rename(f"{owner}: field '{f.name}'", f.renamed_from, f.loc, "field", current, claimed, f.name)

    def check_rename(self, owner: str, formers: Tuple[str, ...], loc: Loc, kind: str, current: Set[str],
                     claimed: Dict[str, str], name: str) -> None:
        for old in formers:
            if old == name:
                self.error(loc, f"{owner}: 'renamed_from' names itself")
            elif old in current:
                self.error(loc, f"{owner}: renamed from '{old}', which is still a {kind}",
                           "a save's element must map to one element only")
            elif old in claimed:
                self.error(loc, f"{owner}: {kind} '{claimed[old]}' is already renamed from '{old}'"
                           if claimed[old] != name else f"{owner}: renamed from '{old}' twice")
            else:
                claimed[old] = name
