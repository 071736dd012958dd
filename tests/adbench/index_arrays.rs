//! Issue 18's real workloads: bundle adjustment over an index array of observations and
//! hand tracking over index arrays of bone parents and correspondences.
//!
//! Each kernel exists twice (see `tests/shared/adbench_kernels.rs`): with `usize` index
//! arrays (`ba_obs`, `hand`; compiled with `--cfg fsmooth_index_arrays` until the compiler
//! support is merged) and with the indices as `f64`, cast where they are used
//! (`ba_obs_f64idx`, `hand_f64idx`). Both must agree with the known answers; only the
//! `usize` ones check their gathers at entry, leaving the outputs untouched on a bad index.

use super::adbench_kernels::{ba_obs_f64idx, hand_f64idx};
use super::common::*;
use fsmooth::{Error, Region};
use fsmooth_testdata::hand::{self, Input, Model};
use fsmooth_testdata::{BaInput, data_path, parse_ba, reference};

#[cfg(fsmooth_index_arrays)]
use super::adbench_kernels::{ba_obs, hand as hand_k};

/// A BA objective: `(out0, out1, problem, obs flat, region)`.
type BaObs = fn(&mut [f64], &mut [f64], &BaInput, &[usize], &mut Region) -> Result<(), Error>;

/// The BA kernels to check, with whether they check their gathers at entry.
fn ba_kernels() -> Vec<(&'static str, bool, BaObs)> {
    #[cfg_attr(not(fsmooth_index_arrays), allow(unused_mut))]
    let mut ks: Vec<(&str, bool, BaObs)> = vec![("f64 indices", false, |o0, o1, inp, obs, r| {
        let obs: Vec<f64> = obs.iter().map(|&i| i as f64).collect();
        ba_obs_f64idx::objective(o0, o1, &inp.cams, &inp.x, &inp.w, &inp.feats, &obs, r)
    })];
    #[cfg(fsmooth_index_arrays)]
    ks.push(("usize indices", true, |o0, o1, inp, obs, r| {
        ba_obs::objective(o0, o1, &inp.cams, &inp.x, &inp.w, &inp.feats, obs, r)
    }));
    ks
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
    for (name, _, k) in ba_kernels() {
        for (what, inp) in [
            ("test", &test),
            ("ba1", &ba1),
            ("ba1, random obs", &ba1_random),
            ("random", &random),
        ] {
            let (mut e, mut we) = (vec![0.0; inp.p * 2], vec![0.0; inp.p]);
            k(&mut e, &mut we, inp, &inp.obs_flat(), &mut region).unwrap();
            let want = reference::ba_reproj_errors(inp);
            for (j, (g, w)) in e.iter().zip(&want).enumerate() {
                assert!(
                    close(*g, *w, 1e-12),
                    "{name}, {what}, element {j}: {g} vs {w}"
                );
            }
            assert_eq!(we, reference::ba_weight_errors(inp), "{name}, {what}");
            if what == "test" {
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
                assert!(e.chunks(2).all(|pair| pair == &e[..2]), "{name}, {what}");
            }
        }
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
        for (name, at_entry, k) in ba_kernels() {
            let (mut e, mut we) = ([7.0; 20], [7.0; 10]);
            let got = k(&mut e, &mut we, &inp, &obs, &mut region);
            assert_eq!(got, Err(Error::Index { index: bad, len }), "{name}");
            if at_entry {
                assert_eq!((e, we), ([7.0; 20], [7.0; 10]), "{name}: outputs written");
            }
        }
    }
}

#[test]
fn ba_scratch_does_not_grow_with_observations() {
    // Sizes in order of first appearance: n (cams), m (x), p (w). A const fn, usable in a
    // const: firmware sizes its slab with it.
    const ONE: usize = ba_obs_f64idx::objective::scratch_len(49, 7776, 1);
    assert_eq!(ba_obs_f64idx::objective::scratch_len(49, 7776, 31843), ONE);
    assert_eq!(
        ba_obs_f64idx::objective::scratch_len(49, 7776, 1 << 30),
        ONE
    );
    #[cfg(fsmooth_index_arrays)]
    {
        const U: usize = ba_obs::objective::scratch_len(49, 7776, 1);
        assert_eq!(ba_obs::objective::scratch_len(49, 7776, 31843), U);
        assert_eq!(ba_obs::objective::scratch_len(49, 7776, 1 << 30), U);
    }
    // A slab of exactly that length serves ba1's 31,843 observations.
    let inp = ba1();
    let mut slab = vec![0.0; ba_obs_f64idx::objective::scratch_len(inp.n, inp.m, inp.p)];
    let mut region = Region::from_slab(&mut slab);
    let (mut e, mut we) = (vec![0.0; inp.p * 2], vec![0.0; inp.p]);
    let (_, _, k) = ba_kernels()[0];
    k(&mut e, &mut we, &inp, &inp.obs_flat(), &mut region).unwrap();
    assert_close(&e, &reference::ba_reproj_errors(&inp), 1e-12);
}

