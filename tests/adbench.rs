//! ADBench workloads (bundle adjustment, GMM, hand tracking) on ADBench's own inputs,
//! against their known answers and the plain-Rust references in `fsmooth-testdata`.
// The known answers are quoted with every digit ADBench publishes.
#![allow(clippy::excessive_precision)]

#[macro_use]
mod common;
use common::*;
use fsmooth::Region;
use fsmooth_testdata::{parse_ba, parse_gmm, reference};

#[macro_use]
#[path = "shared/adbench_kernels.rs"]
mod adbench_kernels;
use adbench_kernels::{ba, gmm};

#[path = "adbench/index_arrays.rs"]
mod index_arrays;

#[path = "adbench/gradients.rs"]
mod gradients;

/// The GMM block once per step of the paper's ablation (as the benches compile it).
mod gmm_steps {
    pub mod d {
        gmm_block!(#![fsmooth(fusion = false, storage = "heap")]);
    }
    pub mod df {
        gmm_block!(#![fsmooth(storage = "heap")]);
    }
    pub mod dfb {
        gmm_block!(#![fsmooth(storage = "heap_frame")]);
    }
}

#[test]
fn gmm_in_every_step_of_the_ablation_agrees() {
    for text in [fsmooth_testdata::GMM_D2_K5, fsmooth_testdata::GMM_D10_K5] {
        let inp = parse_gmm(text).unwrap();
        let mut region = Region::new();
        let want = gmm_call(&inp, &mut region);
        let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
        let (a, mu, icf, x, g, m) = (
            &inp.alphas,
            &inp.means,
            &inp.icf,
            &inp.x,
            inp.gamma,
            inp.m as f64,
        );
        let steps = [
            gmm_steps::d::objective(a, mu, icf, x, g, m, c, &mut region).unwrap(),
            gmm_steps::df::objective(a, mu, icf, x, g, m, c, &mut region).unwrap(),
            gmm_steps::dfb::objective(a, mu, icf, x, g, m, c, &mut region).unwrap(),
        ];
        for got in steps {
            assert!(close(got, want, 1e-12), "{got} against {want}");
        }
        assert_eq!(gmm_steps::d::objective::scratch_len(inp.k, inp.d, inp.n), 0);
    }
}

#[test]
fn ba_reprojection_matches_known_answer() {
    let inp = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let mut region = Region::new();
    let mut out = vec![0.0; inp.p * 2];
    ba::reproj_errors(&mut out, &inp.cams, &inp.x, &inp.w, &inp.feats, &mut region).unwrap();
    for e in out.chunks(2) {
        assert!(close(e[0], -2.69048849235189402e-01, 1e-12), "{e:?}");
        assert!(close(e[1], 2.59944792677901881e-01, 1e-12), "{e:?}");
    }
    assert_close(&out, &reference::ba_reproj_errors(&inp), 1e-12);
    let mut we = vec![0.0; inp.p];
    ba::weight_errors(&mut we, &inp.w, &mut region).unwrap();
    for w in &we {
        assert!(close(*w, 8.26092651515999976e-01, 1e-12));
    }
    assert_eq!(ba::project::OUT_LEN, 2);
}

#[test]
fn ba_project_on_random_cameras() {
    let mut rng = Rng::new(11);
    let mut region = Region::new();
    for _ in 0..200 {
        let mut cam = rng.vec(11);
        if rng.below(4) == 0 {
            cam[..3].fill(0.0); // the first-order branch of Rodrigues
        }
        let mut x = rng.vec(3);
        x[2] += 5.0;
        let mut out = [0.0; 2];
        ba::project(&mut out, &cam, &x, &mut region).unwrap();
        assert_close(&out, &reference::ba_project(&cam, &x), 1e-12);
        let args = [Value::vec(&cam), Value::vec(&x)];
        assert_close(&out, &common::reference(ba::SRC, "project", &args), 1e-12);
    }
}

fn gmm_call(inp: &fsmooth_testdata::GmmInput, region: &mut Region) -> f64 {
    let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    gmm::objective(
        &inp.alphas,
        &inp.means,
        &inp.icf,
        &inp.x,
        inp.gamma,
        inp.m as f64,
        c,
        region,
    )
    .unwrap()
}

#[test]
fn gmm_matches_known_answer_and_references() {
    let mut region = Region::new();
    let inp = parse_gmm(fsmooth_testdata::GMM_TEST).unwrap();
    let v = gmm_call(&inp, &mut region);
    assert!(close(v, 8.07380408004975791, 1e-12), "{v}");
    for text in [
        fsmooth_testdata::GMM_D2_K5,
        fsmooth_testdata::GMM_D10_K5,
        fsmooth_testdata::GMM_D20_K5,
    ] {
        let inp = parse_gmm(text).unwrap();
        let v = gmm_call(&inp, &mut region);
        let want = reference::gmm_objective(&inp);
        assert!(close(v, want, 1e-10), "d={}: {v} vs {want}", inp.d);
        if inp.d == 2 {
            let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
            let args = [
                Value::vec(&inp.alphas),
                Value::matrix(&inp.means, inp.d),
                Value::matrix(&inp.icf, inp.icf_len()),
                Value::matrix(&inp.x, inp.d),
                Value::F64(inp.gamma),
                Value::F64(inp.m as f64),
                Value::F64(c),
            ];
            let interp = common::reference(gmm::SRC, "objective", &args);
            assert!(
                close(v, interp[0], 1e-10),
                "{v} vs interpreter {}",
                interp[0]
            );
        }
    }
}

#[test]
fn gmm_scratch_does_not_grow_with_points() {
    // Sizes in order of first appearance: k (alphas), d (means), n (x).
    let one = gmm::objective::scratch_len(5, 10, 1);
    assert_eq!(gmm::objective::scratch_len(5, 10, 1_000_000), one);
    // Exactly: sum_qs (k), the hoisted table of exp of each component's diagonal (k * d),
    // the log-sum-exp terms (k) and one centred point (d).
    assert_eq!(one, 5 + 5 * 10 + 5 + 10);
    assert_eq!(gmm::objective::scratch_len(5, 2, 1), 5 + 5 * 2 + 5 + 2);
    let inp = parse_gmm(fsmooth_testdata::GMM_D10_K5).unwrap();
    let mut slab = vec![0.0; one];
    let mut region = Region::from_slab(&mut slab);
    let v = gmm_call(&inp, &mut region);
    assert!(close(v, reference::gmm_objective(&inp), 1e-10));
}

/// The executor of the planned loop IR (`fsmooth_eval::exec`, which flags overlapping live
/// buffers, unwritten reads and accesses outside the frame) runs ADBench's GMM in every
/// storage mode and BA's reprojection errors, and agrees with the compiled kernels.
#[test]
fn adbench_kernels_run_clean_in_the_executor() {
    use fsmooth_eval::exec::{Arg, Returned, run};
    let plan = |src: &str, name: &str| {
        let kernels = fsmooth_core::plan_block(src.parse().unwrap()).unwrap();
        let (_, p) = kernels
            .into_iter()
            .find(|(k, _)| k.name.text == name)
            .unwrap();
        p.func
    };
    let inp = parse_gmm(fsmooth_testdata::GMM_D2_K5).unwrap();
    let mut region = Region::new();
    let want = gmm_call(&inp, &mut region);
    let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    let args = [
        ("alphas", Arg::Array(inp.alphas.clone())),
        ("means", Arg::Array(inp.means.clone())),
        ("icf", Arg::Array(inp.icf.clone())),
        ("x", Arg::Array(inp.x.clone())),
        ("gamma", Arg::F64(inp.gamma)),
        ("m", Arg::F64(inp.m as f64)),
        ("constant", Arg::F64(c)),
    ];
    for src in [
        gmm::SRC,
        gmm_steps::d::SRC,
        gmm_steps::df::SRC,
        gmm_steps::dfb::SRC,
    ] {
        match run(&plan(src, "objective"), &args, None) {
            Ok(Ok(Returned::F64(got))) => assert!(close(got, want, 1e-12), "{got} against {want}"),
            other => panic!("{other:?}"),
        }
    }

    let inp = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let mut out = vec![0.0; inp.p * 2];
    ba::reproj_errors(&mut out, &inp.cams, &inp.x, &inp.w, &inp.feats, &mut region).unwrap();
    let args = [
        ("cams", Arg::Array(inp.cams.clone())),
        ("points", Arg::Array(inp.x.clone())),
        ("w", Arg::Array(inp.w.clone())),
        ("feats", Arg::Array(inp.feats.clone())),
    ];
    match run(&plan(ba::SRC, "reproj_errors"), &args, Some(out.len())) {
        Ok(Ok(Returned::Out(got))) => assert_eq!(got, out),
        other => panic!("{other:?}"),
    }
}
