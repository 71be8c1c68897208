#!/usr/bin/env python3
"""bench/report.py RAW_DIR OUT_DIR — turns the raw results of scripts/bench.sh into bench/results/:
report.md (targets, ratios to the best peer, cv), results.json, and the gnuplot data + script for the plots.
bench/report.py --noisy CV RAW_DIR — prints the workload groups (row names before "[impl]") whose kept
measurement is noisy: a pilfer row or the best peer's row with cv >= CV. scripts/bench.sh measures those again.

Inputs in RAW_DIR: Google Benchmark JSON (*.json, one per program and round, every repetition kept),
JSON lines from the Rust peers (rust-*.jsonl), the same for re-measured noisy workloads (rerun-K/: each a
measurement of its own, never mixed with another; per workload the one whose worst cv is lowest is kept), bench_memory (memory-*.jsonl), bench_latency (latency-*.jsonl),
callgrind dumps (callgrind/cg.out.*), and meta.env (machine, commit, mode, rounds).
Row names are group[impl]suffix; rows that differ only in [impl] are one workload. Implementations whose name
starts with "pilfer" are pilfer's; "serial" is a one-thread reference, not a peer; the rest are peers."""
import glob
import json
import os
import re
import statistics
import sys

NAME = re.compile(r"^(?P<group>[^\[]+)\[(?P<impl>[^\]]+)\](?P<rest>.*)$")
FIB30_CALLS = 2692537  # calls of fib(30); spawn-both spawns one task per call but the root: 2692536
FIB30_JOINS = 1346268  # internal nodes of fib(30): one join each


def split(name):
    name = re.sub(r"/(iterations:\d+|real_time|min_time:[0-9.]+|repeats:\d+)", "", name)
    m = NAME.match(name)
    if not m:
        return None
    return m.group("group") + m.group("rest"), m.group("impl")


