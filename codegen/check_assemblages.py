"""The checks of assemblages: the components an entity is spawned with,
field overrides checked like defaults, and `extends` (one parent, no
cycles; a parent's values come first). A relation is no assemblage's: its
link needs a target, which only the game has.
"""
from __future__ import annotations

from typing import Dict, Tuple

from .check_types import Types
from .checks import Entry, Section, Symbols, cycle_path, cycles, line_col, stable_topological_order
from .errors import Reporter, did_you_mean
from .load import Mapping, Node, Scalar
from .model import Assemblage, Component, Loc, Value
from .spec import EXTENDS


class Assemblages(Section):
    def __init__(self, report: Reporter, symbols: Symbols, types: Types) -> None:
        super().__init__(report, symbols)
        self.types = types

    def assemblages(self, entries: Tuple[Entry, ...], components: Tuple[Component, ...]) -> Tuple[Assemblage, ...]:
        """The assemblages in declaration order, each with its parent's
        components merged in (a parent's values, then the child's overrides)."""
        by_component = {c.name: c for c in components}
        names: Dict[str, Loc] = {}
        bodies: Dict[str, Tuple[Scalar, Mapping]] = {}
        for key, value in entries:
            owner = f"assemblage '{key.text}'"
            if self.name(key, "assemblage name") is None:
                continue
            if key.text in names:
                self.error(key.loc, f"{owner}: declared twice", f"first declared at {line_col(names[key.text])}")
                continue
            names[key.text] = key.loc
            bodies[key.text] = (key, self.mapping_or_empty(value, owner, "of components, e.g. { Position: {} }"))
        parents: Dict[str, str] = {}
        for name, (key, body) in bodies.items():
            node = body.get(EXTENDS)
            if node is None:
                continue
            owner = f"assemblage '{name}'"
            if not isinstance(node, Scalar) or node.is_null:
                self.error(node.loc, f"{owner}: 'extends' must name an assemblage")
            elif node.text not in bodies:
                self.error(node.loc, f"{owner}: extends unknown assemblage '{node.text}'",
                           did_you_mean(node.text, bodies))
            elif node.text == name:
                self.error(node.loc, f"{owner}: extends itself")
            else:
                parents[name] = node.text
        order, leftover = stable_topological_order(list(bodies), {n: ({parents[n]} if n in parents else set())
                                                                   for n in bodies})
        for cycle in cycles(leftover, {n: {parents[n]} for n in leftover}):
            self.error(bodies[cycle[0]][0].loc, f"assemblage '{cycle[0]}': extends cycle: {cycle_path(cycle)}",
                       "each arrow reads 'extends'")
        built: Dict[str, Tuple[Tuple[str, Value], ...]] = {}
        for name in order + leftover:  # those on a cycle are still checked, over no parent
            key, body = bodies[name]
            base = dict(built.get(parents.get(name, ""), ()))
            built[name] = self.assemblage_components(name, body, base, by_component)
        return tuple(Assemblage(name, parents.get(name, ""), built[name], bodies[name][0].loc)
                     for name in bodies if name in built)

    def assemblage_components(self, name: str, body: Mapping, base: Dict[str, Value],
                              by_component: Dict[str, Component]) -> Tuple[Tuple[str, Value], ...]:
        """The components of one assemblage over its parent's (`base`)."""
        owner = f"assemblage '{name}'"
        values = dict(base)
        for key, node in body.items:
            if key.text == EXTENDS:
                continue
            c = by_component.get(key.text)
            if c is None:
                hint = self.kind_hint(key.text) or did_you_mean(key.text, by_component)
                self.error(key.loc, f"{owner}: unknown component '{key.text}'", hint)
                continue
            if c.relation:
                verb = "set" if c.holds_value else "add"
                self.error(key.loc, f"{owner}: relation '{c.name}' links to a target, which an assemblage cannot name",
                           f"spawn, then link it with its _{verb}")
                continue
            where = f"{owner}: component '{c.name}'"
            start = values.get(c.name, tuple((f.name, f.default) for f in c.fields))
            values[c.name] = self.component_override(c, node, where, start)
        return tuple((c.name, values[c.name]) for c in by_component.values() if c.name in values)

    def component_override(self, c: Component, node: Node, where: str,
                           base: Tuple[Tuple[str, Value], ...]) -> Tuple[Tuple[str, Value], ...]:
        """A component's value in an assemblage: `{}` (its defaults, or the
        parent's value) or a mapping overriding some fields."""
        if isinstance(node, Scalar) and node.is_null:
            return base
        if not isinstance(node, Mapping):
            example = f"{{{c.fields[0].name}: ...}}" if c.fields else "{}"
            self.error(node.loc, f"{where}: expected a mapping of field values", f"e.g. {example}")
            return base
        by_name = {f.name: f for f in c.fields}
        values = dict(base)
        for key, value in node.items:
            f = by_name.get(key.text)
            if f is None and key.text in self.symbols.broken_fields.get(c.name, ()):
                continue  # its type is wrong, and said so
            if f is None:
                hint = did_you_mean(key.text, by_name) if by_name else f"'{c.name}' is a tag: it has no fields"
                self.error(key.loc, f"{where}: unknown field '{key.text}'", hint)
                continue
            values[f.name] = self.types.value(f.type, value, f"{where}: field '{f.name}'", values[f.name])
        return tuple((f.name, values[f.name]) for f in c.fields)
