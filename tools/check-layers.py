#!/usr/bin/env python3
"""Check that the runtime's modules are layered: no include cycle, no
module including the header of a module in a higher layer, and no module
calling a function (or using a variable) defined in a higher layer.

    python3 tools/check-layers.py [RUNTIME_DIR]      (default: runtime)

RUNTIME_DIR/LAYERS lists the modules bottom-up, one layer a line, the
modules of a layer separated by spaces; '#' starts a comment. A module is a
path relative to RUNTIME_DIR without its extension (`mem`, `save/format`):
foo.c and foo.h are one module. Every .c and .h under RUNTIME_DIR must be in
a layer, except include/strata.h (the public header, which anyone may
include) and strata_unity.h (which includes every .c on purpose).

`#include "..."` is resolved as the compiler does with -Iruntime/include
-Iruntime: beside the including file, then in include/, then at the top.
Includes that resolve outside RUNTIME_DIR are not the runtime's concern.

Calls are found in the source, as a reader finds them: a module defines the
functions with a body outside any other (not `static` in a .c: a header's
static inline ones are its includers'), and the variables its .c defines
that a header declares `extern`; any other module that names one uses it.
That one must sit in the same layer or a higher one. Including a lower
header is not enough: the public header declares functions of every layer,
so a call through it (pool.c calling strata_entity_destroy of entity.c) is
only seen here. A call through a function pointer names no function and
is not a use: a lower layer calls a higher one only through the world's
hooks struct (sti_hooks_t in RUNTIME_DIR/base.h, when there is one), whose
members it names (`w->hooks.x(...)`: a member, whatever its name, is no
function). The world holds no other function pointer, and a member of the
struct is set (`hooks.x = f`) only by a module of a higher layer than each
module that calls it.

Each problem is printed compiler style (file:line: error: ...); the exit
status is 1 if there is any. Without a LAYERS file the check says so and
passes: there is nothing to check against.
"""
import os
import re
import sys

PUBLIC = "include/strata"      # the public header: included by anyone
EXEMPT = {"strata_unity"}      # includes every .c by design
# The .c files strata_unity.h leaves out: the JSON loader is a library of its
# own (libstrata_json) because it needs yajl; so is the inspector
# (libstrata_inspect), which needs civetweb.
OUTSIDE_UNITY = {"save/json_read.c", "inspect/json.c", "inspect/api.c", "inspect/inspect.c",
                 "live/watch.c", "live/verify.c", "live/live.c"}  # libstrata_live: inotify, dlopen, threads
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# Comments, string and character literals (blanked, keeping line breaks), identifiers and single characters.
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
TOKEN = re.compile(r"[A-Za-z_]\w*|\S")
# base.h's struct of up-calls: the world holds no other function pointer, and
# each member is set only by a module above every module that calls it.
HOOKS = "sti_hooks_t"
FUNC_PTR = re.compile(r"\(\s*\*\s*(\w+)\s*\)\s*\(")


def module_of(rel):
    return os.path.splitext(rel)[0].replace(os.sep, "/")


def read_layers(path, errors):
    """{module: layer number (0 = bottom)} from the LAYERS file."""
    layers = {}
    with open(path, encoding="utf-8") as f:
        number = 0
        for lineno, line in enumerate(f, 1):
            names = line.split("#", 1)[0].split()
            if not names:
                continue
            for name in names:
                if name in layers:
                    errors.append(f"{path}:{lineno}: error: module '{name}' is listed twice")
                layers[name] = number
            number += 1
    return layers


def runtime_files(root):
    """Every .c and .h under root, relative to it, sorted."""
    found = []
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            if name.endswith((".c", ".h")):
                found.append(os.path.relpath(os.path.join(top, name), root))
    return sorted(found)


