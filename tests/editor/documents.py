"""Schema files as an editor's YAML server sees them: JSON values under
YAML 1.2's core schema (yaml-language-server's default), where `on`, `y` and
`off` are strings and `1e3` is a number, unlike PyYAML's YAML 1.1.

The file is read with the generator's own loader (codegen.load), which keeps
each scalar's text as written; only the resolution of plain scalars to
null, booleans and numbers follows YAML 1.2 here.
"""
import re
from pathlib import Path

from codegen import load

REPO = Path(__file__).resolve().parents[2]

_NULL = re.compile(r"~|null|Null|NULL|")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF_NAN = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")


def value(node):
    """The JSON value of a loaded node, scalars resolved as YAML 1.2 does."""
    if isinstance(node, load.Mapping):
        return {key.text: value(item) for key, item in node.items}
    if isinstance(node, load.Sequence):
        return [value(item) for item in node.items]
    return scalar(node.text, node.quoted)


def scalar(text, quoted=False):
    if quoted:
        return text
    if _NULL.fullmatch(text):
        return None
    if _TRUE.fullmatch(text):
        return True
    if _FALSE.fullmatch(text):
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF_NAN.fullmatch(text):
        return float(text.replace(".", "").lower())  # -.inf -> -inf, .NaN -> nan
    return text


def document(path):
    """The JSON value of the schema file at `path` (relative to the
    repository or absolute); raises ValueError if it does not load."""
    path = Path(path)
    source = (path if path.is_absolute() else REPO / path).read_bytes()
    root, diagnostics = load.load(str(path), source)
    if root is None or diagnostics:
        raise ValueError(f"{path}: does not load: {[str(d) for d in diagnostics]}")
    return value(root)


def valid_schemas():
    """Every schema in the repository that the generator accepts: the
    examples, the tests' worlds and the bench's."""
    patterns = ("schema/*.yaml", "tests/schema/*.yaml", "bench/*.yaml", "bench/save/*.yaml")
    return sorted(p.relative_to(REPO) for pattern in patterns for p in REPO.glob(pattern))
