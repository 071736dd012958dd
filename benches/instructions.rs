//! Instruction counts per call (callgrind), the stable figure on a shared machine.
//!
//! `cargo bench --bench instructions` runs this executable under `valgrind --tool=callgrind`
//! once per workload with no calls (the setup alone) and once per variant with N calls;
//! the difference over N is the count per call. It prints the table and writes it as TSV
//! under `$CARGO_TARGET_DIR/bench-results/`; `cargo bench --bench instructions -- GROUP..`
//! measures the groups whose names contain one of the words and writes nothing. Under
//! `cargo test --benches` it only runs each variant once, without valgrind.

use std::fmt::Write as _;
use std::process::Command;

mod probes;
mod workloads;
use workloads::{Variant, Workload, each_workload, repeat, results};

/// Calls per measured run: enough to drown the noise of the setup, few enough for valgrind.
fn calls<W: Workload>() -> u64 {
    match W::GROUP {
        "ba_reproj" | "ba_obs" | "ba_obs_random" | "gmm_d10_K5" => 3,
        "gmm_grad_d2_K5" | "gmm_grad_d10_K5" | "gmm_grad_d20_K5" | "gmm_d20_K5" | "ba_jacobian" => {
            1
        }
        // (Its num-dual variant takes 14 ms a call.)
        "ba_jacobian_vjp" => 3,
        "hand_c100" => 100,
        "gmm_d2_K5" | "matchain_64" | "blur_256" => 10,
        "layer_softmax" | "matchain_16" => 200,
        "mlp_loss" | "cg_poisson" => 20,
        // (kmeans_1e3's spelling C copies all the labels per point: 1.6e7 instructions a call.)
        "mlp_grad" | "kmeans_1e3" => 10,
        "histogram_1e4" => 200,
        g if g.ends_with("_1e6") => 3,
        g if g.ends_with("_1e4") || g == "filter3x3_256" || g == "filter_clamped_256" => 20,
        "concat_1e3" | "jacobi_1e3" => 200,
        _ => 2000,
    }
}

/// The child: build the workload (which runs every variant once), then `iters` calls.
fn child<W: Workload>(group: &str, v: Variant, iters: u64) {
    if W::GROUP == group {
        let mut w = W::new();
        repeat(&mut w, v, iters);
    }
}

/// Instructions executed by the child, as callgrind counts them.
fn callgrind(group: &str, v: Variant, iters: u64) -> u64 {
    callgrind_args(&["--child", group, v.name(), &iters.to_string()])
}

/// Instructions executed by this executable run with `args` under callgrind.
fn callgrind_args(args: &[&str]) -> u64 {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(&exe)
        .args(args)
        .output()
        .expect("valgrind runs (apt-get install valgrind)");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "valgrind failed:\n{err}");
    err.lines()
        .find_map(|l| {
            l.split_once("Collected :")
                .map(|(_, n)| n.trim().to_string())
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `Collected :` line in callgrind's output:\n{err}"))
}

/// Group names to measure: the command line's words other than flags (none: every group).
fn filters(args: &[String]) -> Vec<&str> {
    args.iter()
        .skip(1)
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect()
}

/// The tables being written: the paper's workloads (every variant a column) and those of
/// tuples, scans and views (fsmooth, hand-written, fsmooth without views).
struct Tables<'a> {
    filters: Vec<&'a str>,
    tsv: String,
    md: String,
    md_v2: String,
}

