//! The blocks whose expansion time `benches/expansion.rs` and `examples/expansion_time.rs`
//! measure: the benches' kernels (`benches/workloads/kernels.rs`), ADBench's bundle
//! adjustment and GMM objective (`tests/shared/adbench_kernels.rs`) and two kernels of
//! `tests/differential.rs`, eighteen functions in one block; the 4-state Kalman step alone;
//! and `add3` alone.

use proc_macro2::TokenStream;

/// The 4-state Kalman step of `benches/workloads/kernels.rs`, with its helper.
const KALMAN: &str = r#"
    fn predict_p(p: [[f64; n]; n], f: [[f64; n]; n], q: [[f64; n]; n]) -> [[f64; n]; n] {
        madd(matmul(matmul(f, p), transpose(f)), q)
    }

    pub fn kalman(
        x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
        h: [f64; 4], r: f64, z: f64,
    ) -> [[f64; 4]; 5] {
        let xp = matvec(f, x);
        let pp = predict_p(p, f, q);
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        let xn = add(xp, smul(ph, (z - dot(h, xp)) / s));
        let pn = msub(pp, msmul(outer(ph, ph), 1.0 / s));
        build(5, |i| if i == 0 { xn } else { pn[i - 1] })
    }
"#;

/// The paper's `add3`.
const ADD3: &str = r#"
    pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
        add(add(a, b), c)
    }
"#;

/// The rest of the eighteen: the benches' kernels, ADBench's, a stencil and a network.
const OTHERS: &str = r#"
    pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        cross(a, b)
    }

    pub fn chain(a: [[f64; n]; n], b: [[f64; n]; n], c: [[f64; n]; n]) -> [[f64; n]; n] {
        matmul(matmul(a, b), c)
    }

    pub fn blur(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h - 2] {
        let rows = build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 1] + img[y][x + 2]));
        build(h - 2, |y| build(w - 2, |x| (rows[y][x] + rows[y + 1][x] + rows[y + 2][x]) / 9.0))
    }

    fn softmax(v: [f64; n]) -> [f64; n] {
        let mx = vmax(v);
        let e = map(v, |x| (x - mx).exp());
        smul(e, 1.0 / sum(e))
    }

    pub fn layer(w: [[f64; i]; o], b: [f64; o], x: [f64; i]) -> [f64; o] {
        softmax(add(matvec(w, x), b))
    }

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

    pub fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
        let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        add(smul(radial_distort(cam[9..11], p), cam[6]), cam[7..9])
    }

    fn reproj_error(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
        smul(sub(project(cam, x), feat), w)
    }

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

    fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
        build(d, |j| {
            ifold(j, icf_k[j].exp() * xc[j], |acc, c| {
                acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c]
            })
        })
    }

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

    pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
        let s = smul(a, 0.5);
        build(n - 2, |i| s[i] + 2.0 * s[i + 1] + s[i + 2])
    }

    pub fn mlp(w1: [[f64; i]; hid], w2: [[f64; hid]; o], x: [f64; i]) -> [f64; o] {
        let h1 = map(matvec(w1, x), |v| v.tanh());
        map(matvec(w2, h1), |v| v.tanh())
    }
"#;

/// One measured block: its name and its tokens.
pub struct Block {
    /// What the block holds.
    pub name: &'static str,
    /// The tokens `fsmooth!` would receive.
    pub tokens: TokenStream,
}

/// The three measured blocks: eighteen kernels, the Kalman step, `add3`.
pub fn blocks() -> Vec<Block> {
    let tokens = |src: &str| {
        src.parse::<TokenStream>()
            .expect("the blocks are Rust tokens")
    };
    vec![
        Block {
            name: "eighteen_kernels",
            tokens: tokens(&format!("{ADD3}{KALMAN}{OTHERS}")),
        },
        Block {
            name: "kalman",
            tokens: tokens(KALMAN),
        },
        Block {
            name: "add3",
            tokens: tokens(ADD3),
        },
    ]
}
