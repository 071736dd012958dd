//! Issue 18's real workloads: bundle adjustment over an index array of observations and
//! hand tracking over index arrays of bone parents and correspondences.
//!
//! The kernels (`ba_obs`, `hand` in `tests/shared/adbench_kernels.rs`) take their indices
//! as `usize` arrays, checked once at entry: they must agree with the known answers and
//! the plain-Rust references, and leave their outputs untouched on a bad index.

use super::adbench_kernels::{ba_obs, hand as hand_k};
use super::common::*;
use fsmooth::{Error, Region};
use fsmooth_testdata::hand::{self, Input, Model};
use fsmooth_testdata::{BaInput, data_path, parse_ba, reference};

/// The BA objective on a problem, with the observations given apart (flat, two per
/// observation) so that tests can break them.
fn ba_k(
    o0: &mut [f64],
    o1: &mut [f64],
    inp: &BaInput,
    obs: &[usize],
    r: &mut Region,
) -> Result<(), Error> {
    ba_obs::objective(o0, o1, &inp.cams, &inp.x, &inp.w, &inp.feats, obs, r)
}

fn ba1() -> BaInput {
    let text = std::fs::read_to_string(data_path("ba/ba1_n49_m7776_p31843.txt")).unwrap();
    parse_ba(&text).unwrap()
}

#[test]
fn ba_over_observations_matches_known_answer_and_reference() {
    let test = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let ba1 = ba1();
    let mut rng = Rng::new(18);
    // ba1 with random observations: every camera and point is the same, so the answer is too.
    let mut ba1_random = ba1.clone();
    for o in &mut ba1_random.obs {
        *o = (rng.below(ba1.n), rng.below(ba1.m));
    }
    // Distinct cameras and points, random observations: a wrong gather gives a wrong answer.
    let random = BaInput::random(13, 50, 400, &mut rng);
    let mut region = Region::new();
    for (what, inp) in [
        ("test", &test),
        ("ba1", &ba1),
        ("ba1, random obs", &ba1_random),
        ("random", &random),
    ] {
        let (mut e, mut we) = (vec![0.0; inp.p * 2], vec![0.0; inp.p]);
        ba_k(&mut e, &mut we, inp, &inp.obs_flat(), &mut region).unwrap();
        let want = reference::ba_reproj_errors(inp);
        for (j, (g, w)) in e.iter().zip(&want).enumerate() {
            assert!(close(*g, *w, 1e-12), "{what}, element {j}: {g} vs {w}");
        }
        assert_eq!(we, reference::ba_weight_errors(inp), "{what}");
        if what == "test" {
            // ADBench's known answer (fsmooth-testdata/data/adbench/README.md).
            for pair in e.chunks(2) {
                assert!(close(pair[0], -2.69048849235189402e-01, 1e-12), "{pair:?}");
                assert!(close(pair[1], 2.59944792677901881e-01, 1e-12), "{pair:?}");
            }
            for w in &we {
                assert!(close(*w, 8.26092651515999976e-01, 1e-12), "{w}");
            }
        }
        if what.starts_with("ba1") {
            // Replicated inputs: every observation has ba1's one answer.
            assert!(e.chunks(2).all(|pair| pair == &e[..2]), "{what}");
        }
    }
}

/// The interpreter runs the kernel's source, index array and all, and agrees on test.txt
/// and on random observations.
#[test]
fn ba_source_agrees_with_the_interpreter() {
    let mut rng = Rng::new(7);
    let test = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let random = BaInput::random(3, 8, 30, &mut rng);
    for inp in [&test, &random] {
        let args = [
            Value::matrix(&inp.cams, 11),
            Value::matrix(&inp.x, 3),
            Value::vec(&inp.w),
            Value::matrix(&inp.feats, 2),
            Value::usize_matrix(&inp.obs_flat(), 2),
        ];
        let parts = reference_parts(ba_obs::SRC, "objective", &args).unwrap();
        assert_close(&parts[0], &reference::ba_reproj_errors(inp), 1e-12);
        assert_eq!(parts[1], reference::ba_weight_errors(inp));
    }
}

