use super::*;
use fsmooth_core::front::diag::Diags;
use fsmooth_core::lir::FRAME_PARTS;
use fsmooth_core::pipeline;

/// Every public kernel of `block` (with `options` prepended), planned.
fn planned(block: &str) -> Vec<(Kernel, Planned, Options)> {
    let mut diags = Diags::default();
    let checked = pipeline::front(block.parse().unwrap(), &mut diags).unwrap();
    assert!(diags.is_empty(), "{:?}", diags.messages());
    let options = checked.scope.options;
    checked
        .kernels
        .into_iter()
        .map(|k| {
            let k = pipeline::middle(k, options).unwrap();
            let p = pipeline::lower(&k, options);
            (k, p, options)
        })
        .collect()
}

/// The quickstart example's block.
fn quickstart() -> String {
    let text = include_str!("../../examples/quickstart.rs");
    let source = crate::source::Source {
        path: "examples/quickstart.rs".into(),
        text: text.into(),
    };
    source.blocks().unwrap().remove(0).to_string()
}

fn sizes(pairs: &[(&str, u64)]) -> SizeValues {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

/// Each part's element count at these sizes.
fn total_parts(buffers: &[Buffer], at: &SizeValues) -> [u64; 3] {
    let t = total(buffers);
    [0, 1, 2].map(|k| evaluate(&t.parts[k], at).unwrap())
}

/// At these sizes: the plan's total is the frame the code asks for (the maximum of the
/// planner's peaks, which `scratch_len` computes), every buffer lies inside it, and two
/// buffers live at the same time do not overlap.
fn check_plan(k: &Kernel, p: &Planned, at: &SizeValues) {
    let name = &k.name.text;
    let total = evaluate_frame(&total(&p.buffers), at).unwrap();
    let frame = evaluate_frame(&p.peaks, at).unwrap();
    assert_eq!(total, frame, "{name} at {at:?}");
    let parts = total_parts(&p.buffers, at);
    let env = |n: &str| at.iter().find(|(m, _)| m == n).map(|(_, v)| *v);
    let range = |b: &Buffer| {
        let off = b.offset.eval(&env).unwrap();
        (off, off + b.len.eval(&env).unwrap())
    };
    for (i, b) in p.buffers.iter().enumerate() {
        let (lo, hi) = range(b);
        let part = parts[FRAME_PARTS.iter().position(|t| *t == b.elem).unwrap()];
        assert!(
            hi <= part,
            "{name}: #{i} ends at {hi}, past its part's {part}"
        );
        let until = b.freed.unwrap_or(p.buffers.len());
        for (j, c) in p.buffers.iter().enumerate().take(until).skip(i + 1) {
            if c.elem != b.elem {
                continue;
            }
            let (clo, chi) = range(c);
            let empty = lo == hi || clo == chi;
            assert!(
                empty || chi <= lo || hi <= clo,
                "{name}: #{i} and #{j}, live together, overlap"
            );
        }
    }
}

#[test]
fn the_gmm_objective_plan_totals_its_frame() {
    let kernels = planned(&quickstart());
    let (k, p, options) = kernels
        .iter()
        .find(|(k, ..)| k.name.text == "gmm_objective")
        .unwrap();
    // The quickstart's sizes (gmm/test.txt) and a larger model.
    for at in [
        sizes(&[("d", 2), ("k", 3), ("n", 1)]),
        sizes(&[("d", 10), ("k", 5), ("n", 100)]),
    ] {
        check_plan(k, p, &at);
    }
    // The quickstart's frame: k + k * d + k + d (sum_qs, the hoisted table, the
    // component scores, one centred point).
    assert_eq!(p.buffers.len(), 4);
    assert_eq!(
        evaluate_frame(&total(&p.buffers), &sizes(&[("d", 2), ("k", 3), ("n", 1)])),
        Some(14)
    );
    let text = plan(k, p, *options, &sizes(&[("d", 2), ("k", 3), ("n", 1)]));
    assert!(text.contains("hoisted_"), "{text}");
    assert!(
        text.contains("gmm_objective::scratch_len(k, d, n) = the same"),
        "{text}"
    );
    assert!(text.contains("at d = 2, k = 3, n = 1: 14 slots"), "{text}");
}

#[test]
fn stencils_and_array_folds_total_their_frames() {
    let block = "
        pub fn stencil(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 0.5); build(n - 2, |i| s[i] + s[i + 1] + s[i + 2]) }
        pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] { ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha))) }
        pub fn blur(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h - 2] {
            let rows = build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 1] + img[y][x + 2]));
            build(h - 2, |y| build(w - 2, |x| (rows[y][x] + rows[y + 1][x] + rows[y + 2][x]) / 9.0))
        }
        pub fn chain(a: [[f64; n]; n], b: [[f64; n]; n], c: [[f64; n]; n]) -> [[f64; n]; n] { matmul(matmul(a, b), c) }
        pub fn smooth_total(x: [[f64; d]; t], d: usize, alpha: f64) -> f64 { sum(ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)))) }
        pub fn shift_total(a: [f64; n], t: usize) -> f64 { sum(ifold(t, a, |s, i| build(n, |j| if j > 0 { s[j - 1] } else { s[j] }))) }
    ";
    let at = sizes(&[("n", 7), ("d", 3), ("t", 4), ("w", 6), ("h", 5)]);
    for options in [
        "",
        "#![fsmooth(fusion = false)]",
        "#![fsmooth(storage = \"heap_frame\")]",
    ] {
        for (k, p, _) in planned(&format!("{options}\n{block}")) {
            check_plan(&k, &p, &at);
        }
    }
    let kernels = planned(block);
    // Each new element reads only its own old one (LANGUAGE.md section 13): written to the
    // output, the fold's state is the output, updated in place; summed, it is one buffer.
    assert!(kernels[1].1.buffers.is_empty());
    assert_eq!(kernels[4].1.buffers.len(), 1);
    // A state whose new elements read their neighbours, summed: its destination (the value
    // the sum reads) and one buffer of n on top of it, the steps taking them in turn.
    let shift = &kernels[5].1;
    let accs: Vec<usize> = (0..shift.buffers.len())
        .filter(|&b| matches!(shift.buffers[b].holds, Holds::Acc { .. }))
        .collect();
    assert_eq!(accs.len(), 1);
    assert_eq!(shift.buffers.len(), 2);
    assert!(matches!(
        shift.buffers[accs[0]].holds,
        Holds::Acc { first: true, .. }
    ));
    assert!(shift.buffers[accs[0]].above.contains(&(1 - accs[0])));
}

