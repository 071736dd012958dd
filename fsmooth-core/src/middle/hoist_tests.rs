//! Unit tests of `hoist`: tables of costly calls and the peel of a loop's invariant `let`s.

use crate::front::ast::{BinOp, MathFn};
use crate::middle::fuse::tests::optimized;
use crate::middle::ir::{Core, Kind, VarId};

/// The loop depth of every `exp` call in `e`.
fn exp_depths(e: &Core, depth: usize, out: &mut Vec<usize>) {
    match &e.kind {
        Kind::Build(_, _, b) => exp_depths(b, depth + 1, out),
        Kind::Ifold(n, init, _, _, b) => {
            exp_depths(n, depth, out);
            exp_depths(init, depth, out);
            exp_depths(b, depth + 1, out);
        }
        Kind::Scan(_, init, _, _, b) => {
            exp_depths(init, depth, out);
            exp_depths(b, depth + 1, out);
        }
        _ => {
            if let Kind::Math(MathFn::Exp, _) = e.kind {
                out.push(depth);
            }
            for c in e.children() {
                exp_depths(c, depth, out);
            }
        }
    }
}

fn depths(src: &str) -> Vec<usize> {
    let mut out = Vec::new();
    exp_depths(&optimized(src).body, 0, &mut out);
    out
}

#[test]
fn invariant_calls_move_into_a_table_before_the_loop() {
    // GMM's shape: per point i and component c, exp of a parameter row element. The
    // call leaves the loop over points for a k x d table (two loops deep, not three).
    let src = "pub fn k(q: [[f64; d]; k], x: [[f64; d]; n], d: usize) -> f64 {
        ifold(n, 0.0, |acc, i| acc + sum(build(k, |c| dot(map(q[c], |v| v.exp()), x[i]))))
    }";
    assert_eq!(depths(src), vec![2]);
    // A fold's index, its count a size.
    let src = "pub fn k(x: [f64; n], p: usize) -> [f64; n] {
        build(n, |i| x[i] * ifold(n, 0.0, |a, l| a + (l as f64).exp()))
    }";
    assert_eq!(depths(src), vec![1]);
    // A call reading nothing of the loop's is a scalar before it.
    let src = "pub fn k(x: [f64; n], s: f64) -> [f64; n] { build(n, |i| x[i] * s.exp()) }";
    assert_eq!(depths(src), vec![0]);
    // An index below a larger dimension is proven too (GMM's packed rows, d <= d(d+1)/2).
    let src = "pub fn k(q: [[f64; d * (d + 1) / 2]; k], x: [[f64; d]; n], d: usize) -> f64 {
        ifold(n, 0.0, |acc, i| acc + sum(build(k, |c| sum(build(d, |j| q[c][j].exp() * x[i][j])))))
    }";
    assert_eq!(depths(src), vec![2]);
}

#[test]
fn a_jacobian_s_columns_share_the_primal() {
    // 12 columns of `jvp`: the value's `map` (a loop of `sqrt`s) is computed once, before
    // the loop over the columns; inside it, the tangent's `0.5 / a.sqrt()` reads the value's
    // array (`reuse`): no `sqrt` is left in the loop.
    fn sqrts(e: &Core, depth: usize, out: &mut Vec<usize>) {
        if let Kind::Math(MathFn::Sqrt, _) = e.kind {
            out.push(depth);
        }
        let depth = depth + usize::from(matches!(e.kind, Kind::Build(..)));
        e.children().for_each(|c| sqrts(c, depth, out));
    }
    let src = "pub fn k(x: [f64; 12]) -> [[f64; 12]; 12] {
        build(12, |j| {
            let unit = build(12, |i| if i == j { 1.0 } else { 0.0 });
            jvp(|v| { let e = map(v, |a| a.sqrt()); smul(e, sum(e)) }, x, unit).1
        })
    }";
    let mut out = Vec::new();
    sqrts(&optimized(src).body, 0, &mut out);
    out.sort_unstable();
    assert_eq!(out, vec![1]);
}

/// Bundle adjustment's projection: Rodrigues' rotation, a branch on `|r| != 0`.
const PROJECT: &str = "fn rodrigues(r: [f64; 3], x: [f64; 3]) -> [f64; 3] {
        let sqtheta = sqnorm(r);
        if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let w = map(r, |v| v / theta);
            let tmp = dot(w, x) * (1.0 - theta.cos());
            add(add(smul(x, theta.cos()), smul(cross(w, x), theta.sin())), smul(w, tmp))
        } else {
            add(x, cross(r, x))
        }
    }
    fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
        let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        let rsq = sqnorm(p);
        add(smul(smul(p, 1.0 + cam[9] * rsq + cam[10] * rsq * rsq), cam[6]), cam[7..9])
    }";