#[test]
fn ba_bad_observation_index_is_an_error() {
    let inp = parse_ba(fsmooth_testdata::BA_TEST).unwrap(); // n = 2 cameras, m = 10 points
    let mut region = Region::new();
    // (position in obs, bad value, length of the array it indexes)
    for (at, bad, len) in [(6, 2, 2), (0, 1000, 2), (13, 10, 10), (19, 1 << 40, 10)] {
        let mut obs = inp.obs_flat();
        obs[at] = bad;
        let (mut e, mut we) = ([7.0; 20], [7.0; 10]);
        let got = ba_k(&mut e, &mut we, &inp, &obs, &mut region);
        assert_eq!(
            got,
            Err(Error::Index { index: bad, len }),
            "obs[{at}] = {bad}"
        );
        // Checked at entry: nothing was written.
        assert_eq!(
            (e, we),
            ([7.0; 20], [7.0; 10]),
            "obs[{at}] = {bad}: outputs written"
        );
    }
}

#[test]
fn ba_scratch_does_not_grow_with_observations() {
    // Sizes in order of first appearance: n (cams), m (x), p (w). A const fn, usable in a
    // const: firmware sizes its slab with it.
    const ONE: usize = ba_obs::objective::scratch_len(49, 7776, 1);
    assert_eq!(ba_obs::objective::scratch_len(49, 7776, 31843), ONE);
    assert_eq!(ba_obs::objective::scratch_len(49, 7776, 1 << 30), ONE);
    // A slab of exactly that length serves ba1's 31,843 observations.
    let inp = ba1();
    let mut slab = vec![0.0; ba_obs::objective::scratch_len(inp.n, inp.m, inp.p)];
    let mut region = Region::from_slab(&mut slab);
    let (mut e, mut we) = (vec![0.0; inp.p * 2], vec![0.0; inp.p]);
    ba_k(&mut e, &mut we, &inp, &inp.obs_flat(), &mut region).unwrap();
    assert_close(&e, &reference::ba_reproj_errors(&inp), 1e-12);
}

/// The hand objective on a model and an input, with the index arrays given apart so that
/// tests can break them.
fn hand_call(
    out: &mut [f64],
    m: &Model,
    inp: &Input,
    parents: &[usize],
    correspondences: &[usize],
    r: &mut Region,
) -> Result<(), Error> {
    hand_k::objective(
        out,
        &inp.theta,
        parents,
        &m.base_relatives_flat(),
        &m.inverse_base_absolutes_flat(),
        &m.base_positions_flat(),
        &m.weights,
        correspondences,
        &inp.points_flat(),
        r,
    )
}

#[test]
fn hand_matches_known_residuals_and_reference() {
    let m = hand::model();
    let test = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let small = hand::parse_input(hand::SIMPLE_SMALL, m.n_vertices()).unwrap();
    let known = [
        0.165193147941611551,
        -0.174542769272742593,
        0.154751161622253441,
        -0.125651749731793605,
        -0.0425102935355075040,
        -0.130665781132340175,
    ];
    let mut region = Region::new();
    let par = m.parents_index();
    let mut out = [0.0; 6];
    hand_call(
        &mut out,
        &m,
        &test,
        &par,
        &test.correspondences,
        &mut region,
    )
    .unwrap();
    for (g, w) in out.iter().zip(known) {
        assert!(close(*g, w, 1e-12), "{g} vs known {w}");
    }
    let mut out = vec![0.0; 300];
    hand_call(
        &mut out,
        &m,
        &small,
        &par,
        &small.correspondences,
        &mut region,
    )
    .unwrap();
    assert_close(&out, &hand::objective(&m, &small), 1e-10);
}

/// The reference interpreter runs the kernel's source on test.txt and agrees.
#[test]
fn hand_source_agrees_with_the_interpreter() {
    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let mats =
        |flat: Vec<f64>| Value::Array(flat.chunks(16).map(|c| Value::matrix(c, 4)).collect());
    let args = [
        Value::vec(&inp.theta),
        Value::usizes(&m.parents_index()),
        mats(m.base_relatives_flat()),
        mats(m.inverse_base_absolutes_flat()),
        Value::matrix(&m.base_positions_flat(), 3),
        Value::matrix(&m.weights, m.n_bones()),
        Value::usizes(&inp.correspondences),
        Value::matrix(&inp.points_flat(), 3),
    ];
    let got = reference(hand_k::SRC, "objective", &args);
    assert_close(&got, &hand::objective(&m, &inp), 1e-12);
}

