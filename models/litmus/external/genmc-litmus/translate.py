#!/usr/bin/env python3
"""Translate GenMC's tests/correct/litmus/<T>/ (C11 + pthreads) into herd7-style C litmus
files for pilfer-litmus, and write expected.tsv with GenMC's published RC11 execution counts
(expected.rc11.mo.in). Provenance and the translation rules: README.md next to this file.

usage: translate.py GENMC_GIT_DIR COMMIT OUT_DIR
Reads the repository with `git show COMMIT:path` (no work tree needed)."""
import re, subprocess, sys

git_dir, commit, out = sys.argv[1], sys.argv[2], sys.argv[3]
BASE = "tests/correct/litmus"

def show(path):
    r = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None

def ls(path):
    r = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only", commit, path + "/"],
                       capture_output=True, text=True)
    return [l.split("/")[-1] for l in r.stdout.split()]

def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", "", s, flags=re.S)
    return re.sub(r"//[^\n]*", "", s)

GLOBAL = re.compile(r"^\s*((?:_Atomic\s*\(\s*\w+\s*\)|[\w ]+?))\s+(\w+)\s*(\[\s*(\d+)\s*\])?\s*(=\s*([-\w]+))?\s*;\s*$")

def translate(name):
    d = f"{BASE}/{name}"
    files = ls(d)
    if "expected.rc11.mo.in" not in files:
        return None, "no expected.rc11.mo.in"
    expected = show(f"{d}/expected.rc11.mo.in").strip()
    variants = [v for v in ls(f"{d}/variants") if v.endswith(".c")]
    if not variants:
        return None, "no variant"
    main = show(f"{d}/variants/{sorted(variants)[0]}")
    inc = re.search(r'#include\s+"\.\./([^"]+)"', main)
    if not inc:
        return None, "variant includes no test body"
    body = strip_comments(show(f"{d}/{inc.group(1)}"))
    # Simple object-like macros (#define mo_rlx memory_order_relaxed) are expanded.
    for m in re.findall(r"^#define\s+(\w+)\s+(\w+)\s*$", body, flags=re.M):
        body = re.sub(r"\b%s\b" % m[0], m[1], body.replace(f"#define {m[0]} {m[1]}", ""))
    if re.search(r"^\s*(?:void|int|static\s+\w+)\s+\w+\s*\((?!\s*void\s*\*)[^)]*\)\s*\{", body, flags=re.M):
        return None, "helper function (calls are not translated)"

    main = strip_comments(main)
    creates = re.findall(r"pthread_create\s*\(\s*&?[\w\[\]]+\s*,\s*\w+\s*,\s*(\w+)\s*,\s*([^)]*)\)", main)
    if "for" in main.split("main", 1)[1] or not creates:
        return None, "threads created in a loop or not at all"
    # Globals (outside functions).
    depth, top = 0, []
    line = ""
    for ch in body:
        if ch == "{": depth += 1
        if depth == 0: line += ch
        if ch == "}": depth -= 1
    globs = {}
    for l in line.split("\n"):
        l = l.strip()
        if not l or l.startswith("#") or "(" in l and "_Atomic" not in l:
            continue
        multi = re.match(r"^\s*((?:atomic_\w+|int|unsigned|_Atomic\s*\(\s*\w+\s*\)))\s+(\w+(?:\s*,\s*\w+)+)\s*;\s*$", l)
        if multi:
            for n in re.split(r"\s*,\s*", multi.group(2)):
                globs[n] = (multi.group(1), None, "0")
            continue
        m = GLOBAL.match(l)
        if not m:
            continue
        ty, n, arr, size, _, init = m.groups()
        globs[n] = (ty.strip(), int(size) if size else None, init or "0")
    funcs = dict(re.findall(r"void\s*\*\s*(\w+)\s*\(\s*void\s*\*\s*\w*\s*\)\s*(\{(?:[^{}]|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})*\})", body, flags=re.S))
    threads = []
    for fn, arg in creates:
        if fn not in funcs:
            return None, f"thread function {fn} not found"
        code = funcs[fn]
        if re.search(r"\barg\b|\bunused\b", code.replace("void *unused", "")) and "arg" in code:
            return None, "thread uses its argument"
        threads.append(code)
    if not globs:
        return None, "no globals"
    if re.search(r"\b(malloc|free|pthread_mutex|pthread_join|struct|while|for)\b", "".join(threads)):
        return None, "mutex/heap/loop/struct not translated"
    decls = []
    for n, (ty, size, init) in globs.items():
        atomic = "atomic" in ty or "_Atomic" in ty
        if size:
            decls.append(f"{'atomic_int' if atomic else 'int'} {n}[{size}];")
        else:
            decls.append(f"{n} = {init};")
    out_threads = []
    for i, code in enumerate(threads):
        code = code.strip()[1:-1]
        code = re.sub(r"\breturn\s+NULL\s*;", "", code)
        code = re.sub(r"\bassert\s*\((?:[^()]|\([^()]*\))*\)\s*;", "", code)
        code = re.sub(r"__VERIFIER_assume\s*\(", "assume(", code)
        # Globals used by name become *name (arrays stay; &name and call arguments stay).
        def repl(m):
            n = m.group(2)
            if n not in globs or globs[n][1]:
                return m.group(0)
            return m.group(1) + "*" + n
        # a global name not preceded by '&', '*', '.', '->' or a word character
        code = re.sub(r"(^|[^&*\w.>])(\w+)\b(?!\s*\()", lambda m: repl(m) if m.group(2) in globs else m.group(0), code)
        # call arguments: atomic_*(*x, ...) → atomic_*(&x, ...) is the same location; our parser
        # accepts *x as well (LKMM style), so nothing else to do.
        params = ", ".join(f"{'atomic_int' if ('atomic' in t or '_Atomic' in t) else 'int'}* {n}"
                           for n, (t, s, _) in globs.items())
        out_threads.append(f"P{i} ({params}) {{{code}}}\n")
    text = f"C {name}\n\"GenMC tests/correct/litmus/{name} at {commit[:12]} (translated, see README.md)\"\n"
    text += "{ " + " ".join(decls) + " }\n\n" + "\n".join(out_threads) + "\nexists (true)\n"
    return (text, expected), None

names = [l.split("/")[-1] for l in subprocess.run(
    ["git", "--git-dir", git_dir, "ls-tree", "-d", "--name-only", commit, BASE + "/"],
    capture_output=True, text=True).stdout.split()]
rows, skipped = [], []
for n in sorted(names):
    res, why = translate(n)
    if res is None:
        skipped.append((n, why))
        continue
    text, exp = res
    fname = n + ".litmus"
    open(f"{out}/{fname}", "w").write(text)
    rows.append((fname, exp))
with open(f"{out}/expected.tsv", "w") as f:
    f.write("#model c++20\n")  # GenMC's RC11 follows C++20 for release sequences and SC (README.md)
    f.write(f"# GenMC {commit} tests/correct/litmus/*/expected.rc11.mo.in: complete executions under GenMC's RC11\n")
    f.write("# (translated by translate.py; see README.md). Column result = executions:N.\n")
    f.write("file\tresult\tstates\tsource\n")
    for fname, exp in rows:
        f.write(f"{fname}\texecutions:{exp}\t-\tGenMC expected.rc11.mo.in\n")
with open(f"{out}/skipped.tsv", "w") as f:
    f.write("# GenMC litmus tests not translated (translate.py), with the reason\nfile\treason\n")
    for n, why in skipped:
        f.write(f"{n}\t{why}\n")
print(f"translated {len(rows)}, skipped {len(skipped)}")