/// A hand objective: `(out, model, input, parents, correspondences, region)`, the index
/// arrays given apart so that tests can break them.
type Hand = fn(&mut [f64], &Model, &Input, &[usize], &[usize], &mut Region) -> Result<(), Error>;

fn hand_kernels() -> Vec<(&'static str, bool, Hand)> {
    #[cfg_attr(not(fsmooth_index_arrays), allow(unused_mut))]
    let mut ks: Vec<(&str, bool, Hand)> =
        vec![("f64 indices", false, |out, m, inp, par, cor, r| {
            let par: Vec<f64> = par.iter().map(|&i| i as f64).collect();
            let cor: Vec<f64> = cor.iter().map(|&i| i as f64).collect();
            hand_f64idx::objective(
                out,
                &inp.theta,
                &par,
                &m.base_relatives_flat(),
                &m.inverse_base_absolutes_flat(),
                &m.base_positions_flat(),
                &m.weights,
                &cor,
                &inp.points_flat(),
                r,
            )
        })];
    #[cfg(fsmooth_index_arrays)]
    ks.push(("usize indices", true, |out, m, inp, par, cor, r| {
        hand_k::objective(
            out,
            &inp.theta,
            par,
            &m.base_relatives_flat(),
            &m.inverse_base_absolutes_flat(),
            &m.base_positions_flat(),
            &m.weights,
            cor,
            &inp.points_flat(),
            r,
        )
    }));
    ks
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
    for (name, _, k) in hand_kernels() {
        let par = m.parents_index();
        let mut out = [0.0; 6];
        k(
            &mut out,
            &m,
            &test,
            &par,
            &test.correspondences,
            &mut region,
        )
        .unwrap();
        for (g, w) in out.iter().zip(known) {
            assert!(close(*g, w, 1e-12), "{name}: {g} vs known {w}");
        }
        let mut out = vec![0.0; 300];
        k(
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
}

/// The reference interpreter runs the f64-index kernel's source on test.txt and agrees.
#[test]
fn hand_source_agrees_with_the_interpreter() {
    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let mats =
        |flat: Vec<f64>| Value::Array(flat.chunks(16).map(|c| Value::matrix(c, 4)).collect());
    let f64s = |xs: &[usize]| Value::vec(&xs.iter().map(|&i| i as f64).collect::<Vec<_>>());
    let args = [
        Value::vec(&inp.theta),
        f64s(&m.parents_index()),
        mats(m.base_relatives_flat()),
        mats(m.inverse_base_absolutes_flat()),
        Value::matrix(&m.base_positions_flat(), 3),
        Value::matrix(&m.weights, m.n_bones()),
        f64s(&inp.correspondences),
        Value::matrix(&inp.points_flat(), 3),
    ];
    let got = super::common::reference(hand_f64idx::SRC, "objective", &args);
    assert_close(&got, &hand::objective(&m, &inp), 1e-12);
}

#[test]
fn hand_bad_index_is_an_error() {
    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let mut region = Region::new();
    for (name, at_entry, k) in hand_kernels() {
        let (mut par, mut cor) = (m.parents_index(), inp.correspondences.clone());
        let mut out = [7.0; 6];
        cor[1] = 544;
        let got = k(&mut out, &m, &inp, &par, &cor, &mut region);
        assert_eq!(
            got,
            Err(Error::Index {
                index: 544,
                len: 544
            }),
            "{name}"
        );
        if at_entry {
            assert_eq!(out, [7.0; 6], "{name}: output written");
        }
        cor[1] = 3;
        par[7] = 22;
        let got = k(&mut out, &m, &inp, &par, &cor, &mut region);
        assert_eq!(got, Err(Error::Index { index: 22, len: 22 }), "{name}");
        if at_entry {
            assert_eq!(out, [7.0; 6], "{name}: output written");
        }
    }
}

#[test]
fn hand_scratch_does_not_grow_with_points() {
    // Sizes in order of first appearance: b (parents), v (base_positions), c (points).
    const ONE: usize = hand_f64idx::objective::scratch_len(22, 544, 1);
    assert_eq!(hand_f64idx::objective::scratch_len(22, 544, 1_000_000), ONE);
    assert_eq!(hand_f64idx::objective::scratch_len(22, 1, 1), ONE);
    #[cfg(fsmooth_index_arrays)]
    {
        const U: usize = hand_k::objective::scratch_len(22, 544, 1);
        assert_eq!(hand_k::objective::scratch_len(22, 544, 1_000_000), U);
    }
    let m = hand::model();
    let inp = hand::parse_input(hand::SIMPLE_SMALL, m.n_vertices()).unwrap();
    let mut slab = vec![0.0; ONE];
    let mut region = Region::from_slab(&mut slab);
    let mut out = vec![0.0; 300];
    let (_, _, k) = hand_kernels()[0];
    let par = m.parents_index();
    k(&mut out, &m, &inp, &par, &inp.correspondences, &mut region).unwrap();
    assert_close(&out, &hand::objective(&m, &inp), 1e-10);
}