#[test]
fn sibling_buffers_reuse_slots_and_the_rule_says_so() {
    // Each branch's array lives in its branch only: both start at the bottom.
    let block = "pub fn k(a: [f64; n], s: f64) -> f64 {
        if s > 0.0 { let x = smul(a, 2.0); x[0] * x[n - 1] + sum(x) }
        else { let y = smul(a, 3.0); y[0] * y[n - 1] + sum(y) }
    }";
    let kernels = planned(block);
    let (k, p, options) = &kernels[0];
    check_plan(k, p, &sizes(&[("n", 5)]));
    let text = plan(k, p, *options, &SizeValues::new());
    assert!(text.contains("reuses #0's slots"), "{text}");
    assert!(text.contains("frame total: n f64 slots"), "{text}");
}

#[test]
fn the_frame_total_is_simplified_as_the_offsets_are() {
    // Two stencils' states, each its destination and one buffer: four buffers of `n` (the
    // second pair reuses the first's slots), at offsets 0, n, 2 * n; the total, `3 * n`, not
    // `n + n + n`.
    let block = "pub fn stencil(a: [f64; n], k: usize) -> f64 {
        let x = ifold(k, a, |s, i| build(n, |j| if j > 0 { s[j - 1] } else { s[j] }));
        let y = ifold(k, a, |s, i| build(n, |j| if j > 0 { s[j - 1] } else { s[j] * 2.0 }));
        sum(x) + sum(y)
    }";
    let kernels = planned(block);
    let (k, p, options) = &kernels[0];
    check_plan(k, p, &sizes(&[("n", 5), ("k", 3)]));
    let text = plan(k, p, *options, &SizeValues::new());
    assert!(text.contains("  2 * n  "), "{text}");
    assert!(text.contains("frame total: 3 * n f64 slots\n"), "{text}");
    assert!(
        text.contains("stencil::scratch_len(n) = the same"),
        "{text}"
    );
}

/// Compiles a block with the macro and keeps its source as text, so that one kernel
/// source serves both the generated `scratch_len` and the memory plan.
macro_rules! compiled_and_planned {
    ($($block:tt)*) => {
        fsmooth::fsmooth! { $($block)* }
        const BLOCK: &str = stringify!($($block)*);
    };
}

compiled_and_planned! {
    pub fn stencil(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 0.5); build(n - 2, |i| s[i] + s[i + 1] + s[i + 2]) }
    pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] { ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha))) }
    pub fn triangle(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> f64 {
        let y = build(d, |j| ifold(j, q[j] * x[j], |acc, l| acc + q[d + l * (2 * d - l - 1) / 2 + (j - l - 1)] * x[l]));
        let z = build(d, |j| y[j] * y[j] + x[j]);
        sum(y) + sum(z)
    }
}

