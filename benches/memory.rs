//! Memory: heap allocations, bytes allocated and peak extra heap bytes per call of every
//! variant in steady state (a counting global allocator), and peak RSS of `add3` and `cross`
//! against 10^3 .. 10^6 iterations (the paper's Fig. 11b/d), each count in a fresh process.
//!
//! `cargo bench --bench memory` prints the tables and writes them as TSV under
//! `$CARGO_TARGET_DIR/bench-results/`; `cargo bench --bench memory -- GROUP..` measures the
//! heap use of the groups whose names contain one of the words, without the RSS sweep, and
//! writes nothing. Under `cargo test --benches` it runs a quick version
//! and fails if an fsmooth kernel allocates in steady state.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

mod workloads;
use workloads::{Variant, Workload, each_workload, micro, repeat, results};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    ALLOCS.fetch_add(1, Relaxed);
    ALLOCATED.fetch_add(bytes, Relaxed);
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grow(l.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grow(l.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_sub(l.size(), Relaxed);
        grow(n);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap use of one variant per call, in steady state.
struct Use {
    allocs: f64,
    bytes: f64,
    peak: usize,
}

fn measure<W: Workload>(w: &mut W, v: Variant, calls: u64) -> Use {
    repeat(w, v, 2); // steady state: buffers and regions at their size
    let (a0, b0) = (ALLOCS.load(Relaxed), ALLOCATED.load(Relaxed));
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    repeat(w, v, calls);
    Use {
        allocs: (ALLOCS.load(Relaxed) - a0) as f64 / calls as f64,
        bytes: (ALLOCATED.load(Relaxed) - b0) as f64 / calls as f64,
        peak: PEAK.load(Relaxed) - live,
    }
}

fn heap<W: Workload>(calls: u64, filters: &[String], tsv: &mut String, md: &mut String) {
    if !selected(W::GROUP, filters) {
        return;
    }
    let mut w = W::new();
    for &v in W::variants() {
        let u = measure(&mut w, v, calls);
        writeln!(
            tsv,
            "{}\t{}\t{}\t{}\t{}",
            W::GROUP,
            v.name(),
            u.allocs,
            u.bytes,
            u.peak
        )
        .unwrap();
        writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            W::GROUP,
            v.name(),
            u.allocs,
            u.bytes,
            u.peak
        )
        .unwrap();
        if matches!(
            v,
            Variant::Fsmooth
                | Variant::NoViews
                | Variant::Reassociated
                | Variant::SpellingB
                | Variant::SpellingC
        ) {
            assert_eq!(
                u.allocs,
                0.0,
                "{}: fsmooth allocates in steady state",
                W::GROUP
            );
        }
    }
}

/// `VmHWM` (peak resident set) of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

/// The child of the RSS sweep: `iters` calls of one variant, then the peak RSS.
fn rss_child(group: &str, v: Variant, iters: u64) {
    fn run<W: Workload>(group: &str, v: Variant, iters: u64) {
        if W::GROUP == group {
            let mut w = W::new();
            repeat(&mut w, v, iters);
            println!("{}", peak_rss_kib());
        }
    }
    run::<micro::Add3>(group, v, iters);
    run::<micro::Cross>(group, v, iters);
}

fn rss_sweep(counts: &[u64], tsv: &mut String, md: &mut String) {
    let exe = std::env::current_exe().unwrap();
    let header: Vec<String> = counts
        .iter()
        .map(|c| format!("10^{}", c.ilog10()))
        .collect();
    writeln!(md, "| workload | variant | {} |", header.join(" | ")).unwrap();
    writeln!(md, "|---|---|{}", "---:|".repeat(counts.len())).unwrap();
    for group in ["add3", "cross"] {
        for v in workloads::STANDARD {
            let mut row = Vec::new();
            for &n in counts {
                let out = Command::new(&exe)
                    .args(["--rss-child", group, v.name(), &n.to_string()])
                    .output()
                    .expect("the RSS child runs");
                assert!(out.status.success(), "RSS child {group} {} {n}", v.name());
                let kib: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
                writeln!(tsv, "{group}\t{}\t{n}\t{kib}", v.name()).unwrap();
                row.push(kib.to_string());
            }
            writeln!(md, "| {group} | {} | {} |", v.name(), row.join(" | ")).unwrap();
        }
    }
}

/// The exact scratch (f64 slots) each fsmooth kernel asks its region for, per call: the
/// region holds this much from the first call on, and `Region::from_slab` of this length
/// suffices.
fn scratch_table() -> String {
    use workloads::kernels as k;
    use workloads::linalg::{BLUR_H, BLUR_W, LAYER_IN, LAYER_OUT};
    let rows = [
        ("add3", k::add3::scratch_len(micro::ADD3_N)),
        ("cross", k::cross3::SCRATCH_LEN),
        ("ba_project", k::project::SCRATCH_LEN),
        ("ba_reproj", k::reproj_errors::scratch_len(49, 7776, 31843)),
        ("ba_obs", k::ba_obs::objective::scratch_len(49, 7776, 31843)),
        ("hand_c100", k::hand::objective::scratch_len(22, 544, 100)),
        ("gmm_d2_K5", k::gmm_objective::scratch_len(5, 2, 1000)),
        ("gmm_d10_K5", k::gmm_objective::scratch_len(5, 10, 1000)),
        ("matchain_16", k::chain::scratch_len(16)),
        ("matchain_64", k::chain::scratch_len(64)),
        ("blur_256", k::blur::scratch_len(BLUR_W, BLUR_H)),
        ("layer_softmax", k::layer::scratch_len(LAYER_IN, LAYER_OUT)),
        ("kalman", k::kalman::SCRATCH_LEN),
    ];
    let mut md = String::from("| workload | scratch_len (f64 slots) | bytes |\n|---|---:|---:|\n");
    for (g, n) in rows {
        writeln!(md, "| {g} | {n} | {} |", n * 8).unwrap();
    }
    md
}

/// The exact scratch of the kernels of tuples, scans and views (issue 17), with destination
/// views and with `#![fsmooth(views = false)]`.
fn scratch_table_v2() -> String {
    use workloads::kernels_v2 as k;
    use workloads::kernels_v2::no_views as nv;
    use workloads::views::FILTER_SIDE as S;
    let (e4, e6) = (10_000, 1_000_000);
    let rows = [
        ("kalman2", k::kalman2::SCRATCH_LEN, nv::kalman2::SCRATCH_LEN),
        (
            "mean_var_1e4",
            k::mean_var::scratch_len(e4),
            nv::mean_var::scratch_len(e4),
        ),
        (
            "mean_var_1e6",
            k::mean_var::scratch_len(e6),
            nv::mean_var::scratch_len(e6),
        ),
        (
            "biquad_1e4",
            k::biquad::scratch_len(e4),
            nv::biquad::scratch_len(e4),
        ),
        (
            "biquad_1e6",
            k::biquad::scratch_len(e6),
            nv::biquad::scratch_len(e6),
        ),
        (
            "biquad_proj_1e4",
            k::biquad_proj::scratch_len(e4),
            nv::biquad_proj::scratch_len(e4),
        ),
        (
            "biquad_proj_1e6",
            k::biquad_proj::scratch_len(e6),
            nv::biquad_proj::scratch_len(e6),
        ),
        ("ema_1e4", k::ema::scratch_len(e4), nv::ema::scratch_len(e4)),
        ("ema_1e6", k::ema::scratch_len(e6), nv::ema::scratch_len(e6)),
        (
            "concat_1e3",
            k::concat_maps::scratch_len(500, 500),
            nv::concat_maps::scratch_len(500, 500),
        ),
        (
            "concat_1e6",
            k::concat_maps::scratch_len(e6 / 2, e6 / 2),
            nv::concat_maps::scratch_len(e6 / 2, e6 / 2),
        ),
        (
            "smooth3_1e4",
            k::smooth3::scratch_len(e4),
            nv::smooth3::scratch_len(e4),
        ),
        (
            "smooth3_1e6",
            k::smooth3::scratch_len(e6),
            nv::smooth3::scratch_len(e6),
        ),
        (
            "filter3x3_256",
            k::filter3x3::scratch_len(S, S),
            nv::filter3x3::scratch_len(S, S),
        ),
    ];
    let mut md = String::from(
        "| workload | fsmooth scratch_len | fsmooth-noviews scratch_len |\n|---|---:|---:|\n",
    );
    for (g, a, b) in rows {
        writeln!(md, "| {g} | {a} | {b} |").unwrap();
    }
    md
}

/// Group names to run: the command line's words other than flags (none: every group).
fn filters() -> Vec<String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    args.into_iter().filter(|a| !a.starts_with("--")).collect()
}

