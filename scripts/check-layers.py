#!/usr/bin/env python3
"""Checks the layering of symflame's sources from their #include lines.

1. Each folder includes only the folders it may use (LAYERS below, as ARCHITECTURE.md draws
   them); a subfolder counts as its parent (model/io/pprof is model/io).
2. No include cycle between folders, nor between files (a header and its .cpp are one unit).
3. model/ and symbolize/ stay free of Qt.

Exit 0 when all hold, 1 with one line per violation otherwise. Run from anywhere:
    scripts/check-layers.py [ROOT]
"""
import os
import re
import sys

# folder -> the folders its files may include (besides itself)
CORE = {"model/core"}
LAYERS = {
    "model/core": set(),
    "model/io": CORE,
    "model/analysis": CORE,
    "symbolize/object": CORE,
    "symbolize/locate": {"symbolize/object", "model/io"} | CORE,
    "symbolize/engines": {"symbolize/locate", "symbolize/object"} | CORE,
    "symbolize/isolation": {"symbolize/engines", "symbolize/locate", "symbolize/object"} | CORE,
    "symbolize/js": {"symbolize/locate", "model/io"} | CORE,
    "symbolize/pass": {"symbolize/isolation", "symbolize/engines", "symbolize/js", "symbolize/locate",
                       "symbolize/object", "model/io", "model/analysis"} | CORE,
    "ui": {"symbolize/pass", "symbolize/js", "symbolize/isolation", "symbolize/engines", "symbolize/locate",
           "symbolize/object", "model/io", "model/analysis"} | CORE,
    "app": {"ui", "symbolize/pass", "symbolize/js", "symbolize/isolation", "symbolize/engines",
            "symbolize/locate", "symbolize/object", "model/io", "model/analysis"} | CORE,
}
QT_FREE = ("model/", "symbolize/")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(path):
    """The LAYERS key a repository path belongs to, or None for files outside the layers."""
    best = None
    for layer in LAYERS:
        if path.startswith(layer + "/") and (best is None or len(layer) > len(best)):
            best = layer
    return best


def find_cycle(graph):
    """One cycle of graph (node -> set of nodes) as a list, or None (iterative DFS)."""
    state = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
                path.append(nxt)
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems = []
    folders, units = {}, {}
    for top in ("model", "symbolize", "ui", "app"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".h", ".cpp")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                layer = layer_of(rel)
                if layer is None:
                    problems.append(f"{rel}: in no layer of scripts/check-layers.py")
                    continue
                with open(os.path.join(root, rel), encoding="utf-8") as f:
                    text = f.read()
                unit = os.path.splitext(rel)[0]
                for kind, inc in INCLUDE.findall(text):
                    if kind == "<":
                        if rel.startswith(QT_FREE) and re.match(r"Q[A-Za-z]*(/|$)", inc):
                            problems.append(f"{rel}: includes <{inc}>: {rel.split('/')[0]}/ stays free of Qt")
                        continue
                    target = layer_of(inc)
                    if target is None:
                        continue  # generated headers, tests' helpers
                    if not os.path.exists(os.path.join(root, inc)):
                        problems.append(f"{rel}: includes \"{inc}\", which does not exist")
                        continue
                    if target != layer:
                        if target not in LAYERS[layer]:
                            problems.append(f"{rel}: includes \"{inc}\": {layer} may not use {target}")
                        folders.setdefault(layer, set()).add(target)
                    inc_unit = os.path.splitext(inc)[0]
                    if inc_unit != unit:
                        units.setdefault(unit, set()).add(inc_unit)
    cycle = find_cycle(folders)
    if cycle:
        problems.append("include cycle between folders: " + " -> ".join(cycle))
    cycle = find_cycle(units)
    if cycle:
        problems.append("include cycle between files: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    if not problems:
        print(f"check-layers: {len(LAYERS)} layers, {len(units)} files with includes, no violation, no cycle")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
