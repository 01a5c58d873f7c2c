#!/usr/bin/env python3
"""Generates a compile-time shape check, one statement per member, from a vendor
.swiftinterface (PlaudBleSDK's or PlaudWiFiSDK's, shared/VENDOR-API.md): unapplied references
with the vendor's exact function types (labels, parameter and result types, throws), key paths
with its property types (writable where the vendor's are), static members by type, enum cases
by their raw type, and protocol requirements referenced through a generic parameter. The
members shared/VENDOR-API.md puts out of scope (CoreBluetooth, Security, SystemConfiguration
types, the `_objc_` bridging classes, `flutterMapData`) are skipped and counted.

usage: scripts/vendor-shape-check.py INTERFACE MODULE > Tests/PlaudBleSDKTests/<Module>Shape.swift
Prints the member counts to stderr."""
import re, sys

path, module = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()

OUT_TYPES = ("CoreBluetooth.", "Security.", "SystemConfiguration.", "_objc_", "Darwin.OSStatus",
             "CoreFoundation.CFError")
OUT_NAMES = {"flutterMapData", "cbManager", "Padding", "JXWebSocketServerDelegate"}
PREFIXES = ["CoreFoundation.", "Swift.", "Foundation.", "Dispatch.", "ObjectiveC.", "_Concurrency.",
            "PlaudBleSDK.", "PlaudWiFiSDK.", "PlaudDeviceBasicSDK."]

def clean(t):
    for p in PREFIXES:
        t = t.replace(p, "")
    return t.strip()

def split_params(s):
    """Top-level comma split of a parameter list."""
    out, depth, cur = [], 0, ""
    s = s.replace("->", "\u2192")
    for ch in s:
        if ch in "([<{": depth += 1
        if ch in ")]>}": depth -= 1
        if ch == "," and depth == 0:
            out.append(cur); cur = ""
        else:
            cur += ch
    if cur.strip(): out.append(cur)
    return [p.strip().replace("\u2192", "->") for p in out]

def param_parts(p):
    """(external label, type) of one parameter."""
    p = re.sub(r"\s*=\s*.*$", "", p) if "=" in p and p.count("(") == p.count(")") else p
    name, _, typ = p.partition(":")
    words = name.split()
    label = words[0]
    return label, clean(typ)

def strip_default(p):
    depth = 0
    p = p.replace("->", "\u2192")
    for i, ch in enumerate(p):
        if ch in "([<{": depth += 1
        if ch in ")]>}": depth -= 1
        if ch == "=" and depth == 0 and p[i-1] == " ":
            return p[:i].strip().replace("\u2192", "->")
    return p.replace("\u2192", "->")

emitted, skipped, counts = [], 0, {}
stack = []          # (kind, type name)
pending_accessors = None
skip_else = False
counter = 0

def owner():
    return ".".join(n for _, n in stack if n)

def emit(kind_owner, text):
    global counter
    counter += 1
    counts[kind_owner] = counts.get(kind_owner, 0) + 1
    emitted.append(text)

decl_attr = re.compile(r"^(?:@[\w.]+(?:\([^)]*\))?\s+|public\s+|open\s+|final\s+|dynamic\s+|override\s+"
                       r"|required\s+|convenience\s+|weak\s+|nonisolated\s+|indirect\s+|optional\s+)*")