def resolve(root, rel, target):
    """The file an `#include "target"` in root/rel names, relative to root, or None."""
    for base in (os.path.dirname(rel), "include", ""):
        candidate = os.path.normpath(os.path.join(base, target))
        if not candidate.startswith(".." + os.sep) and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def find_cycle(graph):
    """One cycle of the module graph as a list of modules [a, b, ..., a], or None."""
    state = {}  # module -> 1 while on the DFS stack, 2 when done

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if state.get(succ) == 1:
                return stack[stack.index(succ):] + [succ]
            if succ not in state:
                found = visit(succ, stack)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def tokens(text):
    """(token, line) of C text outside comments and literals, as C sees it
    (what only C++ sees, `#ifdef __cplusplus`, left out). A preprocessor
    line (continuations included) gives ('#', line), its tokens, then
    ('\\n', line); an #include gives nothing."""
    text = NOISE.sub(lambda m: "\n" * m.group().count("\n") + " ", text)
    out, directive, skip, cplusplus = [], False, False, 0
    for lineno, line in enumerate(text.split("\n"), 1):
        words = TOKEN.findall(line)
        if cplusplus:  # inside #ifdef __cplusplus: count nested conditionals to its #endif
            if words[:1] == ["#"] and words[1:2] in (["if"], ["ifdef"], ["ifndef"]):
                cplusplus += 1
            elif words[:2] == ["#", "endif"]:
                cplusplus -= 1
            elif words[:2] == ["#", "else"] and cplusplus == 1:
                cplusplus = 0  # what C sees follows
            continue
        if words[:3] == ["#", "ifdef", "__cplusplus"]:
            cplusplus = 1
            continue
        if not directive and words[:1] == ["#"]:
            directive, skip = True, words[1:2] == ["include"]
            words = words[1:]
            out += [] if skip else [("#", lineno)]
        if not skip:
            out += [(w, lineno) for w in words if not (directive and w == "\\")]
        if directive and not line.rstrip().endswith("\\"):
            out += [] if skip else [("\n", lineno)]
            directive = skip = False
    return out


def top_level(toks):
    """The declarations outside any function body or initializer, as lists
    of indices into toks, each with '{' when it opens a body or ';'; and the
    names of the macros that expand to `static`."""
    decls, statics, current, depth, i = [], set(), [], 0, 0
    while i < len(toks):
        tok = toks[i][0]
        if tok == "#":  # a preprocessor line: only a #define that makes `static` matters
            end = next(j for j in range(i, len(toks)) if toks[j][0] == "\n")
            words = [w for w, _ in toks[i + 1:end]]
            if len(words) > 1 and words[0] == "define" and "static" in words[2:]:
                statics.add(words[1])
            i = end + 1
            continue
        if depth == 0 and tok in ";{":
            decls.append((current, tok))
            current = []
        elif depth == 0:
            current.append(i)
        depth += tok == "{"
        depth -= tok == "}"
        if depth == 0 and tok == "}":
            current = []
        i += 1
    return decls, statics


def function_name(toks, decl):
    """The index of the name of the function a declaration's head declares
    (the identifier before its last parenthesised group), or None."""
    if not decl or toks[decl[-1]][0] != ")":
        return None
    depth = 0
    for j in range(len(decl) - 1, -1, -1):
        depth += toks[decl[j]][0] == ")"
        depth -= toks[decl[j]][0] == "("
        if depth == 0:
            return decl[j - 1] if j > 0 and re.fullmatch(r"[A-Za-z_]\w*", toks[decl[j - 1]][0]) else None
    return None