fn measure<W: Workload>(t: &mut Tables) {
    if !t.filters.is_empty() && !t.filters.iter().any(|f| W::GROUP.contains(f)) {
        return;
    }
    let n = calls::<W>();
    let base = callgrind(W::GROUP, Variant::Fsmooth, 0);
    let mut per_call = Vec::new();
    for &v in W::variants() {
        let total = callgrind(W::GROUP, v, n);
        let ir = total.saturating_sub(base) as f64 / n as f64;
        per_call.push((v, ir));
        writeln!(t.tsv, "{}\t{}\t{ir:.0}", W::GROUP, v.name()).unwrap();
    }
    let get = |want: Variant| per_call.iter().find(|(v, _)| *v == want).map(|p| p.1);
    let fs = get(Variant::Fsmooth).unwrap();
    if let Some(r) = get(Variant::Reassociated) {
        eprintln!(
            "{}: fsmooth-reassoc {r:.0} instructions per call ({:.3} of fsmooth's)",
            W::GROUP,
            r / fs
        );
    }
    if let Some(nd) = get(Variant::NumDual) {
        eprintln!(
            "{}: num-dual {nd:.0} instructions per call ({:.1} times fsmooth's)",
            W::GROUP,
            nd / fs
        );
    }
    // Other spellings of the same computation: the workload is judged by its worst.
    let mut worst = fs;
    for v in [Variant::SpellingB, Variant::SpellingC] {
        if let Some(sp) = get(v) {
            worst = worst.max(sp);
            eprintln!(
                "{}: {} {sp:.0} instructions per call ({:.3} of fsmooth's)",
                W::GROUP,
                v.name(),
                sp / fs
            );
        }
    }
    if worst > fs {
        eprintln!(
            "{}: worst spelling {worst:.0} instructions per call",
            W::GROUP
        );
    }
    if let (Some(dynamic), Some(b)) = (get(Variant::HandDyn), get(Variant::SpellingB)) {
        eprintln!(
            "{}: hand-dyn {dynamic:.0} instructions per call (spelling B {:.3} of it)",
            W::GROUP,
            b / dynamic
        );
    }
    // A workload of fsmooth alone (a gradient, compared with its objective's row).
    let Some(hand) = get(Variant::Hand) else {
        eprintln!("{}: fsmooth {fs:.0} instructions per call", W::GROUP);
        return;
    };
    if let Some(nv) = get(Variant::NoViews) {
        writeln!(
            t.md_v2,
            "| {} | {fs:.0} | {hand:.0} | {nv:.0} | {:.3} | {:.3} |",
            W::GROUP,
            fs / hand,
            nv / hand
        )
        .unwrap();
        eprintln!("{}: done", W::GROUP);
        return;
    }
    let cells: Vec<String> = workloads::ALL[..9]
        .iter()
        .map(|&v| get(v).map_or("".into(), |ir| format!("{ir:.0}")))
        .collect();
    let ratio = fs / hand;
    writeln!(
        t.md,
        "| {} | {} | {ratio:.3} |",
        W::GROUP,
        cells.join(" | ")
    )
    .unwrap();
    eprintln!("{}: done", W::GROUP);
}

fn smoke<W: Workload>() {
    let mut w = W::new();
    for &v in W::variants() {
        repeat(&mut w, v, 1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        let v = Variant::from_name(&args[3]).expect("a variant name");
        let iters = args[4].parse().expect("an iteration count");
        each_workload!(child(&args[2], v, iters));
        return;
    }
    if args.get(1).map(String::as_str) == Some("--probe") {
        let mut inputs = probes::Inputs::new();
        inputs.run(&args[2], args[3].parse().expect("an iteration count"));
        return;
    }
    if !results::benchmarking() {
        each_workload!(smoke());
        let mut inputs = probes::Inputs::new();
        inputs.check();
        for (name, _) in probes::PROBES {
            inputs.run(name, 1);
        }
        return;
    }
    probes::Inputs::new().check();
    // The paper's variants: fsmooth-noviews has a table of its own.
    let names: Vec<&str> = workloads::ALL[..9].iter().map(|v| v.name()).collect();
    let mut t = Tables {
        filters: filters(&args),
        tsv: String::new(),
        md: format!(
            "| workload | {} | fsmooth / hand |\n|---|{}---:|\n",
            names.join(" | "),
            "---:|".repeat(names.len())
        ),
        md_v2: String::from(
            "| workload | fsmooth | hand | fsmooth-noviews | fsmooth / hand | noviews / hand |\n\
             |---|---:|---:|---:|---:|---:|\n",
        ),
    };
    each_workload!(measure(&mut t));
    print!("Instructions per call (callgrind):\n\n{}", t.md);
    print!(
        "\nTuples, scans and views, instructions per call (callgrind):\n\n{}",
        t.md_v2
    );
    if !t.filters.is_empty() {
        // A partial run: no probes, and the full run's files stay as they are.
        return;
    }
    let tsv = t.tsv;
    let mut probe_md = String::from("| probe | instructions per run |\n|---|---:|\n");
    let mut probe_tsv = String::new();
    for (name, n) in probes::PROBES {
        let base = callgrind_args(&["--probe", name, "0"]);
        let total = callgrind_args(&["--probe", name, &n.to_string()]);
        let ir = total.saturating_sub(base) as f64 / n as f64;
        writeln!(probe_md, "| {name} | {ir:.0} |").unwrap();
        writeln!(probe_tsv, "{name}\t{ir:.0}").unwrap();
    }
    print!("\nCode-generation probes (callgrind):\n\n{probe_md}");
    let dir = results::dir();
    std::fs::write(dir.join("instructions.tsv"), tsv).unwrap();
    std::fs::write(dir.join("probes.tsv"), probe_tsv).unwrap();
    println!("\nwritten to {}", dir.display());
}
