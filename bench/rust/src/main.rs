//! Rust peers of pilfer's benchmarks: the pool workloads of bench/workloads.hpp written with Rayon (join,
//! scope, spawn, par_iter) and the deque workloads of bench/bench_deque.cpp written with crossbeam-deque,
//! same sizes, same checks, 2 threads. Prints one JSON object per row and line:
//!   {"name": "pool.fib30_join[rayon_join]/t:2", "unit": "ms", "samples": [per-iteration time of each repetition]}
//! Usage: pilfer-rust-peers [--reps N] [--smoke] [--filter SUBSTRING]

use crossbeam_deque::{Steal, Stealer, Worker};
use rayon::ThreadPool;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

struct Sizes {
    fib_n: u32,
    external_tasks: u64,
    skewed_tasks: u64,
    skewed_light: u64,
    pfor_items: usize,
    sort_items: usize,
}

const FULL: Sizes = Sizes { fib_n: 30, external_tasks: 1_000_000, skewed_tasks: 1_000, skewed_light: 5_000, pfor_items: 10_000_000, sort_items: 10_000_000 };
const TINY: Sizes = Sizes { fib_n: 15, external_tasks: 1_000, skewed_tasks: 100, skewed_light: 50, pfor_items: 10_000, sort_items: 20_000 };
const SORT_CUTOFF: usize = 4096;
const THREADS: usize = 2;

struct Bench {
    reps: usize,
    smoke: bool,
    filter: String,
    sz: &'static Sizes,
}

impl Bench {
    /// Runs `body` `iters` times per repetition (after one warm-up call) and prints the row.
    fn row(&self, name: &str, unit: &str, iters: u32, mut body: impl FnMut()) {
        if !name.contains(&self.filter) {
            return;
        }
        let iters = if self.smoke { 1 } else { iters };
        body();
        let scale = if unit == "ms" { 1e3 } else { 1e9 };
        let mut samples = Vec::with_capacity(self.reps);
        for _ in 0..self.reps {
            let t = Instant::now();
            for _ in 0..iters {
                body();
            }
            samples.push(t.elapsed().as_secs_f64() * scale / iters as f64);
        }
        let s: Vec<String> = samples.iter().map(|v| format!("{:.6}", v)).collect();
        println!("{{\"name\": \"{}\", \"unit\": \"{}\", \"samples\": [{}]}}", name, unit, s.join(", "));
    }
}

fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("rayon pool")
}

fn fib_serial(n: u32) -> u64 {
    if n < 2 { n as u64 } else { fib_serial(n - 1) + fib_serial(n - 2) }
}

fn fib_join(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = rayon::join(|| fib_join(n - 1), || fib_join(n - 2));
    a + b
}

fn fib_scope(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (mut a, mut b) = (0, 0);
    rayon::scope(|s| {
        s.spawn(|_| a = fib_scope(n - 1));
        s.spawn(|_| b = fib_scope(n - 2));
    });
    a + b
}

/// One multiply-add per step, as in bench/workloads.hpp: the empty asm keeps LLVM from composing steps.
fn work(steps: u64, mut x: u64) -> u64 {
    for _ in 0..steps {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // SAFETY: an empty asm block that only claims to read and write x.
        unsafe { std::arch::asm!("/* {0} */", inout(reg) x, options(nomem, nostack, preserves_flags)) };
    }
    x
}

fn sort_input(n: usize) -> Vec<i32> {
    let mut x: u64 = 42;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as i32
        })
        .collect()
}

/// Moves the elements satisfying `pred` to the front; returns their count (like std::partition).
fn partition(v: &mut [i32], pred: impl Fn(i32) -> bool) -> usize {
    let mut first = 0;
    for i in 0..v.len() {
        if pred(v[i]) {
            v.swap(first, i);
            first += 1;
        }
    }
    first
}