def parse(root, rel):
    """(tokens, declarations, static macros) of one file."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        toks = tokens(f.read())
    return (toks,) + top_level(toks)


def extern_name(words):
    """The name an `extern` declaration declares: the identifier after `(*`
    (an array of function pointers), or else the last before `[` or the end."""
    if "*" in words and "(" in words and words.index("(") + 1 == words.index("*"):
        return next(w for w in words[words.index("*") + 1:] if w != "const")
    names = [w for w in words[:words.index("[") if "[" in words else len(words)] if re.fullmatch(r"[A-Za-z_]\w*", w)]
    return names[-1] if names else None


def definitions(parsed, modules):
    """{symbol: module} of what each module defines for the others, and
    {file: the names its static functions take} (they hide any other)."""
    statics = set().union(*(s for _, _, s in parsed.values())) | {"static"}
    defined, externs, own = {}, set(), {}
    for rel, (toks, decls, _) in parsed.items():
        own[rel] = set()
        for decl, end in decls:
            words = [toks[k][0] for k in decl]
            if end == ";" and words[:1] == ["extern"]:
                externs.add(extern_name(words))
            name = function_name(toks, decl) if end == "{" else None
            if name is None or "typedef" in words:
                continue
            if rel.endswith(".c") and statics & set(words):
                own[rel].add(toks[name][0])
            else:
                defined[toks[name][0]] = modules[rel]
    for rel, (toks, decls, _) in parsed.items():
        for decl, end in decls:
            words = [toks[k][0] for k in decl]
            if rel.endswith(".c") and "extern" not in words and "static" not in words:
                for name in externs & set(words):
                    defined.setdefault(name, modules[rel])
    return defined, own


EXPRESSION_WORDS = {"return", "sizeof", "case", "else", "do"}


def not_a_use(toks, k):
    """Whether the identifier toks[k] names no function or variable of file
    scope: a member (`w->hooks.destroyed(w)`, `(*w).x`), or the name a
    function pointer's declarator gives (`void (*destroyed)(...)`)."""
    before = [w for w, _ in toks[max(0, k - 3):k]]
    if before[-1:] == ["."] or before[-2:] == ["-", ">"]:
        return True
    after = [w for w, _ in toks[k + 1:k + 3]]
    return before[-2:] == ["(", "*"] and after == [")", "("] and len(before) == 3 and \
        (before[0] == "*" or (re.fullmatch(r"[A-Za-z_]\w*", before[0]) and before[0] not in EXPRESSION_WORDS))


def upward_calls(root, files, layers, shown):
    """Errors for each module's first use of each symbol defined in a higher layer."""
    modules = {rel: module_of(rel) for rel in files}
    parsed = {rel: parse(root, rel) for rel in files if modules[rel] in layers}
    defined, own = definitions(parsed, modules)
    errors, seen = [], set()
    for rel, (toks, decls, _) in parsed.items():
        src = modules[rel]
        # A prototype names a function without using it.
        declared = {function_name(toks, decl) for decl, end in decls if end == ";"}
        for k, (word, lineno) in enumerate(toks):
            dst = defined.get(word)
            if dst is None or dst == src or layers[dst] <= layers[src] or (src, word) in seen or k in declared or \
                    word in own[rel] or not_a_use(toks, k):
                continue
            seen.add((src, word))
            errors.append(f"{shown[rel]}:{lineno}: error: '{src}' (layer {layers[src] + 1}) calls {word} of "
                          f"'{dst}', a higher layer ({layers[dst] + 1})")
    return errors


