#!/usr/bin/env python3
"""Finds one type name defined twice in one namespace: an ODR violation the linker does not see.

    scripts/lint/odr_check.py DIR...   # exit 1 and one line per clash

Two `struct RawToken { ... }` in namespace ksweep, in two files, link without a word and
then each file reads the other's layout. This reads every .h/.cpp under the given
directories, follows `namespace` blocks, and records each class, struct, union and enum
*defined* (with a body) at namespace scope. Types in an anonymous namespace belong to their
file and are left out; nested types are qualified by their class and are not namespace-scope.
A name defined in two files of one namespace is a clash (one header included twice is one
definition: it is one file).
"""
import os
import re
import sys
from collections import defaultdict

TOKEN = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|R"(\w*)\(.*?\)\1"'
    r'|^[ \t]*#(?:\\\n|[^\n])*|[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*|::|[{}();<>:=,\[\]]|\S',
    re.S | re.M)
TYPE_KEYS = {"struct", "class", "union", "enum"}


def tokens(text):
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.startswith(("//", "/*", '"', "'", "R\"", "#")) or t.lstrip().startswith("#"):
            continue
        yield t, text.count("\n", 0, m.start()) + 1


def definitions(path):
    """(namespace, name, line) for each type defined at namespace scope in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        toks = list(tokens(f.read()))
    found = []
    # One entry per open brace: the namespace it opens ("" for anonymous), or None for any
    # other block (class body, function, initializer).
    scopes = []
    i = 0
    while i < len(toks):
        t, line = toks[i]
        at_namespace_scope = all(s is not None for s in scopes)
        if t == "namespace":
            j = i + 1
            name = ""
            if j < len(toks) and toks[j][0] not in ("{",):
                name = toks[j][0]
                j += 1
            if j < len(toks) and toks[j][0] == "{":
                scopes.append(name)
                i = j + 1
                continue
        elif t in TYPE_KEYS and at_namespace_scope and (i == 0 or toks[i - 1][0] != "enum"):
            j = i + 1
            if t == "enum" and j < len(toks) and toks[j][0] in ("class", "struct"):
                j += 1
            if j < len(toks) and re.fullmatch(r"[A-Za-z_]\w*", toks[j][0]):
                name, k = toks[j][0], j + 1
                # Skip to what ends the head: '{' makes it a definition; ';', '<' (a
                # specialization), '(' or '=' (a declaration using the type) do not.
                while k < len(toks) and toks[k][0] not in ("{", ";", "(", "=", "<", ")"):
                    k += 1
                if k < len(toks) and toks[k][0] == "{" and toks[j + 1][0] != "<":
                    namespace = "::".join(scopes)
                    if "" not in scopes:
                        found.append((namespace, name, line))
        if t == "{":
            scopes.append(None)
        elif t == "}":
            if scopes:
                scopes.pop()
        i += 1
    return found


def main(dirs):
    seen = defaultdict(list)
    for root_dir in dirs:
        for root, dirs, files in os.walk(root_dir):
            dirs[:] = sorted(d for d in dirs if d != "fixtures")  # kernel-style C, not ours
            for name in sorted(files):
                if name.endswith((".h", ".cpp")):
                    path = os.path.join(root, name)
                    for namespace, type_name, line in definitions(path):
                        seen[(namespace, type_name)].append(f"{path}:{line}")
    clashes = {k: v for k, v in seen.items() if len(v) > 1}
    for (namespace, name), places in sorted(clashes.items()):
        print(f"{namespace or '(global)'}::{name} is defined {len(places)} times: "
              + ", ".join(places))
    total = sum(len(v) for v in seen.values())
    print(f"odr_check: {total} namespace-scope type definitions, {len(clashes)} names defined "
          "more than once", file=sys.stderr)
    return 1 if clashes else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