#[test]
fn the_plan_totals_what_the_generated_scratch_len_returns() {
    let kernels = planned(BLOCK);
    for n in 2..9u64 {
        let at = sizes(&[("n", n), ("d", n), ("t", n)]);
        let generated = [
            stencil::scratch_len(n as usize),
            smooth::scratch_len(n as usize, n as usize),
            triangle::scratch_len(n as usize),
        ];
        for ((k, p, _), want) in kernels.iter().zip(generated) {
            let plan = evaluate_frame(&total(&p.buffers), &at).unwrap();
            assert_eq!(plan, want as u64, "{} at {at:?}", k.name.text);
        }
    }
}

#[test]
fn tuples_scans_and_views_total_their_frames() {
    let block = "
        pub fn stats(v: [f64; n]) -> (f64, f64, [f64; n]) {
            let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + v[i], q + v[i] * v[i]));
            (s, q, build(n, |i| v[i] * s))
        }
        pub fn states(x: [f64; n], k: usize) -> ([[f64; 2]; k], f64) {
            let t = scan(k, ([0.0, 1.0], 0.0), |(a, s), i| ([a[1], a[0] + x[i % n]], s + a[0]));
            (t.0, sum(t.1))
        }
        pub fn mixed(a: [f64; 3], s: usize) -> ([f64; 3], f64) {
            ifold(s, (a, 0.0), |(v, t), i| (build(3, |j| v[(j + 1) % 3]), t + v[0]))
        }
        pub fn cat(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
            let t = concat(ifold(2, a, |acc, i| smul(acc, 2.0)), reverse(b));
            map(t, |x| x + 1.0)
        }
    ";
    let at = sizes(&[("n", 7), ("m", 4), ("k", 5)]);
    for options in [
        "",
        "#![fsmooth(fusion = false)]",
        "#![fsmooth(views = false)]",
        "#![fsmooth(storage = \"heap_frame\")]",
    ] {
        for (k, p, _) in planned(&format!("{options}\n{block}")) {
            check_plan(&k, &p, &at);
        }
    }
}

mod typed {
    use super::*;

    compiled_and_planned! {
        pub fn mixed(a: [f64; n], b: [f32; n], idx: [usize; n], r: usize) -> f64 {
            let s = build(n, |i| a[i].exp());
            let t = build(n, |i| b[i].exp());
            let u = ifold(r, idx, |acc, k| build(n, |i| acc[(i + k) % n]));
            ifold(n, 0.0, |acc, i| acc + s[u[i]] + s[i] + (t[n - 1 - i] as f64) + (t[i] as f64))
        }
    }