/// Whether the command line selects workload group `g`.
fn selected(g: &str, filters: &[String]) -> bool {
    filters.is_empty() || filters.iter().any(|f| g.contains(f.as_str()))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--rss-child") {
        let v = Variant::from_name(&args[3]).expect("a variant name");
        rss_child(&args[2], v, args[4].parse().expect("an iteration count"));
        return;
    }
    let full = results::benchmarking();
    let (calls, counts): (u64, &[u64]) = if full {
        (20, &[1_000, 10_000, 100_000, 1_000_000])
    } else {
        (1, &[1_000])
    };

    let mut tsv = String::new();
    let mut md = String::from(
        "| workload | variant | allocations / call | bytes allocated / call | peak extra heap bytes |\n\
         |---|---|---:|---:|---:|\n",
    );
    let filters = filters();
    each_workload!(heap(calls, &filters, &mut tsv, &mut md));
    print!("Heap use per call in steady state ({calls} calls):\n\n{md}\n");

    let scratch = scratch_table();
    print!("fsmooth scratch per call (the region's frame):\n\n{scratch}\n");
    let scratch_v2 = scratch_table_v2();
    print!("Scratch of the tuples, scans and views kernels (f64 slots):\n\n{scratch_v2}\n");
    if !filters.is_empty() {
        // A partial run: no RSS sweep, and the full run's files stay as they are.
        return;
    }

    let mut rss_tsv = String::new();
    let mut rss_md = String::new();
    rss_sweep(counts, &mut rss_tsv, &mut rss_md);
    print!("Peak RSS (KiB) against the number of calls:\n\n{rss_md}");

    if full {
        let dir = results::dir();
        std::fs::write(dir.join("heap.tsv"), tsv).unwrap();
        std::fs::write(dir.join("rss.tsv"), rss_tsv).unwrap();
        std::fs::write(dir.join("scratch.md"), scratch).unwrap();
        std::fs::write(dir.join("scratch_v2.md"), scratch_v2).unwrap();
        println!("\nwritten to {}", dir.display());
    }
}