/// The same quicksort as bench/workloads.hpp: median of three, split into < pivot, == pivot, > pivot,
/// fork both outer parts, sort_unstable below the cutoff.
fn quicksort(v: &mut [i32]) {
    if v.len() <= SORT_CUTOFF {
        v.sort_unstable();
        return;
    }
    let n = v.len();
    let (a, m, z) = (v[0], v[n / 2], v[n - 1]);
    let pivot = a.min(m).max(a.max(m).min(z));
    let m1 = partition(v, |x| x < pivot);
    let m2 = m1 + partition(&mut v[m1..], |x| !(pivot < x));
    let (left, rest) = v.split_at_mut(m1);
    let right = &mut rest[m2 - m1..];
    rayon::join(|| quicksort(left), || quicksort(right));
}

/// Blocks the caller until `count` reaches zero (the task that brings it there notifies).
struct Countdown {
    left: AtomicU64,
    done: Mutex<bool>,
    cv: Condvar,
}
impl Countdown {
    fn new(n: u64) -> Arc<Self> {
        Arc::new(Countdown { left: AtomicU64::new(n), done: Mutex::new(false), cv: Condvar::new() })
    }
    fn arrive(&self) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            *self.done.lock().unwrap() = true;
            self.cv.notify_all();
        }
    }
    fn wait(&self) {
        let mut d = self.done.lock().unwrap();
        while !*d {
            d = self.cv.wait(d).unwrap();
        }
    }
}