/// Every math call in `e` with the number of `build`s around it.
fn calls(e: &Core, depth: usize, out: &mut Vec<(MathFn, usize)>) {
    if let Kind::Math(f, _) = e.kind {
        out.push((f, depth));
    }
    let depth = depth + usize::from(matches!(e.kind, Kind::Build(..)));
    e.children().for_each(|c| calls(c, depth, out));
}

#[test]
fn a_jacobian_s_rows_share_the_primal() {
    // Rows of `vjp`: a body too large for `unroll` to write out twice, so a loop of 2.
    // The value's `sqrt`, `sin` and `cos` run once, before the loop over the rows; so
    // does the sweep's recomputation of them (tables). Nothing costly is left inside.
    let src = format!(
        "{PROJECT}
        pub fn k(cam: [f64; 11], x: [f64; 3]) -> [[f64; 3]; 2] {{
            build(2, |r| {{
                let seed = build(2, |q| if q == r {{ 1.0 }} else {{ 0.0 }});
                vjp(|p| project(cam, p), x, seed).1
            }})
        }}"
    );
    let mut out = Vec::new();
    calls(&optimized(&src).body, 0, &mut out);
    assert!(out.iter().any(|&(f, _)| f == MathFn::Sqrt), "{out:?}");
    assert!(out.iter().all(|&(_, depth)| depth == 0), "{out:?}");
}

#[test]
fn a_jacobian_s_columns_share_a_branching_primal() {
    // Columns of `jvp`: forward mode makes the branch one `if` of (primal, tangent);
    // the primal leaves the loop over the directions as an `if` of its own (its `sqrt`
    // with it), and the primal values the tangent's branch reads (`w = r / theta`) are
    // computed before the loop. Every call is outside the loop.
    let src = format!(
        "{PROJECT}
        pub fn k(cam: [f64; 11], x: [f64; 3]) -> [[f64; 3]; 2] {{
            let cols = build(3, |j| {{
                let unit = build(3, |i| if i == j {{ 1.0 }} else {{ 0.0 }});
                jvp(|p| project(cam, p), x, unit).1
            }});
            build(2, |r| build(3, |j| cols[j][r]))
        }}"
    );
    let optimized = optimized(&src);
    let mut out = Vec::new();
    calls(&optimized.body, 0, &mut out);
    assert!(out.iter().any(|&(f, _)| f == MathFn::Sqrt), "{out:?}");
    assert!(out.iter().all(|&(_, depth)| depth == 0), "{out:?}");
    // The primal's `w = r / theta` too: each division bound in the loop reads the loop.
    fn invariant_divisions(e: &Core, inside: &mut Option<Vec<VarId>>) -> usize {
        match &e.kind {
            Kind::Build(_, i, body) => {
                let mut own = Some(inside.clone().unwrap_or_default());
                own.as_mut().unwrap().push(*i);
                invariant_divisions(body, &mut own)
            }
            Kind::Let(x, value, rest) => {
                let mut here = invariant_divisions(value, inside);
                if let Some(vars) = inside.as_mut() {
                    if vars.iter().any(|v| value.mentions(*v)) {
                        vars.push(*x);
                    } else if matches!(value.kind, Kind::Bin(BinOp::Div, ..)) {
                        here += 1;
                    }
                }
                here + invariant_divisions(rest, inside)
            }
            _ => e.children().map(|c| invariant_divisions(c, inside)).sum(),
        }
    }
    assert_eq!(invariant_divisions(&optimized.body, &mut None), 0);
    // And the rotated point's projection `xcam[0] / xcam[2]` (two more divisions in the
    // loop when the primal stays in the branch's tuple): the loop does not divide at all,
    // since the tangent's slopes (`1 / b`, `q / b`, `0.5 / sqrt(x)`) are primal values too
    // (seven divisions in the loop when they were divided per direction).
    fn divisions_in_loops(e: &Core, depth: usize) -> usize {
        let here = usize::from(depth > 0 && matches!(e.kind, Kind::Bin(BinOp::Div, ..)));
        let depth = depth + usize::from(matches!(e.kind, Kind::Build(..)));
        here + e
            .children()
            .map(|c| divisions_in_loops(c, depth))
            .sum::<usize>()
    }
    assert_eq!(divisions_in_loops(&optimized.body, 0), 0);
}

