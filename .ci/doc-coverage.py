#!/usr/bin/env python3
"""Lists the public declarations of a module that have no doc comment, from a symbol graph.

usage: doc-coverage.py SYMBOLGRAPH.json [...]   (from `swift package dump-symbol-graph`)
Exits 1 when any public declaration lacks one. Synthesized members (Codable, Equatable,
RawRepresentable conformances, enum cases of raw-value enums inherited from protocols) are
skipped: their documentation is the protocol's.
"""
import json, sys

missing = []
for path in sys.argv[1:]:
    graph = json.load(open(path))
    module = graph["module"]["name"]
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if symbol.get("docComment", {}).get("lines"):
            continue
        # Members a protocol provides (conformances, default implementations) have no source here.
        if "location" not in symbol:
            continue
        if symbol["location"]["uri"].find("/Sources/") < 0:
            continue
        title = ".".join(symbol["pathComponents"])
        kind = symbol["kind"]["displayName"]
        loc = symbol["location"]
        file = loc["uri"].split("/Sources/", 1)[1]
        missing.append(f"Sources/{file}:{loc['position']['line'] + 1}: {kind} `{module}.{title}` has no doc comment")

    # Every diagnostic code declared is listed in the documentation, which is generated from
    # DiagnosticCode.all: as many codes there as the module declares.
    if module == "Entitle" and "/.build/" in path:
        codes = sorted(s["names"]["title"] for s in graph["symbols"] if s["pathComponents"][:1] == ["DiagnosticCode"]
                       and len(s["pathComponents"]) == 2 and s["kind"]["identifier"] == "swift.type.property")
        doc = open(path.split("/.build/")[0] + "/Sources/Entitle/Entitle.docc/Diagnostics.md").read()
        listed = doc.split("<!-- The list below is generated", 1)[-1].split("<!-- End of the generated list. -->")[0].count("\n- `")
        if listed != len(codes):
            missing.append(f"DiagnosticCode declares {len(codes)} codes and Diagnostics.md lists {listed}: "
                           "a code missing from DiagnosticCode.all is not documented")

for line in sorted(missing):
    print(line)
print(f"{len(missing)} public declaration{'s' if len(missing) != 1 else ''} without a doc comment")
sys.exit(1 if missing else 0)