#[test]
fn hand_bad_index_is_an_error() {
    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let mut region = Region::new();
    let (mut par, mut cor) = (m.parents_index(), inp.correspondences.clone());
    let mut out = [7.0; 6];
    cor[1] = 544;
    let got = hand_call(&mut out, &m, &inp, &par, &cor, &mut region);
    assert_eq!(
        got,
        Err(Error::Index {
            index: 544,
            len: 544
        })
    );
    assert_eq!(out, [7.0; 6], "output written");
    cor[1] = 3;
    par[7] = 22;
    let got = hand_call(&mut out, &m, &inp, &par, &cor, &mut region);
    assert_eq!(got, Err(Error::Index { index: 22, len: 22 }));
    assert_eq!(out, [7.0; 6], "output written");
}

#[test]
fn hand_scratch_does_not_grow_with_points() {
    // Sizes in order of first appearance: b (parents), v (base_positions), c (points).
    const ONE: usize = hand_k::objective::scratch_len(22, 544, 1);
    assert_eq!(hand_k::objective::scratch_len(22, 544, 1_000_000), ONE);
    assert_eq!(hand_k::objective::scratch_len(22, 1, 1), ONE);
    let m = hand::model();
    let inp = hand::parse_input(hand::SIMPLE_SMALL, m.n_vertices()).unwrap();
    let mut slab = vec![0.0; ONE];
    let mut region = Region::from_slab(&mut slab);
    let mut out = vec![0.0; 300];
    let par = m.parents_index();
    hand_call(&mut out, &m, &inp, &par, &inp.correspondences, &mut region).unwrap();
    assert_close(&out, &hand::objective(&m, &inp), 1e-10);
}

/// The planned kernels, run by the executor (which faults on a compiler bug: a slot read
/// before it is written, a check missing), give the compiled kernels' outputs bit for bit.
#[test]
fn index_array_kernels_run_clean_in_the_executor() {
    use fsmooth_eval::exec::{Arg, Returned, call, run};
    let plan = |src: &str| {
        let kernels = fsmooth_core::plan_block(src.parse().unwrap()).unwrap();
        let (_, p) = kernels
            .into_iter()
            .find(|(k, _)| k.name.text == "objective")
            .unwrap();
        p.func
    };
    let mut region = Region::new();
    let mut rng = Rng::new(3);
    for inp in [
        parse_ba(fsmooth_testdata::BA_TEST).unwrap(),
        BaInput::random(4, 9, 25, &mut rng),
    ] {
        let obs = inp.obs_flat();
        let (mut e, mut we) = (vec![0.0; inp.p * 2], vec![0.0; inp.p]);
        ba_k(&mut e, &mut we, &inp, &obs, &mut region).unwrap();
        let args = [
            ("cams", Arg::Array(inp.cams.clone())),
            ("x", Arg::Array(inp.x.clone())),
            ("w", Arg::Array(inp.w.clone())),
            ("feats", Arg::Array(inp.feats.clone())),
            ("obs", Arg::Usizes(obs)),
        ];
        let outs = [("out0", inp.p * 2), ("out1", inp.p)];
        match call(&plan(ba_obs::SRC), &args, &outs) {
            Ok(Ok(got)) => assert_eq!(got.arrays, vec![e, we]),
            other => panic!("{other:?}"),
        }
    }

    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let par = m.parents_index();
    let mut out = [0.0; 6];
    hand_call(&mut out, &m, &inp, &par, &inp.correspondences, &mut region).unwrap();
    let args = [
        ("theta", Arg::Array(inp.theta.clone())),
        ("parents", Arg::Usizes(par)),
        ("base_relatives", Arg::Array(m.base_relatives_flat())),
        (
            "inverse_base_absolutes",
            Arg::Array(m.inverse_base_absolutes_flat()),
        ),
        ("base_positions", Arg::Array(m.base_positions_flat())),
        ("weights", Arg::Array(m.weights.clone())),
        ("correspondences", Arg::Usizes(inp.correspondences.clone())),
        ("points", Arg::Array(inp.points_flat())),
    ];
    match run(&plan(hand_k::SRC), &args, Some(6)) {
        Ok(Ok(Returned::Out(got))) => assert_eq!(got, out),
        other => panic!("{other:?}"),
    }
}
