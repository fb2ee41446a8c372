"""Strata's generator: YAML schema -> typed C for the Strata runtime.

Layers, each its own module, never mixed: `load` reads YAML keeping the line
and column of every node; `validate` checks it (through the `check_*`
modules, one concern each, and `schedule` for the order of systems) and
builds the immutable `model`; `names` owns every C identifier; `render`
fills the Jinja2 templates. `spec` defines every key of the schema language,
`limits` every limit, `errors` every diagnostic. `__main__` is the command
line. README.md says how to add a key.
"""

# Must equal STRATA_VERSION_STRING in runtime/include/strata.h; a test checks it.
__version__ = "0.4.0"
