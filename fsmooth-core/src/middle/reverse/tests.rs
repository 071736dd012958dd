//! Unit tests of the reverse sweep, on the core the checker leaves.

use crate::middle::ir::{Core, Kind};

/// The kernel's core as the checker leaves it (derivatives expanded).
fn checked(src: &str) -> Core {
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    block.kernels.remove(0).body
}

fn count(e: &Core, f: &dyn Fn(&Kind) -> bool) -> usize {
    usize::from(f(&e.kind)) + e.children().map(|c| count(c, f)).sum::<usize>()
}

fn scans(e: &Core) -> usize {
    count(e, &|k| matches!(k, Kind::Scan(..)))
}

#[test]
fn a_sum_fold_is_reversed_without_checkpoints() {
    let e = checked(
        "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
            grad(|w| ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()), x)
        }",
    );
    assert_eq!(scans(&e), 0);
}

#[test]
fn a_sum_fold_s_value_is_summed_by_its_sweep() {
    // One fold over the p steps gives the value and the adjoints (the value is not computed by
    // a fold of its own); `dot(w, w)` sums one array of contributions, not one per operand.
    let e = checked(
        "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
            grad(|w| { let s = ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()); s * 2.0 + dot(w, w) }, x)
        }",
    );
    let over_p = count(
        &e,
        &|k| matches!(k, Kind::Ifold(n, ..) if matches!(&n.kind, Kind::Size(s) if s.to_string() == "p")),
    );
    assert_eq!(over_p, 1);
    let contributions = count(
        &e,
        &|k| matches!(k, Kind::Ifold(_, init, ..) if init.ty.is_tuple()),
    );
    assert_eq!(contributions, 1);
}

#[test]
fn a_carried_fold_keeps_its_states() {
    let e = checked(
        "pub fn k(x: [f64; n]) -> (f64, [f64; n]) { grad(|w| ifold(n, 1.0, |acc, i| acc * w[i]), x) }",
    );
    assert_eq!(scans(&e), 1);
}

#[test]
fn a_map_s_adjoint_is_a_build_of_its_elements_adjoints() {
    // No fold sums the contributions: element i comes from step i alone.
    let e = checked(
        "pub fn k(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) { vjp(|w| map(w, |a| a.exp()), x, s) }",
    );
    assert_eq!(count(&e, &|k| matches!(k, Kind::Ifold(..))), 0);
}

#[test]
fn a_carried_fold_counted_by_an_enclosing_loop_is_left_to_forward_mode() {
    // The states of `ifold(i + 1, ..)` have no size before the loops run: `gradients`
    // gives up, and the checker's forward mode has no checkpoints either.
    let e = checked(
        "pub fn k(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
            vjp(|w| build(n, |i| ifold(i + 1, 1.0, |acc, j| acc * w[j])), x, s)
        }",
    );
    assert_eq!(scans(&e), 0);
}