#[test]
fn a_call_on_a_scans_state_stays_in_the_scan() {
    // The state changes every step: the call stays two loops deep (it was taken for
    // invariant, moved out of the loop over i, and read its variable out of scope).
    let src = "pub fn k(b: [f64; m], n: usize) -> [[f64; m]; n] {
        build(n, |i| scan(m, 1.5, |x, l| x.exp()))
    }";
    assert_eq!(depths(src), vec![2]);
    // On the scan's index only, its count a size: a table before both loops.
    let src = "pub fn k(b: [f64; m], n: usize) -> [[f64; m]; n] {
        build(n, |i| scan(m, 1.5, |x, l| x * b[l].exp()))
    }";
    assert_eq!(depths(src), vec![1]);
}

/// The loop depth of every fold counted by size `m` in `e`.
fn sums_over_m(e: &Core, depth: usize, out: &mut Vec<usize>) {
    let deeper = match &e.kind {
        Kind::Ifold(n, ..) => {
            if matches!(&n.kind, Kind::Size(s) if s.to_string() == "m") {
                out.push(depth);
            }
            true
        }
        Kind::Build(..) | Kind::Scan(..) | Kind::Iterate(..) => true,
        _ => false,
    };
    for c in e.children() {
        sums_over_m(c, depth + usize::from(deeper), out);
    }
}

#[test]
fn invariant_sums_leave_the_loop() {
    let depths = |src: &str| {
        let mut out = Vec::new();
        sums_over_m(&optimized(src).body, 0, &mut out);
        out
    };
    // A sum reading nothing of the loop's: once, before it.
    let src = "pub fn k(x: [f64; n], w: [f64; m]) -> [f64; n] { build(n, |i| x[i] * sum(w)) }";
    assert_eq!(depths(src), vec![0]);
    // GMM spelled with `sum(q[c][0..m])` in the loop over points: a table over the
    // components before it, one loop deep (the table's), not three.
    let src = "pub fn k(q: [[f64; m * (m + 1) / 2]; k], x: [[f64; m]; n], m: usize) -> f64 {
        ifold(n, 0.0, |acc, i| acc + sum(build(k, |c| x[i][0] * sum(q[c][0..m]))))
    }";
    assert_eq!(depths(src), vec![1]);
    // Reading the point, or a state of an `iterate` in the loop: they stay.
    let src = "pub fn k(x: [[f64; m]; n], m: usize) -> [f64; n] { build(n, |i| sum(x[i])) }";
    assert_eq!(depths(src), vec![1]);
    let src = "pub fn k(x: [f64; m], p: [f64; m], steps: usize) -> [f64; m] {
        ifold(steps, x, |s, _| iterate(add(s, p), |v| norm(v) > 1.0, |v| smul(v, 0.5)))
    }";
    assert!(depths(src).iter().all(|&d| d >= 2), "{:?}", depths(src));
    // A call on an `iterate`'s state (it was taken for invariant and read its variable out
    // of scope).
    let src = "pub fn k(x: f64, n: usize) -> f64 {
        ifold(n, 0.0, |a, i| a + iterate(x, |s| s > 1.0, |s| s.ln()))
    }";
    optimized(src);
}

#[test]
fn calls_that_read_the_loop_or_may_fail_stay() {
    for src in [
        // Reads the point.
        "pub fn k(x: [[f64; d]; n], d: usize) -> f64 { ifold(n, 0.0, |acc, i| acc + sum(map(x[i], |v| v.exp()))) }",
        // An index that is not a proven loop index (`c + 1` may be out of range).
        "pub fn k(q: [f64; k], x: [f64; n]) -> [f64; n] {
            build(n, |i| x[i] * sum(build(k, |c| q[(c + 1) % k].exp())))
        }",
        // A triangle: the inner count depends on a loop inside.
        "pub fn k(q: [f64; d], x: [f64; n]) -> [f64; n] {
            build(n, |i| x[i] * sum(build(d, |j| ifold(j, 0.0, |a, l| a + q[l].exp()))))
        }",
        // A count computed in the loop (`p - 1` fails for p = 0, but only if reached).
        "pub fn k(x: [f64; n], p: usize) -> [f64; n] {
            build(n, |i| x[i] * ifold(p - 1, 0.0, |a, l| a + (l as f64).exp()))
        }",
    ] {
        let d = depths(src);
        assert!(d.iter().all(|&x| x >= 2), "{src}: {d:?}");
    }
    // Not without fusion (the paper's D step).
    let src = "#![fsmooth(fusion = false)] pub fn k(x: [f64; n], s: f64) -> [f64; n] { build(n, |i| x[i] * s.exp()) }";
    let out = crate::expand(src.parse().unwrap()).to_string();
    assert!(out.contains("for"), "{out}");
    let body = &out[out.find("for").unwrap()..];
    assert!(body.contains("exp"), "{out}");
}
