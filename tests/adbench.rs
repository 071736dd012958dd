//! ADBench workloads (bundle adjustment, GMM) on ADBench's own inputs, against their known
//! answers and the plain-Rust references in `fsmooth-testdata`.
// The known answers are quoted with every digit ADBench publishes.
#![allow(clippy::excessive_precision)]

#[macro_use]
mod common;
use common::*;
use fsmooth::Region;
use fsmooth_testdata::{parse_ba, parse_gmm, reference};

pub mod ba {
    block! {
        /// Rotates `x` by the angle-axis vector `r` (Rodrigues); first-order when |r|^2 == 0.
        fn rodrigues(r: [f64; 3], x: [f64; 3]) -> [f64; 3] {
            let sqtheta = sqnorm(r);
            if sqtheta != 0.0 {
                let theta = sqtheta.sqrt();
                let costheta = theta.cos();
                let sintheta = theta.sin();
                let w = map(r, |v| v / theta);
                let tmp = dot(w, x) * (1.0 - costheta);
                add(add(smul(x, costheta), smul(cross(w, x), sintheta)), smul(w, tmp))
            } else {
                add(x, cross(r, x))
            }
        }

        fn radial_distort(k: [f64; 2], p: [f64; 2]) -> [f64; 2] {
            let rsq = sqnorm(p);
            smul(p, 1.0 + k[0] * rsq + k[1] * rsq * rsq)
        }

        /// ADBench's camera projection.
        pub fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
            let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
            let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
            add(smul(radial_distort(cam[9..11], p), cam[6]), cam[7..9])
        }

        fn reproj_error(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
            smul(sub(project(cam, x), feat), w)
        }

        /// Reprojection errors: observation i uses camera i % n and point i % m.
        pub fn reproj_errors(
            cams: [[f64; 11]; n],
            points: [[f64; 3]; m],
            w: [f64; p],
            feats: [[f64; 2]; p],
        ) -> [[f64; 2]; p] {
            build(p, |i| reproj_error(cams[i % n], points[i % m], w[i], feats[i]))
        }

        pub fn weight_errors(w: [f64; p]) -> [f64; p] {
            build(p, |i| 1.0 - w[i] * w[i])
        }
    }
}

pub mod gmm {
    block! {
        /// Q (x - mu) for one component, Q = diag(exp(q)) + L, from its icf row.
        fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
            build(d, |j| {
                ifold(j, icf_k[j].exp() * xc[j], |acc, c| {
                    acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c]
                })
            })
        }

        /// The ADBench GMM objective; `constant` holds the lgamma terms computed in Rust.
        pub fn objective(
            alphas: [f64; k],
            means: [[f64; d]; k],
            icf: [[f64; d * (d + 1) / 2]; k],
            x: [[f64; d]; n],
            gamma: f64,
            m: f64,
            constant: f64,
        ) -> f64 {
            let sum_qs = build(k, |c| sum(icf[c][0..d]));
            let main = ifold(n, 0.0, |acc, i| {
                acc + logsumexp(build(k, |c| {
                    alphas[c] + sum_qs[c] - 0.5 * sqnorm(q_times(icf[c], sub(x[i], means[c])))
                }))
            });
            let prior = ifold(k, 0.0, |acc, c| {
                let frob = sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]);
                acc + (0.5 * gamma * gamma * frob - m * sum_qs[c])
            });
            constant + main - (n as f64) * logsumexp(alphas) + prior
        }
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
    let inp = parse_gmm(fsmooth_testdata::GMM_D10_K5).unwrap();
    let mut slab = vec![0.0; one];
    let mut region = Region::from_slab(&mut slab);
    let v = gmm_call(&inp, &mut region);
    assert!(close(v, reference::gmm_objective(&inp), 1e-10));
}