def check_hooks(root, layers, files):
    """Problems with the up-calls of RUNTIME_DIR/base.h (none without it): a
    function pointer in struct strata_world_t outside the hooks struct, or a
    member of the hooks struct set by a module not above one that calls it."""
    base = os.path.join(root, "base.h")
    if not os.path.isfile(base):
        return []
    with open(base, encoding="utf-8") as f:
        text = f.read()
    errors = []
    world = re.search(r"struct strata_world_t \{(.*?)\n\};", text, re.S)
    for m in FUNC_PTR.finditer(world.group(1) if world else ""):
        line = text.count("\n", 0, world.start(1) + m.start()) + 1
        errors.append(f"{base}:{line}: error: the world holds the function pointer '{m.group(1)}' outside {HOOKS}: "
                      "a lower layer calls up only through world->hooks")
    hooks = re.search(r"typedef struct " + HOOKS + r" \{(.*?)\n\} " + HOOKS + ";", text, re.S)
    sets, calls = [], {}  # (member, module, site); member -> modules that call it
    comment = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            code = comment.sub(lambda m: "\n" * m.group(0).count("\n"), f.read())
            for lineno, line in enumerate(code.split("\n"), 1):
                for name in FUNC_PTR.findall(hooks.group(1)) if hooks else []:
                    if re.search(r"hooks\." + name + r"\s*=(?!=)", line):
                        sets.append((name, module_of(rel), f"{os.path.join(root, rel)}:{lineno}"))
                    elif re.search(r"hooks\." + name + r"\b", line):
                        calls.setdefault(name, set()).add(module_of(rel))
    for name, setter, site in sets:
        for caller in sorted(calls.get(name, ())):
            if setter in layers and caller in layers and layers[setter] <= layers[caller]:
                errors.append(f"{site}: error: hooks.{name} is set by '{setter}' (layer {layers[setter] + 1}), "
                              f"which is not above '{caller}' (layer {layers[caller] + 1}) that calls it")
    return errors


def check(root):
    """The list of problems (strings) with root's layering; None if root has no LAYERS."""
    layers_path = os.path.join(root, "LAYERS")
    if not os.path.isfile(layers_path):
        return None
    errors = []
    layers = read_layers(layers_path, errors)
    files = runtime_files(root)
    shown = {rel: os.path.join(root, rel) for rel in files}
    modules = {module_of(rel) for rel in files}
    for rel in files:
        m = module_of(rel)
        if m not in layers and m != PUBLIC and m not in EXEMPT:
            errors.append(f"{shown[rel]}:1: error: module '{m}' is in no layer of {layers_path}")
    for name in sorted(set(layers) - modules):
        errors.append(f"{layers_path}: error: module '{name}' has no {name}.c or {name}.h")

    graph = {}   # module -> modules it includes
    where = {}   # (module, module) -> "file:line: #include "..."" of the first such include
    for rel in files:
        src = module_of(rel)
        if src in EXEMPT:
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                target = match and resolve(root, rel, match.group(1))
                if not target:
                    continue
                dst = module_of(target)
                if dst == src or dst == PUBLIC:
                    continue
                site = f'{shown[rel]}:{lineno}: #include "{match.group(1)}"'
                where.setdefault((src, dst), site)
                graph.setdefault(src, set()).add(dst)
                if dst in EXEMPT:
                    errors.append(f"{site.replace(': #', ': error: #', 1)}: {dst}.h is for tests only")
                elif src in layers and dst in layers and layers[dst] > layers[src]:
                    errors.append(f"{site.replace(': #', ': error: #', 1)}: '{src}' (layer {layers[src] + 1}) "
                                  f"includes '{dst}' of a higher layer ({layers[dst] + 1})")
    unity = os.path.join(root, "strata_unity.h")
    if os.path.isfile(unity):
        with open(unity, encoding="utf-8") as f:
            unit = {resolve(root, "strata_unity.h", m.group(1)) for m in map(INCLUDE.match, f) if m}
        for rel in files:
            if rel.endswith(".c") and rel not in unit and rel not in OUTSIDE_UNITY:
                errors.append(f"{unity}:1: error: {rel} is not in the unit: add #include \"{rel}\"")
    errors += upward_calls(root, files, layers, shown)
    errors += check_hooks(root, layers, files)
    cycle = find_cycle(graph)
    if cycle:
        errors.append(f"error: include cycle: {' -> '.join(cycle)}")
        errors += [f"  {where[(a, b)]}" for a, b in zip(cycle, cycle[1:])]
    return errors


def main(argv):
    root = argv[0] if argv else "runtime"
    errors = check(root)
    if errors is None:
        print(f"check-layers: {os.path.join(root, 'LAYERS')} does not exist: nothing to check, skipped")
        return 0
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print(f"check-layers: {root}: layers hold, no include cycle, no call up")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
