#!/usr/bin/env python3
"""Is a kernel source file built under a given .config?  usage: fix_kbuild_config.py CONFIG FILE.c

Reads FILE's directory Makefile (and Kbuild): `obj-$(CONFIG_X) += file.o` directly, or through
a composite object (`foo-y += file.o`, `foo-objs := file.o`, `foo-$(CONFIG_Y) += file.o` with
`obj-$(CONFIG_X) += foo.o`). Prints m, y or n (not in config), or ? when the Makefile does not
say. The parent directory must also be entered (`obj-$(CONFIG_Z) += dir/`); that is checked
one level up when the parent's Makefile names the directory.
"""
import os
import re
import sys


def load_config(path):
    values = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'(CONFIG_\w+)=(.*)', line)
            if m:
                values[m.group(1)] = m.group(2).strip('"')
    return values


def makefile_assignments(directory):
    """(lhs, [objects]) for every +=, :=, = line, with continuations joined."""
    text = ''
    for name in ('Kbuild', 'Makefile'):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path) as f:
                text += f.read().replace('\\\n', ' ') + '\n'
    out = []
    for line in text.splitlines():
        m = re.match(r'\s*([\w$()\-]+)\s*[:+]?=\s*(.*)', line)
        if m:
            out.append((m.group(1), m.group(2).split()))
    return out


def value_of(lhs_suffix, config):
    """'y', 'm' or 'n' for the part after 'obj-' or 'foo-': y, m, objs, $(CONFIG_X)."""
    if lhs_suffix in ('y', 'objs'):
        return 'y'
    if lhs_suffix == 'm':
        return 'm'
    m = re.fullmatch(r'\$\((CONFIG_\w+)\)', lhs_suffix)
    if m:
        return config.get(m.group(1), 'n')
    return None


def state_of(obj, directory, config, depth=0):
    if depth > 3:
        return '?'
    best = None
    for lhs, objs in makefile_assignments(directory):
        if obj not in objs:
            continue
        head, _, suffix = lhs.partition('-')
        v = value_of(suffix, config)
        if v is None:
            continue
        if head == 'obj':
            v = v
        else:  # a composite: head.o must itself be built
            if v == 'n':
                continue
            parent = state_of(head + '.o', directory, config, depth + 1)
            v = parent if v == 'y' else ('m' if parent in ('m', 'y') else parent)
        if v in ('m', 'y'):
            return v
        best = best or v
    return best or '?'


def main():
    config = load_config(sys.argv[1])
    path = sys.argv[2]
    directory, name = os.path.split(path)
    state = state_of(os.path.splitext(name)[0] + '.o', directory, config)
    # The directory itself must be entered from its parent.
    if state in ('m', 'y'):
        parent, sub = os.path.split(directory)
        for lhs, objs in makefile_assignments(parent):
            if sub + '/' in objs:
                v = value_of(lhs.partition('-')[2], config)
                if v == 'n':
                    state = 'n'
                break
    print(state)


if __name__ == '__main__':
    main()
