"""Rebuild codegen/reserved.py from the C library headers of this machine.

    python3 -m codegen.make_reserved > codegen/reserved.py

Run by hand when the list needs refreshing, never at generation time: the
generator reads only the committed list. It asks gcc and clang for the
macros (`-dM -E`) and clang for the file-scope declarations (`-ast-dump`) of
the headers a game's C file meets (every C11 header, and the POSIX ones
games include: threads, time, files, sockets, dynamic loading), in strict
C11 and in GNU mode with _GNU_SOURCE (which shows the most names), and adds
the C11 and C23 keywords and the predefined macros of GNU C on other
targets. A macro is function-like when every definition of it takes
arguments: it breaks only an identifier followed by '(' (a function, or a
macro of the same name), so a struct member may share its name.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap
from typing import Iterable, Set, Tuple

# Every header of C11 (complex.h and tgmath.h define `I`, `complex` and
# type-generic `sqrt`..., iso646.h `and`, `or`, `not`), then POSIX's.
C11_HEADERS = ("assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "iso646", "limits", "locale",
               "math", "setjmp", "signal", "stdalign", "stdarg", "stdatomic", "stdbool", "stddef", "stdint", "stdio",
               "stdlib", "stdnoreturn", "string", "tgmath", "threads", "time", "uchar", "wchar", "wctype")
POSIX_HEADERS = ("unistd", "pthread", "sched", "semaphore", "fcntl", "dirent", "dlfcn", "poll", "strings",
                 "termios", "sys/types", "sys/stat", "sys/time", "sys/mman", "sys/wait", "sys/select",
                 "sys/socket", "netinet/in", "arpa/inet", "netdb")
HEADERS = C11_HEADERS + POSIX_HEADERS
MODES = (["-std=c11"], ["-std=gnu11", "-D_GNU_SOURCE"])
COMPILERS = ("gcc", "clang")

C11_KEYWORDS = """
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local
""".split()
C23_KEYWORDS = """
    alignas alignof bool constexpr false nullptr static_assert thread_local true typeof
    typeof_unqual _BitInt _Decimal128 _Decimal32 _Decimal64
""".split()
# GNU C predefines these without an underscore outside strict ISO mode, each on
# some target (gcc -dM -E on x86-64 Linux shows linux and unix).
GNU_TARGET_MACROS = """
    linux unix i386 i486 i586 i686 sun sparc mips vax pdp11 m68k mc68000 hppa hp9000 ibm032 ns32000
    pyr sequent u3b2 u3b5 u3b15 u3b20d tahoe interdata ultrix apollo BSD MIPSEB MIPSEL
""".split()
# Header names a world must not take: `<world>.h` would hide them under -I.
C_HEADERS = """
    assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign
    stdarg stdatomic stdbit stdbool stdckdint stddef stdint stdio stdlib stdnoreturn string tgmath
    threads time uchar wchar wctype
    alloca dirent dlfcn fcntl getopt glob malloc memory poll pthread sched search semaphore strings
    syslog termios unistd utime netdb
""".split()
_DECL = re.compile(r"^[|`]-(TypedefDecl|FunctionDecl|VarDecl|RecordDecl|EnumDecl)\b|EnumConstantDecl")
_NOISE = {"col", "line", "implicit", "used", "referenced", "invalid", "sloc", "struct", "union", "enum",
          "definition", "extern", "static", "inline", "prev", "parent", "cinit", "imported"}


def _source() -> str:
    return "".join(f"#include <{h}.h>\n" for h in HEADERS)


def _run(args: Iterable[str], path: str) -> str:
    return subprocess.run(list(args) + [path], check=True, capture_output=True, text=True).stdout


def macros(path: str) -> Tuple[Set[str], Set[str]]:
    """(object-like, function-like): a name defined both ways is object-like."""
    plain, called = set(), set()
    for cc in COMPILERS:
        for mode in MODES:
            for line in _run([cc, *mode, "-dM", "-E"], path).splitlines():
                head = line.split()[1]
                name = re.split(r"[ (]", head)[0]
                (called if "(" in head else plain).add(name)
    return plain, called - plain


def declarations(path: str) -> Set[str]:
    found = set()
    for mode in MODES:
        for line in _run(["clang", *mode, "-fsyntax-only", "-Xclang", "-ast-dump"], path).splitlines():
            if not _DECL.search(line):
                continue
            # Without the source range <...>, the location (a path:line:col the
            # first time a header is met, else line:L:C or col:C) and the types '...'.
            text = re.sub(r"'[^']*'", "", re.sub(r"<[^>]*>", "", line)).split("Decl", 1)[1]
            text = re.sub(r"\S+:\d+(:\d+)?", "", text)
            words = [w for w in re.findall(r"\b[A-Za-z_]\w*\b", text)
                     if w not in _NOISE and not re.fullmatch(r"0x[0-9a-f]+", w)]
            if words:
                found.add(words[-1] if "EnumConstantDecl" in line else words[0])
    return found


def _listing(name: str, words: Iterable[str]) -> str:
    words = sorted(w for w in set(words) if not w.startswith("_") or name == "KEYWORDS")
    lines, line = [], "   "
    for w in words:
        if len(line) + len(w) + 1 > 100:
            lines.append(line)
            line = "   "
        line += " " + w
    lines.append(line)
    return f'{name} = frozenset("""\n' + "\n".join(lines) + '\n""".split())\n'


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "headers.c")
        with open(path, "w") as f:
            f.write(_source())
        plain, called = macros(path)
        plain |= set(GNU_TARGET_MACROS)
        found_decls = declarations(path)
    listed = textwrap.fill(", ".join(f"<{h}.h>" for h in HEADERS), 76)
    sys.stdout.write(
        '"""Names a generated C file cannot take, made by `python3 -m codegen.make_reserved`\n'
        "(do not edit by hand): the C11 and C23 keywords; the macros and the\n"
        f"file-scope identifiers of\n{listed}\n"
        "in C11 and GNU mode (gcc and clang, glibc); the predefined macros of GNU C;\n"
        "the header names a world's `<world>.h` would hide. Identifiers that start\n"
        "with an underscore are left out: C reserves them all at file scope, and\n"
        '`_X` and `__x` everywhere, which names.py checks by their spelling."""\n\n')
    sys.stdout.write(_listing("KEYWORDS", C11_KEYWORDS + C23_KEYWORDS) + "\n")
    sys.stdout.write("# Object-like macros: no generated identifier, in any scope, may be one of these.\n")
    sys.stdout.write(_listing("MACROS", plain) + "\n")
    sys.stdout.write("# Function-like macros: they break a generated function or macro of their name\n"
                     "# (an identifier followed by '('), not a type, a member or a parameter.\n")
    sys.stdout.write(_listing("FUNCTION_MACROS", called) + "\n")
    sys.stdout.write("# Types, functions, variables and enum constants declared at file scope.\n")
    sys.stdout.write(_listing("FILE_SCOPE", found_decls - plain) + "\n")
    sys.stdout.write("# Headers: a world may not be named so that `<world>.h` is one of these.\n")
    sys.stdout.write(_listing("HEADERS", C_HEADERS) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