def to_ns(value, unit):
    return value * {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def group_of(name):
    """The workload group a row belongs to: its name before "[impl]" (what scripts/bench.sh re-measures)."""
    return name.split("[", 1)[0]


def load_timings(raw, groups=None):
    """(workload, impl) -> [ns] from the Google Benchmark JSON and the Rust peers' JSON lines in `raw`, and
    workload -> its group. A row name lacking "[impl]" is skipped."""
    samples = {}

    def add(name, ns):
        key = split(name)
        if key:
            samples.setdefault(key, []).append(ns)
            if groups is not None:
                groups[key[0]] = group_of(name)

    for path in sorted(glob.glob(os.path.join(raw, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            if b.get("run_type") != "iteration" or b.get("error_occurred"):
                continue
            add(b["name"], to_ns(b["real_time"], b.get("time_unit", "ns")))
    for path in sorted(glob.glob(os.path.join(raw, "rust-*.jsonl"))):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    for v in r["samples"]:
                        add(r["name"], to_ns(v, r["unit"]))
    return samples


def load(raw):
    groups = {}
    samples = load_timings(raw, groups)
    memory, latency = {}, {}
    for path in sorted(glob.glob(os.path.join(raw, "memory-*.jsonl"))):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    memory.setdefault(split(r["name"])[1], []).append((r["bytes_per_task"], r["peak_rss_mb"]))
    for path in sorted(glob.glob(os.path.join(raw, "latency-*.jsonl"))):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    latency.setdefault(split(r["name"])[1], []).extend(r["samples"])
    icount = {}
    for path in sorted(glob.glob(os.path.join(raw, "callgrind", "cg.out.*"))):
        label, total = None, None
        with open(path) as f:
            for line in f:
                if line.startswith("desc: Trigger: Client Request: "):
                    label = line[len("desc: Trigger: Client Request: "):].strip()
                elif line.startswith("totals:"):
                    total = int(line.split()[1])
        if label and total is not None:
            icount[label] = total
    return samples, groups, memory, latency, icount


def stats(v):
    med = statistics.median(v)
    cv = statistics.pstdev(v) / statistics.mean(v) if len(v) > 1 else 0.0
    return med, cv


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def is_pilfer(impl):
    return impl.startswith("pilfer")


def rows_of(samples):
    """workload -> impl -> (median, cv, samples)."""
    rows = {}
    for (w, impl), v in samples.items():
        rows.setdefault(w, {})[impl] = (*stats(v), len(v))
    return rows


def best_peer_of(impls):
    peers = [(m[0], i) for i, m in impls.items() if not is_pilfer(i) and i != "serial"]
    return min(peers) if peers else (None, None)


def worst_cv(impls):
    """The noise that matters in one workload's measurement: the largest cv among pilfer's rows and the best
    peer's row (a slow peer's noise moves no ratio in the report)."""
    _, bi = best_peer_of(impls)
    return max((impls[i][1] for i in impls if is_pilfer(i) or i == bi), default=0.0)


def keep_least_noisy(raw, rows):
    """Replaces each workload's rows by the least noisy of its measurements (RAW/rerun-K/, K = 1, 2, ...).
    A re-measurement that lacks an implementation of the first one (it crashed there) is not a candidate.
    Returns workload -> (worst cv of each measurement in order, index kept: 0 = the first)."""
    notes = {}
    k = 1
    while os.path.isdir(os.path.join(raw, f"rerun-{k}")):
        again = rows_of(load_timings(os.path.join(raw, f"rerun-{k}")))
        for w, impls in again.items():
            if w not in rows:
                continue
            cvs, kept = notes.get(w, ([worst_cv(rows[w])], 0))
            cvs = cvs + [worst_cv(impls)]
            if set(impls) >= set(rows[w]) and cvs[-1] < cvs[kept]:
                rows[w] = impls
                kept = len(cvs) - 1
            notes[w] = (cvs, kept)
        k += 1
    return notes


def print_noisy(cv_limit, raw):
    groups = {}
    rows = rows_of(load_timings(raw, groups))
    keep_least_noisy(raw, rows)
    noisy = sorted({groups[w] for w, impls in rows.items() if worst_cv(impls) >= cv_limit})
    for g in noisy:
        print(g)


def capacity_lines(meta):
    """The machine's parallel speed before and after the rows (bench/parallel_capacity.cpp), and a warning
    when it was well below the core count: then 2-thread rows and speed-ups measure the machine."""
    try:
        cores = int(meta.get("cores", "0"))
        readings = [float(meta[k]) for k in ("capacity_start", "capacity_end") if meta.get(k)]
    except ValueError:
        return ["Parallel capacity: not measured (unreadable reading).\n"]
    if not readings or cores <= 0:
        return ["Parallel capacity: not measured.\n"]
    text = " and ".join(f"{c:.2f}" for c in readings)
    lines = [f"Parallel capacity (bench/parallel_capacity.cpp: {cores} CPU-bound threads against one, in cores' worth "
             f"of speed): {text} at the start and end of the run.  "]
    if min(readings) < 0.75 * cores:
        lines.append(f"**Warning: this machine gave {min(readings):.2f} cores' worth of speed to {cores} threads during "
                     "the run, so multi-threaded rows, speed-ups and 2-against-1-thread ratios here measure the "
                     "machine, not the code. Compare single-thread rows and instruction counts, or rerun on a machine "
                     "whose cores are free.**\n")
    else:
        lines.append("\n")
    return lines


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--noisy":
        print_noisy(float(sys.argv[2]), sys.argv[3])
        return
    if len(sys.argv) != 3:
        sys.exit("usage: bench/report.py RAW_DIR OUT_DIR | bench/report.py --noisy CV RAW_DIR")
    raw, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    meta = {}
    with open(os.path.join(raw, "meta.env")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    samples, _, memory, latency, icount = load(raw)
    rows = rows_of(samples)  # workload -> impl -> (median, cv, n)
    remeasured = keep_least_noisy(raw, rows)

    def med(w, impl):
        return rows.get(w, {}).get(impl, (None,))[0]

    def best_peer(w):
        return best_peer_of(rows.get(w, {}))

    # ---------------------------------------------------------------- targets (issue 11)
    targets = []

    def target(what, goal, value, ok, note=""):
        targets.append({"workload": what, "target": goal, "value": value, "met": ok, "note": note})

    def ratio_target(what, w, peer, limit, pilfer_impl="pilfer", goal=None):
        a, b = med(w, pilfer_impl), med(w, peer)
        if a is None or b is None:
            target(what, goal or f"≤ {limit}× {peer}", "not measured", None)
            return
        r = a / b
        target(what, goal or f"≤ {limit}× {peer}", f"{r:.2f}× {peer} ({fmt_time(a)} vs {fmt_time(b)})", r <= limit)

    ratio_target("fib(30) spawn-both, 2 threads", "pool.fib30_spawn2/t:2", "tbb_task_group", 0.5)
    a, b = med("pool.fib30_spawn2/t:2", "pilfer"), med("pool.fib30_spawn2/t:1", "pilfer")
    if a and b:
        target("fib(30) spawn-both, 2 vs 1 thread", "≤ 0.55× 1 thread", f"{a / b:.2f}× ({fmt_time(a)} vs {fmt_time(b)})", a / b <= 0.55)
    ratio_target("fib(30) join, 2 threads", "pool.fib30_join/t:2", "rayon_join", 1.0)
    w = "pool.external_1M"
    bp, bi = best_peer(w)
    for impl in ("pilfer", "pilfer_spawn"):
        a = med(w, impl)
        if a and bp:
            target(f"1M external tasks ({impl})", f"≥ best peer's rate ({bi})", f"{bp / a:.2f}× {bi}'s rate ({fmt_time(a)} vs {fmt_time(bp)})", a <= bp)
        tg = med(w, "tbb_task_group")
        if a and tg:
            target(f"1M external tasks ({impl})", "≥ 2× oneTBB task_group's rate", f"{tg / a:.2f}× ({fmt_time(a)} vs {fmt_time(tg)})", tg / a >= 2.0)
    for w, what in (("deque.steal_1thief", "deque steal, 1 owner + 1 thief"), ("deque.steal_batch_1thief", "deque batch steal, 1 owner + 1 thief"),
                    ("deque.push_pop_one", "deque push+pop pair")):
        ratio_target(what, w, "crossbeam", 1.0)
    a, s = med("pool.skewed", "pilfer"), med("pool.skewed", "serial")
    if a and s:
        ideal = s / 2
        target("skewed load (1% 1000× heavier)", "≤ 1.01× ideal (serial / 2)", f"{a / ideal:.3f}× ideal ({fmt_time(a)} vs {fmt_time(ideal)})", a <= 1.01 * ideal)
    ratio_target("parallel_for 10^7 cheap items", "pool.pfor_1e7", "tbb_parallel_for", 1.0)
    ratio_target("parallel quicksort 10^7 ints", "pool.qsort_1e7", "tbb_parallel_invoke", 1.0)
    # Task graphs (issue 12): pilfer against the faster of oneTBB flow_graph's two forms (a worker runs the
    # sources / the calling thread joins the arena and runs them), one run and 100 runs of the same graph.
    for label, what in (("wide1000", "graph: 1000 independent tasks"), ("deep100x10", "graph: 100 stages × 10 tasks"),
                        ("random2000", "graph: random DAG, 2000 tasks"), ("chain1000", "graph: chain of 1000 tasks")):
        for suffix, runs in (("", "one run"), ("x100", "100 runs")):
            w = f"graph.{label}{suffix}"
            tbb = [(med(w, i), i) for i in ("tbb", "tbb_caller") if med(w, i) is not None]
            if tbb:
                ratio_target(f"{what}, {runs}", w, min(tbb)[1], 1.0, goal="≤ 1.0× oneTBB flow_graph (faster form)")
            else:
                target(f"{what}, {runs}", "≤ 1.0× oneTBB flow_graph (faster form)", "not measured", None)
    mem = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in memory.items()}
    if "pilfer" in mem and "tbb_arena_enqueue" in mem:
        p, t = mem["pilfer"], mem["tbb_arena_enqueue"]
        target("memory per queued task", "≤ oneTBB", f"{p[0]:.0f} B vs {t[0]:.0f} B", p[0] <= t[0])
        target("peak RSS, 1M queued tasks", "≤ oneTBB", f"{p[1]:.1f} MB vs {t[1]:.1f} MB", p[1] <= t[1])
    lat = {}
    for k, v in latency.items():
        v = sorted(v)
        lat[k] = (statistics.median(v), v[min(len(v) - 1, int(0.99 * len(v)))], len(v))
    if "pilfer" in lat and "tbb_arena_enqueue" in lat:
        p, t = lat["pilfer"], lat["tbb_arena_enqueue"]
        target("submit-to-start on a parked pool", "reported next to oneTBB", f"median {p[0]:.1f} µs / p99 {p[1]:.1f} µs vs oneTBB {t[0]:.1f} / {t[1]:.1f} µs", None)

    # ---------------------------------------------------------------- report.md
    L = []
    L.append("# pilfer benchmark results\n")
    L.append(f"Taken {meta.get('date', '?')} at commit `{meta.get('commit', '?')}` by `scripts/bench.sh {meta.get('mode', '')}` "
             f"({meta.get('rounds', '?')} interleaved rounds × {meta.get('reps', '?')} repetitions per row; "
             f"run time {meta.get('seconds', '?')} s).  ")
    L.append(f"Machine: {meta.get('cpu', '?')}, {meta.get('cores', '?')} cores, {meta.get('kernel', '?')}; load average at start "
             f"{meta.get('load_start', '?')}, at end {meta.get('load_end', '?')} — shared with other jobs, so only ratios within "
             "this run mean anything. Compilers: " + meta.get("compilers", "?") + ".\n")
    L.extend(capacity_lines(meta))
    L.append("Every pool runs 2 executing threads unless the row says t:1. median = median over all repetitions of all rounds; "
             "cv = coefficient of variation over the same samples (a row with cv ≥ 0.2 is noise-dominated). "
             "ratio = median / median of the best peer (below 1: faster than every peer).\n")
    L.append("## Targets (issue 11)\n")
    L.append("| workload | target | measured | met |")
    L.append("|---|---|---|---|")
    for t in targets:
        met = "—" if t["met"] is None else ("yes" if t["met"] else "**no**")
        L.append(f"| {t['workload']} | {t['target']} | {t['value']} | {met} |")
    L.append("")
    call = med("pool.fib30_call", "serial")
    if call:
        L.append("## A spawn against a function call\n")
        L.append(f"fib(30) as plain calls: {fmt_time(call)} ({call / FIB30_CALLS:.2f} ns per call).  ")
        for w, n, what in (("pool.fib30_spawn2/t:1", FIB30_CALLS - 1, "spawn through task_group (spawn-both), 1 thread"),
                           ("pool.fib30_join/t:1", FIB30_JOINS, "pilfer::join, 1 thread")):
            for impl in sorted(rows.get(w, {})):
                m = rows[w][impl][0]
                per = (m - call) / n
                L.append(f"{what}, {impl}: {per:.1f} ns per spawn above the calls = {per / (call / FIB30_CALLS):.0f}× a call "
                         f"(whole run {m / call:.1f}× the call-only time).  ")
        L.append("")
    failures = []
    fpath = os.path.join(raw, "failures.tsv")
    if os.path.exists(fpath):
        with open(fpath) as f:
            failures = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    if failures:
        L.append("## Rows that crashed, hung or got a wrong result\n")
        L.append("A row that fails is that implementation's verdict on the workload (its other rounds, if any, are "
                 "in the table below); the row's stderr is kept in raw/.\n")
        L.append("| row | round | what happened |")
        L.append("|---|---|---|")
        for row in failures:
            L.append("| " + " | ".join(row[:3]) + " |")
        L.append("")
    if remeasured:
        L.append("## Re-measured workloads\n")
        L.append(f"A workload whose pilfer row or best peer's row had cv ≥ {meta.get('noisy_cv', '0.2')} was measured again "
                 "(every implementation, interleaved rounds of their own). Each measurement stands alone; the table "
                 "below and the targets use the one whose worst cv (pilfer rows and best peer) is lowest.\n")
        L.append("| workload | worst cv of each measurement | kept |")
        L.append("|---|---|---|")
        for w in sorted(remeasured):
            cvs, kept = remeasured[w]
            L.append(f"| {w} | {' → '.join(f'{c:.2f}' for c in cvs)} | {'the first' if kept == 0 else f're-measure {kept}'} |")
        L.append("")
    L.append("## All rows\n")
    L.append("| workload | implementation | median | cv | ratio to best peer |")
    L.append("|---|---|---|---|---|")
    for w in sorted(rows):
        bp, bi = best_peer(w)
        for impl in sorted(rows[w], key=lambda i: rows[w][i][0]):
            m, cv, n = rows[w][impl]
            r = f"{m / bp:.2f}" if bp else "—"
            name = f"**{impl}**" if is_pilfer(impl) else impl
            flag = " (noisy)" if cv >= 0.2 else ""
            L.append(f"| {w} | {name} | {fmt_time(m)} | {cv:.2f}{flag} | {r}{' (best peer)' if impl == bi else ''} |")
    L.append("")
    if mem:
        L.append("## Memory: 1M tasks queued behind 2 blocked workers (fresh process each)\n")
        L.append("| implementation | bytes per queued task | peak RSS (MB) |")
        L.append("|---|---|---|")
        for k in sorted(mem, key=lambda k: mem[k][0]):
            L.append(f"| {k} | {mem[k][0]:.0f} | {mem[k][1]:.1f} |")
        L.append("")
    if lat:
        L.append("## Submit-to-start latency on a parked pool\n")
        L.append("| implementation | median (µs) | p99 (µs) | samples |")
        L.append("|---|---|---|---|")
        for k in sorted(lat, key=lambda k: lat[k][0]):
            L.append(f"| {k} | {lat[k][0]:.1f} | {lat[k][1]:.1f} | {lat[k][2]} |")
        L.append("")
    if icount:
        ops = int(meta.get("icount_ops", "1000"))
        L.append(f"## Instructions per operation (callgrind, {ops} operations each, one thread)\n")
        L.append("| operation | implementation | instructions per op |")
        L.append("|---|---|---|")
        for label in sorted(icount):
            op, impl = split(label) or (label, "?")
            L.append(f"| {op} | {impl} | {icount[label] / ops:.1f} |")
        L.append("")
    L.append("## Plots\n")
    L.append("![time relative to the best peer](ratios.png)\n")
    L.append("![speed-up from 1 to 2 threads](speedup.png)\n")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(L) + "\n")

    # ---------------------------------------------------------------- results.json
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "targets": targets,
                   "rows": [{"workload": w, "impl": i, "median_ns": m, "cv": cv, "samples": n}
                            for w in sorted(rows) for i, (m, cv, n) in sorted(rows[w].items())],
                   "memory": {k: {"bytes_per_task": v[0], "peak_rss_mb": v[1]} for k, v in mem.items()},
                   "latency_us": {k: {"median": v[0], "p99": v[1], "samples": v[2]} for k, v in lat.items()},
                   "instructions": icount,
                   "remeasured": {w: {"worst_cv": cvs, "kept": kept} for w, (cvs, kept) in remeasured.items()},
                   "failures": [{"row": r[0], "round": r[1], "what": r[2]} for r in failures if len(r) >= 3]}, f, indent=1)

    # ---------------------------------------------------------------- plot data (gnuplot)
    all_families = ["pilfer", "tbb", "omp_gomp", "omp_llvm", "rayon", "crossbeam", "moodycamel", "mutex_worker_pool", "single_queue_pool", "mutex_deque"]
    all_colors = ["#7b3294", "#1b9e77", "#56b4e9", "#e69f00", "#d6c21a", "#0072b2", "#d55e00", "#333333", "#cc79a7", "#999999"]

    def family(impl):
        for fam in all_families:
            if impl.startswith(fam):
                return fam
        return None

    # Only the families this run measured get a column (a subset run plots no empty series), each in its own colour.
    measured = {family(i) for w in rows for i in rows[w]}
    families = [f for f in all_families if f in measured]
    colors = " ".join(c for f, c in zip(all_families, all_colors) if f in measured)

    with open(os.path.join(out, "ratios.dat"), "w") as f:
        f.write("workload " + " ".join(families) + "\n")
        for w in sorted(rows):
            bp, _ = best_peer(w)
            if not bp or w.startswith("injector.mpmc"):
                continue
            best = {}
            for impl, (m, _, _) in rows[w].items():
                fam = family(impl)
                if fam:
                    best[fam] = min(best.get(fam, float("inf")), m / bp)
            f.write(w.replace(" ", "_") + " " + " ".join(f"{best[x]:.4f}" if x in best else "-" for x in families) + "\n")
    with open(os.path.join(out, "speedup.dat"), "w") as f:
        f.write("implementation fib30_spawn2 fib30_join\n")
        impls = sorted({i for w in ("pool.fib30_spawn2/t:1", "pool.fib30_join/t:1") for i in rows.get(w, {})})
        for impl in impls:
            vals = []
            for g in ("pool.fib30_spawn2", "pool.fib30_join"):
                a, b = med(g + "/t:1", impl), med(g + "/t:2", impl)
                vals.append(f"{a / b:.3f}" if a and b else "-")
            f.write(impl + " " + " ".join(vals) + "\n")
    title = f"{meta.get('cpu', '')}, {meta.get('cores', '?')} cores, commit {meta.get('commit', '?')}"
    with open(os.path.join(out, "plots.gp"), "w") as f:
        f.write(f"""set terminal pngcairo size 1400,700 noenhanced
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set xtics rotate by 30 right scale 0
set grid ytics
set logscale y 2
set output 'ratios.png'
set title "time relative to the best peer (lower is faster; 1 = best peer) — {title}"
colors = "{colors}"
plot for [c=2:{len(families) + 1}] 'ratios.dat' using c:xtic(1) title columnheader(c) lc rgb word(colors, c - 1)
unset logscale y
set output 'speedup.png'
set title "speed-up from 1 to 2 threads, fib(30) — {title}"
set yrange [0:*]
plot for [c=2:3] 'speedup.dat' using c:xtic(1) title columnheader(c) lc rgb word(colors, c - 1)
""")


if __name__ == "__main__":
    main()