    #[test]
    fn a_frame_of_several_types_totals_its_parts() {
        let kernels = planned(BLOCK);
        let (k, p, options) = &kernels[0];
        for n in 0..9u64 {
            let at = sizes(&[("n", n)]);
            check_plan(k, p, &at);
            // The generated scratch_len: f64 n, f32 n (two to a slot), usize 2n.
            let plan = evaluate_frame(&total(&p.buffers), &at).unwrap();
            assert_eq!(plan, mixed::scratch_len(n as usize) as u64, "n = {n}");
            assert_eq!(plan, n + n.div_ceil(2) + 2 * n);
        }
        let text = plan(k, p, *options, &sizes(&[("n", 5)]));
        assert!(text.contains("in parts: f64, then f32"), "{text}");
        assert!(text.contains("  type  "), "{text}");
        assert!(
            text.contains("frame parts: f64 n, f32 n, usize 2 * n elements"),
            "{text}"
        );
        assert!(
            text.contains("frame total: (n) + ceil((n) / 2) + (2 * n) 8-byte slots"),
            "{text}"
        );
        assert!(text.contains("mixed::scratch_len(n) = the same"), "{text}");
        assert!(text.contains("at n = 5: 18 slots"), "{text}");
    }
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Call `check` on every kernel of the repository's examples and tests that checks and
/// plans (blocks with errors, a test of them, or imports skipped); the number it accepted.
fn each_example_and_test_kernel(
    check: &mut dyn FnMut(&std::path::Path, &Kernel, &Planned, Options) -> bool,
) -> usize {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&root.join("examples"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    let mut kernels = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let source = crate::source::Source {
            path: f.display().to_string(),
            text,
        };
        let Ok(blocks) = source.blocks() else {
            continue;
        };
        for b in blocks {
            let mut diags = Diags::default();
            let Some(checked) = pipeline::front(b, &mut diags).filter(|_| diags.is_empty()) else {
                continue;
            };
            let options = checked.scope.options;
            for k in checked.kernels {
                let Ok(k) = pipeline::middle(k, options) else {
                    continue;
                };
                let p = pipeline::lower(&k, options);
                kernels += usize::from(check(&f, &k, &p, options));
            }
        }
    }
    kernels
}

/// The remarks (`--remarks`, the macro's warnings) and the memory plan (`--stage memory`)
/// agree for every kernel of the repository's examples and tests: one `stored` remark per
/// stored buffer, one `two_buffers` per fold state's first buffer, one `row_copied` per
/// new row, so that neither can drift from the other.
#[test]
fn the_remarks_agree_with_the_memory_plan_for_every_example_and_test_kernel() {
    use fsmooth_core::emit::remarks::{What, remarks};
    let kernels = each_example_and_test_kernel(&mut |f, k, p, options| {
        let r = remarks(k, p, options);
        let real = |b: &&fsmooth_core::lower::storage::Buffer| b.len.as_const() != Some(0);
        let count = |w: What| r.iter().filter(|r| r.what == w).count();
        let stored = p
            .buffers
            .iter()
            .filter(real)
            .filter(|b| matches!(b.holds, Holds::Let(_) | Holds::Value(_) | Holds::State(_)))
            .filter(|b| b.holds != Holds::Value("updated row"))
            .count()
            + p.taken.len();
        let rows = p
            .buffers
            .iter()
            .filter(real)
            .filter(|b| b.holds == Holds::Value("updated row"))
            .count();
        let states = p
            .buffers
            .iter()
            .filter(real)
            .filter(|b| matches!(b.holds, Holds::Acc { first: true, .. }))
            .count();
        let copies = p
            .copies
            .iter()
            .filter(|c| c.len.as_const() != Some(0))
            .count();
        let at = format!("{}: {}", f.display(), k.name.text);
        assert_eq!(count(What::Stored), stored, "{at}");
        assert_eq!(count(What::RowCopied), rows, "{at}");
        assert_eq!(count(What::TwoBuffers), states, "{at}");
        assert_eq!(count(What::Copied), copies, "{at}");
        assert_eq!(r.len(), stored + rows + states + copies, "{at}");
        true
    });
    assert!(kernels > 100, "{kernels} kernels");
}

/// The `mod k` call the memory plan names (`cg::scratch_len(n)`, `k::SCRATCH_LEN`) is the
/// one the macro generates, for every kernel of the repository's examples and tests: a step
/// count or a class label is not an argument of `scratch_len`.
#[test]
fn the_plan_names_the_generated_scratch_len_for_every_example_and_test_kernel() {
    let kernels = each_example_and_test_kernel(&mut |f, k, p, options| {
        if !matches!(options.storage, fsmooth_core::front::ast::Storage::Region) {
            return false;
        }
        let text = plan(k, p, options, &SizeValues::new());
        // The generated module's own spelling of the same function.
        let module = fsmooth_core::emit::module(k, &p.peaks).to_string();
        let want = if k.shape_sizes.is_empty() {
            assert!(module.contains("pub const SCRATCH_LEN"), "{module}");
            format!("{}::SCRATCH_LEN", k.name.text)
        } else {
            let args: Vec<String> = k
                .shape_sizes
                .iter()
                .map(|s| format!("{s} : usize"))
                .collect();
            let sig = format!("pub const fn scratch_len ({})", args.join(" , "));
            assert!(module.contains(&sig), "{}: {sig} in {module}", f.display());
            format!("{}::scratch_len({})", k.name.text, k.shape_sizes.join(", "))
        };
        assert!(text.contains(&want), "{}: {want} in\n{text}", f.display());
        true
    });
    assert!(kernels > 100, "{kernels} kernels");
}

#[test]
fn an_array_in_the_place_of_a_dead_one_is_shown_without_slots() {
    // Three stencil steps written out and summed: `u3` in `u1`'s buffer, two buffers in all.
    let block = "fn diffuse(u: [f64; n], c: f64) -> [f64; n] {
            build(n, |i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))
        }
        pub fn k(u0: [f64; n], c: f64) -> f64 {
            let u1 = diffuse(u0, c);
            let u2 = diffuse(u1, c);
            let u3 = diffuse(u2, c);
            sum(diffuse(u3, c))
        }";
    let kernels = planned(block);
    let (k, p, options) = &kernels[0];
    assert_eq!(p.buffers.len(), 2);
    let text = plan(k, p, *options, &sizes(&[("n", 10)]));
    let line = text
        .lines()
        .find(|l| l.contains("in the place of"))
        .unwrap_or_default();
    assert!(
        line.starts_with("u3_") && line.contains("in the place of u1_"),
        "{text}"
    );
    assert!(text.contains("frame total: 2 * n f64 slots"), "{text}");
}