fn pool_rows(b: &Bench) {
    let sz = b.sz;
    let expected = fib_serial(sz.fib_n);
    for t in [2usize, 1] {
        let p = pool(t);
        b.row(&format!("pool.fib30_join[rayon_join]/t:{}", t), "ms", 4, || assert_eq!(p.install(|| fib_join(sz.fib_n)), expected));
        b.row(&format!("pool.fib30_spawn2[rayon_scope]/t:{}", t), "ms", 1, || assert_eq!(p.install(|| fib_scope(sz.fib_n)), expected));
    }
    let p = pool(THREADS);
    let ran = Arc::new(AtomicU64::new(0));
    {
        let n = sz.external_tasks;
        b.row("pool.external_1M[rayon_spawn]", "ms", 1, || {
            let c = Countdown::new(n);
            for _ in 0..n {
                let c = c.clone();
                let r = ran.clone();
                p.spawn(move || {
                    r.fetch_add(1, Ordering::Relaxed);
                    c.arrive();
                });
            }
            c.wait();
            assert_eq!(ran.swap(0, Ordering::Relaxed), n);
        });
        b.row("pool.external_1M[rayon_scope]", "ms", 1, || {
            let r = &*ran;
            p.in_place_scope(|s| {
                for _ in 0..n {
                    s.spawn(move |_| {
                        r.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
            assert_eq!(ran.swap(0, Ordering::Relaxed), n);
        });
    }
    let sink = AtomicU64::new(0);
    let steps = |i: u64| if i % 100 == 37 { sz.skewed_light * 1000 } else { sz.skewed_light };
    b.row("pool.skewed[rayon_scope]", "ms", 4, || {
        p.install(|| {
            rayon::scope(|s| {
                for i in 0..sz.skewed_tasks {
                    let sink = &sink;
                    s.spawn(move |_| {
                        sink.fetch_add(work(steps(i), i), Ordering::Relaxed);
                    });
                }
            })
        })
    });
    {
        use rayon::prelude::*;
        let mut a = vec![1u32; sz.pfor_items];
        b.row("pool.pfor_1e7[rayon_par_iter]", "ms", 10, || {
            p.install(|| a.par_iter_mut().enumerate().for_each(|(i, x)| *x = x.wrapping_mul(3).wrapping_add(i as u32)))
        });
        std::hint::black_box(a[a.len() / 2]);
    }
    {
        let input = sort_input(sz.sort_items);
        // The copy of the input stays outside the timed region, as the C++ rows pause their timer around it.
        if "pool.qsort_1e7[rayon_join]".contains(&b.filter) {
            let mut samples = Vec::new();
            for rep in 0..=b.reps {
                let mut v = input.clone();
                let t = Instant::now();
                p.install(|| quicksort(&mut v));
                let ms = t.elapsed().as_secs_f64() * 1e3;
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "not sorted");
                if rep > 0 {
                    samples.push(ms);
                }
            }
            let s: Vec<String> = samples.iter().map(|v| format!("{:.6}", v)).collect();
            println!("{{\"name\": \"pool.qsort_1e7[rayon_join]\", \"unit\": \"ms\", \"samples\": [{}]}}", s.join(", "));
        }
    }
}

const BATCH: u64 = 1024;

fn deque_rows(b: &Bench) {
    // push 1024 then pop them (LIFO)
    let w = Worker::<u64>::new_lifo();
    b.row("deque.push_pop[crossbeam]", "ns", 2000, || {
        for i in 0..BATCH {
            w.push(i);
        }
        let mut sum = 0;
        while let Some(v) = w.pop() {
            sum += v;
        }
        std::hint::black_box(sum);
    });
    b.row("deque.push_pop_one[crossbeam]", "ns", 2000, || {
        for i in 0..BATCH {
            w.push(i);
            std::hint::black_box(w.pop());
        }
    });
    let s = w.stealer();
    b.row("deque.steal_uncontended[crossbeam]", "ns", 2000, || {
        for i in 0..BATCH {
            w.push(i);
        }
        let mut sum = 0;
        loop {
            match s.steal() {
                Steal::Success(v) => sum += v,
                Steal::Empty => break,
                Steal::Retry => {}
            }
        }
        std::hint::black_box(sum);
    });
    for batch in [false, true] {
        let name = if batch { "deque.steal_batch_1thief[crossbeam]" } else { "deque.steal_1thief[crossbeam]" };
        b.row(name, "ns", 20, || steal_contended(batch));
    }
}

/// The owner pushes 65536 items (popping one after every 4th push) while one thief steals (singly, or in
/// batches into its own deque) until the owner is done and the deque is empty; counts are checked.
fn steal_contended(batch: bool) {
    const N: u64 = 1 << 16;
    let w = Worker::<u64>::new_lifo();
    let s: Stealer<u64> = w.stealer();
    let owner_done = Arc::new(AtomicBool::new(false));
    let ready = Arc::new(AtomicBool::new(false));
    let thief = {
        let (owner_done, ready) = (owner_done.clone(), ready.clone());
        std::thread::spawn(move || {
            let dest = Worker::<u64>::new_lifo();
            let mut got = 0u64;
            ready.store(true, Ordering::Release);
            loop {
                let r = if batch { s.steal_batch_and_pop(&dest) } else { s.steal() };
                match r {
                    Steal::Success(_) => {
                        got += 1;
                        while dest.pop().is_some() {
                            got += 1;
                        }
                        continue;
                    }
                    Steal::Retry => continue,
                    Steal::Empty => {}
                }
                if owner_done.load(Ordering::Acquire) {
                    break;
                }
                std::hint::spin_loop();
            }
            got
        })
    };
    while !ready.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    let mut popped = 0u64;
    for i in 0..N {
        w.push(i);
        if i & 3 == 3 && w.pop().is_some() {
            popped += 1;
        }
    }
    while w.pop().is_some() {
        popped += 1;
    }
    owner_done.store(true, Ordering::Release);
    let stolen = thief.join().unwrap();
    assert_eq!(popped + stolen, N, "items lost or duplicated");
}

fn main() {
    let mut b = Bench { reps: 5, smoke: false, filter: String::new(), sz: &FULL };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--reps" if i + 1 < args.len() => {
                b.reps = match args[i + 1].parse() {
                    Ok(n) if n > 0 => n,
                    _ => {
                        eprintln!("pilfer-rust-peers: --reps needs a positive integer, got '{}'", args[i + 1]);
                        std::process::exit(2);
                    }
                };
                i += 1;
            }
            "--filter" if i + 1 < args.len() => {
                b.filter = args[i + 1].clone();
                i += 1;
            }
            "--smoke" => {
                b.smoke = true;
                b.sz = &TINY;
            }
            other => {
                eprintln!("pilfer-rust-peers: unknown argument '{}'; usage: [--reps N] [--smoke] [--filter SUBSTRING]", other);
                std::process::exit(2);
            }
        }
        i += 1;
    }
    deque_rows(&b);
    pool_rows(&b);
}
