#!/usr/bin/env python3
"""The public items of a crate that are reachable by two or more paths.

Reads the crate's rustdoc JSON (scripts/public-api.sh writes it, e.g. target/doc/mcp_runtime.json),
walks its public modules and re-exports from the crate's root, and prints each item that more than
one path names, with those paths, then their count:

    scripts/public-paths.py target/doc/mcp_runtime.json

The prelude is a convenience index of items that live elsewhere, so its paths are left out (pass
--with-prelude to count them); `#[doc(hidden)]` modules such as `__private` are not in the JSON.
An item of another crate counts with the path it has there: a name that `mcp_runtime` re-exports
from `mcp_runtime_core` is also reachable as `protocol::...`. Exits 1 when some item has several paths, so
that it can gate a change.
"""

import argparse
import json
import sys
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="the crate's rustdoc JSON")
    parser.add_argument(
        "--with-prelude", action="store_true", help="count the prelude's paths too"
    )
    args = parser.parse_args()

    with open(args.json) as file:
        doc = json.load(file)
    index = doc["index"]
    external_paths = doc["paths"]
    root = index[str(doc["root"])]
    crate = root["name"]
    # The crates this one re-exports whole (`pub use mcp_runtime_core as protocol`): an item of such a
    # crate is also reachable under that name.
    crate_aliases = {}

    # item id -> the paths that reach it, as tuples of names
    paths = defaultdict(set)
    # item id -> the modules that name it (define or re-export it)
    homes = defaultdict(set)
    # Each item's kind, for the report: "struct", "fn", "mod", ...
    kinds = {}

    def visit(module_id, prefix, open_modules):
        module = index[str(module_id)]
        for child_id in module["inner"]["module"]["items"]:
            child = index[str(child_id)]
            if child["visibility"] != "public":
                continue
            kind, inner = next(iter(child["inner"].items()))
            if kind == "use":
                target = inner["id"]
                if inner["is_glob"]:
                    if target is not None and str(target) in index:
                        visit(target, prefix, open_modules)
                    continue
                name = inner["name"]
                if target is None:
                    continue
                if str(target) in index:
                    reach(target, module_id, prefix + (name,), open_modules)
                else:
                    summary = external_paths.get(str(target))
                    if summary is None:
                        continue
                    if summary["kind"] == "module" and len(summary["path"]) == 1:
                        crate_aliases[summary["path"][0]] = prefix + (name,)
                        continue
                    key = ("extern",) + tuple(summary["path"])
                    paths[key].add(prefix + (name,))
                    homes[key].add(module_id)
                    kinds[key] = summary["kind"]
            elif kind != "impl":
                reach(child_id, module_id, prefix + (child["name"],), open_modules)

    def reach(item_id, module_id, path, open_modules):
        item = index[str(item_id)]
        kind = next(iter(item["inner"]))
        paths[item_id].add(path)
        homes[item_id].add(module_id)
        kinds[item_id] = kind
        if kind == "module" and item_id not in open_modules:
            visit(item_id, path, open_modules | {item_id})

    visit(doc["root"], (), frozenset({doc["root"]}))

    prelude = next(
        (i for i, p in paths.items() if p == {("prelude",)}),
        None,
    )

    def in_prelude(path):
        return path[:1] == ("prelude",)

    names = []
    items = 0
    for key, item_paths in paths.items():
        shown = {p for p in item_paths if args.with_prelude or not in_prelude(p)}
        named_by = {m for m in homes[key] if args.with_prelude or m != prelude}
        if isinstance(key, tuple) and key[1] in crate_aliases:
            # An item of a crate re-exported whole is named there too.
            shown.add(crate_aliases[key[1]] + key[2:])
            named_by.add(key[1])
        if len(shown) > 1:
            items += 1
        # An item inside a module that two paths reach is counted once, as that module.
        if len(named_by) > 1:
            shown = sorted("::".join((crate,) + p) for p in shown)
            names.append((shown[0].rsplit("::", 1)[-1], kinds[key], shown))
    names.sort()
    for name, kind, shown in names:
        print(f"{kind} {name}: {len(shown)} paths")
        for path in shown:
            print(f"    {path}")
    print(
        f"{len(names)} names reachable by two or more paths "
        f"({items} items in all, counting each item inside such a module)"
    )
    return 1 if names else 0

if __name__ == "__main__":
    sys.exit(main())
