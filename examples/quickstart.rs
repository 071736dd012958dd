//! fsmooth in one screen: the DPS paper's `add3` and `cross`, ADBench's bundle-adjustment
//! objective over an index array of observations and its GMM objective, each on real
//! inputs and printed beside the known answer.
//!
//! Run with `cargo run --example quickstart`.

use fsmooth::{Region, fsmooth};
use fsmooth_testdata::{parse_ba, parse_gmm, reference};

fsmooth! {
    /// The sum of three vectors: one fused loop, no intermediate array.
    pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
        add(add(a, b), c)
    }

    /// The cross product, straight from the prelude.
    pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        cross(a, b)
    }

    /// Q (x - mu) for one Gaussian, Q = diag(exp(q)) + L, both packed in `icf_k`.
    fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
        build(d, |j| {
            ifold(j, icf_k[j].exp() * xc[j], |acc, c| {
                acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c]
            })
        })
    }

    /// The ADBench GMM objective; `constant` carries the lgamma terms.
    pub fn gmm_objective(
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

    /// The objective and its gradient by the parameters, as LANGUAGE.md section 12 writes
    /// it (the data and constants held by the closure).
    pub fn gmm_grad(
        alphas: [f64; k],
        means: [[f64; d]; k],
        icf: [[f64; d * (d + 1) / 2]; k],
        x: [[f64; d]; n],
        gamma: f64,
        m: f64,
        c: f64,
    ) -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) {
        grad(|a, mu, q| gmm_objective(a, mu, q, x, gamma, m, c), alphas, means, icf)
    }
}

/// Bundle adjustment over an index array of observations.
mod ba {
    use fsmooth::fsmooth;

    fsmooth! {
        /// Rodrigues rotation of `x` by the angle-axis vector `r`.
        fn rodrigues(r: [f64; 3], x: [f64; 3]) -> [f64; 3] {
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

        fn radial_distort(k: [f64; 2], p: [f64; 2]) -> [f64; 2] {
            let rsq = sqnorm(p);
            smul(p, 1.0 + k[0] * rsq + k[1] * rsq * rsq)
        }

        fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
            let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
            let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
            add(smul(radial_distort(cam[9..11], p), cam[6]), cam[7..9])
        }

        /// ADBench's bundle-adjustment objective: observation i sees point `obs[i][1]` from
        /// camera `obs[i][0]` (gathers through an index array, checked once at entry), giving
        /// the reprojection errors and the weight errors.
        pub fn ba_objective(
            cams: [[f64; 11]; n],
            points: [[f64; 3]; m],
            w: [f64; p],
            feats: [[f64; 2]; p],
            obs: [[usize; 2]; p],
        ) -> ([[f64; 2]; p], [f64; p]) {
            (
                build(p, |i| smul(sub(project(cams[obs[i][0]], points[obs[i][1]]), feats[i]), w[i])),
                build(p, |i| 1.0 - w[i] * w[i]),
            )
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One region serves every call: after the largest call it never allocates again.
    let mut region = Region::new();

    let (a, b, c) = ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [100.0, 200.0, 300.0]);
    let mut sum3 = [0.0; 3];
    add3(&mut sum3, &a, &b, &c, &mut region)?;
    println!(
        "add3({a:?}, {b:?}, {c:?}) = {sum3:?}   (scratch: {} slots)",
        add3::scratch_len(3)
    );

    let mut x = [0.0; cross3::OUT_LEN];
    cross3(&mut x, &[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &mut region)?;
    println!("cross([1, 0, 0], [0, 1, 0]) = {x:?}");

    // Bundle adjustment on ADBench's ba/test.txt (10 cameras, 10 points, 10 observations).
    let ba = parse_ba(fsmooth_testdata::BA_TEST)?;
    // obs: [[usize; 2]; p], row i = (camera, point) of observation i.
    let obs = ba.obs_flat();
    let (mut err, mut werr) = (vec![0.0; ba.p * 2], vec![0.0; ba.p]);
    ba::ba_objective(
        &mut err,
        &mut werr,
        &ba.cams,
        &ba.x,
        &ba.w,
        &ba.feats,
        &obs,
        &mut region,
    )?;
    println!("\nBA over obs = {:?}.., observation 0:", &obs[..6]);
    println!(
        "  reprojection error, fsmooth  ({:.17e}, {:.17e})",
        err[0], err[1]
    );
    println!("  reprojection error, known    (-2.69048849235189402e-1, 2.59944792677901881e-1)");
    println!("  weight error, fsmooth        {:.17e}", werr[0]);
    println!("  weight error, known          8.26092651515999976e-1");

    // GMM on ADBench's gmm/test.txt (d = 2, K = 3, n = 1).
    let g = parse_gmm(fsmooth_testdata::GMM_TEST)?;
    let constant = reference::gmm_constant(g.d, g.k, g.n, g.gamma, g.m);
    let v = gmm_objective(
        &g.alphas,
        &g.means,
        &g.icf,
        &g.x,
        g.gamma,
        g.m as f64,
        constant,
        &mut region,
    )?;
    println!("\nGMM objective on gmm/test.txt:");
    println!("  fsmooth     {v:.17}");
    println!("  known       8.07380408004975791");
    let (mut ga, mut gm, mut gq) = ([0.0; 3], [0.0; 6], [0.0; 9]);
    gmm_grad(
        &mut ga,
        &mut gm,
        &mut gq,
        &g.alphas,
        &g.means,
        &g.icf,
        &g.x,
        g.gamma,
        g.m as f64,
        constant,
        &mut region,
    )?;
    println!("GMM gradient (alphas, means, icf), fsmooth then ADBench's published values:");
    let known = fsmooth_testdata::GMM_TEST_GRADIENT;
    for (k, got) in ga.iter().chain(&gm).chain(&gq).enumerate() {
        println!("  {got:>24.17e}  {:>24.17e}", known[k]);
    }

    // Errors are values, not panics: a wrong length is reported and `out` is untouched.
    let mut untouched = [7.0; 3];
    let e = add3(&mut untouched, &a, &b[..2], &c, &mut region).unwrap_err();
    println!("\nadd3 with a short `b`: {e}; out still {untouched:?}");
    Ok(())
}