i = 0
protocol_members = {}
while i < len(lines):
    raw = lines[i]
    line = raw.strip()
    i += 1
    if line.startswith("#if"):
        continue
    if line.startswith("#else"):
        skip_else = True
        continue
    if line.startswith("#endif"):
        skip_else = False
        continue
    if skip_else or not line or line.startswith("//") or line.startswith("import") \
            or line.startswith("@_exported") or line == "@discardableResult" \
            or line.startswith("@available"):
        continue
    if line == "}":
        if stack: stack.pop()
        continue
    body = decl_attr.sub("", line)
    out_of_scope = any(t in line for t in OUT_TYPES) or any(
        re.search(r"\b%s\b" % n, line) for n in OUT_NAMES)
    m = re.match(r"(class|enum|struct|protocol|extension)\s+([\w.]+)(.*)$", body)
    if m:
        kind, name = m.group(1), clean(m.group(2))
        opens = line.endswith("{")
        if not opens:
            continue
        if kind == "extension":
            conform = re.search(r":\s*([\w., ]+?)\s*\{", m.group(3))
            target = name
            if conform:
                for proto in conform.group(1).split(","):
                    p = clean(proto)
                    if any(t.rstrip(".") in proto for t in OUT_TYPES) or p in OUT_NAMES \
                            or p in ("Equatable", "Hashable", "RawRepresentable"):
                        continue
                    emit(target, f"  // {target}: {p}\n  _ = {{ (x: {target}) -> any {p} in x }}")
            stack.append(("extension", target if "." not in name else name))
            if out_of_scope:
                # a CoreBluetooth conformance block: skip its members
                depth = 1
                while depth and i < len(lines):
                    l = lines[i].strip(); i += 1
                    if l.endswith("{"): depth += 1
                    if l == "}": depth -= 1
                    if l.startswith("@objc dynamic public func") or l.startswith("public func"):
                        skipped += 1
                stack.pop()
            continue
        if "_objc_" in name:
            depth = 1
            while depth and i < len(lines):
                l = lines[i].strip(); i += 1
                if l.endswith("{") : depth += 1
                if l == "}": depth -= 1
            skipped += 1
            continue
        full = ".".join([n for _, n in stack] + [name]) if stack else name
        stack.append((kind, name))
        if kind == "protocol":
            protocol_members[full] = []
        if kind == "enum":
            raw_type = re.search(r":\s*([\w.]+)", m.group(3))
            emit(full, f"  _ = {full}.self  // enum {full}" + (f": {clean(raw_type.group(1))}" if raw_type else ""))
        elif kind in ("class", "struct"):
            emit(full, f"  _ = {full}.self  // {kind} {full}")
        continue
    own = owner()
    kind = stack[-1][0] if stack else None
    if body.startswith("case "):
        for case in split_params(body[5:]):
            cname = re.match(r"(\w+)", case).group(1)
            if "(" in case:
                emit(own, f"  _ = {own}.{cname}  // case {case}")
            else:
                emit(own, f"  _ = {own}.{cname} as {own}")
        continue
    if out_of_scope and body.startswith("typealias "):
        skipped += 1
        continue
    if body.startswith(("typealias ", "deinit")) or "hash(into" in body or "hashValue" in body \
            or body.startswith("static func == (a:") or "init?(rawValue:" in body \
            or body.startswith("var rawValue") or body.startswith("get") or body.startswith("set"):
        if body.startswith("var rawValue") or body.startswith("var hashValue"):
            # accessor block follows
            if line.endswith("{"):
                while i < len(lines) and lines[i].strip() != "}": i += 1
                i += 1
        if body.startswith("typealias") and not stack:
            name = body.split()[1]
            emit(name, f"  let _: ({clean(body.split('=',1)[1])}).Type = {name}.self")
        continue
    if out_of_scope:
        skipped += 1
        if line.endswith("{"):
            while i < len(lines) and lines[i].strip() != "}": i += 1
            i += 1
        continue
    is_static = body.startswith("static ")
    body = re.sub(r"^static\s+", "", body)
    target = own or None
    # properties
    inline = re.search(r"\{\s*(get)?\s*(set)?\s*\}\s*$", body)
    inline_set = bool(inline and inline.group(2))
    if inline:
        body = body[:inline.start()].strip()
    pm = re.match(r"(var|let)\s+(\w+)\s*:\s*(.+?)\s*(\{)?$", body)
    if pm:
        decl, name, typ = pm.group(1), pm.group(2), clean(pm.group(3))
        settable = decl == "var" and not pm.group(4) and (not inline or inline_set)
        if pm.group(4):
            acc = []
            while i < len(lines) and lines[i].strip() != "}":
                acc.append(lines[i].strip()); i += 1
            i += 1
            settable = any(a.endswith("set") for a in acc)
        if kind == "protocol" or target in protocol_members:
            if kind == "protocol":
                protocol_members[own].append(("var", name, typ, settable))
            emit(own, f"  func shape{len(emitted)}<P: {target}>(_ p: P) {{ let _: {typ} = p.{name} }}")
            continue
        if is_static or not target:
            if target:
                emit(own, f"  let _: {typ} = {own}.{name}")
            continue
        kp = "ReferenceWritableKeyPath" if settable else "KeyPath"
        if target in ("Data", "Date", "TimeZone", "String", "Int8", "UInt8", "UInt16", "Int16",
                      "UInt32", "UInt64", "Optional", "FileManager"):
            kp = "KeyPath"
        t = "Int?" if target == "Optional" else target
        emit(own, f"  let _: {kp}<{t}, {typ}> = \\{t}.{name}")
        continue
    fm = re.match(r"(func|init\??)\s*(\w*|==)?\s*(<[^>]*>)?\s*\(", body)
    if fm:
        what, name = fm.group(1), fm.group(2) or ""
        start = fm.end()
        depth, j = 1, start
        text = body.replace("->", "\u2192")
        while j < len(text) and depth:
            if text[j] in "([<{": depth += 1
            if text[j] in ")]>}": depth -= 1
            j += 1
        inside = text[start:j - 1].replace("\u2192", "->")
        rest = text[j:].replace("\u2192", "->").strip()
        params = [strip_default(p) for p in split_params(inside)]
        parts = [param_parts(p) for p in params]
        labels = "".join(f"{l}:" for l, _ in parts)
        types = ", ".join(t for _, t in parts)
        throws = "throws " if re.match(r"(async\s+)?throws", rest) else ""
        arrow = rest.find("->")
        result = clean(rest[arrow + 2:]) if arrow >= 0 else "Void"
        if name == "==" or not target:
            if not target and what == "func" and name != "==":
                emit(name, f"  let _: ({types}) {throws}-> {result} = {name}({labels})")
            continue
        t = "Int?" if target == "Optional" else target
        generic = kind == "protocol" or target in protocol_members
        counter_id = len(emitted)
        if what.startswith("init"):
            res = t + ("?" if what == "init?" else "")
            if generic:
                emit(own, f"  func shape{counter_id}<P: {t}>(_ p: P.Type) {{ let _: ({types}) {throws}-> P = P.init({labels}) }}")
            else:
                if labels:
                    emit(own, f"  let _: ({types}) {throws}-> {res} = {t}.init({labels})")
                else:
                    emit(own, f"  let _: () {throws}-> {res} = {{ {'try ' if throws else ''}{t}() }}")
            continue
        ref = f"{name}({labels})" if labels else name
        if generic:
            if kind == "protocol":
                protocol_members[own].append(("func", name, labels, types, result, throws))
            emit(own, f"  func shape{counter_id}<P: {t}>(_ p: P) {{ let _: ({types}) {throws}-> {result} = p.{ref} }}")
        elif is_static:
            emit(own, f"  let _: ({types}) {throws}-> {result} = {t}.{ref}")
        else:
            emit(own, f"  let _: ({t}) -> ({types}) {throws}-> {result} = {t}.{ref}")
        continue
    print(f"unparsed: {line}", file=sys.stderr)

print("// swift-format-ignore-file")
print(f"// Generated by scripts/vendor-shape-check.py from the vendor's {module} interface: do not")
print("// edit. Each statement compiles only if our member has the vendor's exact shape.")
print(f"import {module}")
print("import Foundation")
print("#if canImport(FoundationNetworking)\n  import FoundationNetworking\n#endif\n")
print(f"/// {counter} member shapes of {module}; never run, compiling is the check.")
print(f"func vendorShapes{module}() {{")
print("\n".join(emitted))
print("}")
print(f"{module}: {counter} shape statements, {skipped} out-of-scope members skipped", file=sys.stderr)
for k, v in sorted(counts.items()):
    print(f"  {k}: {v}", file=sys.stderr)
