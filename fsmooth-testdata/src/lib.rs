//! ADBench inputs, parsers and plain-Rust reference implementations for fsmooth's tests,
//! examples and benches (dev-only, not published).
//!
//! The data files under `data/adbench/` are copies of Microsoft ADBench inputs (MIT licence,
//! see `data/adbench/LICENSE.txt` and `data/adbench/NOTICE.md`); `data/adbench/README.md`
//! describes their formats and known answers.
//!
//! - [`data_path`] locates a data file on disk; the small files are also embedded as
//!   strings ([`BA_TEST`], [`GMM_TEST`], [`GMM_D2_K5`], [`GMM_D10_K5`], [`GMM_D20_K5`]).
//! - [`parse_ba`] and [`parse_gmm`] read the ADBench text formats into [`BaInput`] and
//!   [`GmmInput`].
//! - [`reference`](mod@reference) holds straightforward f64 implementations of the objectives to check
//!   compiled fsmooth kernels against.
//! - [`hand`](mod@hand) holds ADBench's hand-tracking model and inputs ([`hand::parse_model`],
//!   [`hand::parse_input`]) and its reference objective ([`hand::objective`]).
//!
//! ```
//! let ba = fsmooth_testdata::parse_ba(fsmooth_testdata::BA_TEST).unwrap();
//! let (c, p) = ba.obs[0];
//! let err = fsmooth_testdata::reference::ba_reproj_error(
//!     &ba.cams[c * 11..c * 11 + 11],
//!     &ba.x[p * 3..p * 3 + 3],
//!     ba.w[0],
//!     &ba.feats[0..2],
//! );
//! assert!((err[0] - -2.69048849235189402e-01).abs() < 1e-12);
//! ```

#![warn(missing_docs)]

pub mod hand;
pub mod progen;
pub mod respell;
pub mod runs;

/// A small deterministic generator (xorshift64*): the same inputs on every run, for the
/// tests, the benches and the program generator.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform below `n` (0 for `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
    /// Uniform in [-1, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    /// True with probability `1/k`.
    pub fn one_in(&mut self, k: usize) -> bool {
        self.below(k) == 0
    }
    /// `n` values uniform in [-1, 1).
    pub fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.f64()).collect()
    }
}

use std::path::PathBuf;

/// Number of parameters of one bundle-adjustment camera: rotation (3, angle-axis),
/// centre (3), focal length (1), principal point (2), radial distortion (2).
pub const BA_NCAMPARAMS: usize = 11;

/// `ba/test.txt`: 2 cameras, 10 points, 10 observations (README known answer available).
pub const BA_TEST: &str = include_str!("../data/adbench/ba/test.txt");
/// `gmm/test.txt`: d = 2, K = 3, n = 1 (README known answer available).
pub const GMM_TEST: &str = include_str!("../data/adbench/gmm/test.txt");

/// ADBench's gradient of the GMM objective on `gmm/test.txt` (d = 2, K = 3, n = 1): the
/// alphas, the means, then the icf rows, from its C++ module tests
/// (`test/cpp/modules/common/GmmTests.cpp`, `JacobianCalculationCorrectness`, which checks
/// every module to 1e-8), digit for digit as published.
#[allow(clippy::excessive_precision)]
pub const GMM_TEST_GRADIENT: [f64; 18] = [
    1.08662855508652456e-01,
    -7.41270039523898472e-01,
    6.32607184015246071e-01,
    1.11692576532787013e+00,
    1.63333013551455269e-01,
    -2.19989824071193142e-02,
    2.27778292254236098e-01,
    1.20963025612832187e+00,
    -6.06375920733956339e-02,
    2.58529994051162237e+00,
    1.12632694524213789e-01,
    3.85744309849611777e-01,
    7.35180573182305508e-02,
    5.41836362715595232e+00,
    -3.21494409677446469e-01,
    1.71892309775004937e+00,
    8.60091090790866875e-01,
    -9.94640930466322848e-01,
];

/// `gmm/1k/gmm_d2_K5.txt`: d = 2, K = 5, n = 1000.
pub const GMM_D2_K5: &str = include_str!("../data/adbench/gmm/1k/gmm_d2_K5.txt");
/// `gmm/1k/gmm_d10_K5.txt`: d = 10, K = 5, n = 1000.
pub const GMM_D10_K5: &str = include_str!("../data/adbench/gmm/1k/gmm_d10_K5.txt");
/// `gmm/1k/gmm_d20_K5.txt`: d = 20, K = 5, n = 1000.
pub const GMM_D20_K5: &str = include_str!("../data/adbench/gmm/1k/gmm_d20_K5.txt");
/// `gmm/2.5M/gmm_d2_K5.txt`: d = 2, K = 5, n = 2,500,000, as one point that [`parse_gmm`]
/// repeats n times (ADBench's format for its large files).
pub const GMM_2_5M_D2_K5: &str = include_str!("../data/adbench/gmm/2.5M/gmm_d2_K5.txt");

/// The path of an ADBench data file of this crate, `rel` being relative to `data/adbench`
/// (for example `data_path("ba/ba1_n49_m7776_p31843.txt")`).
///
/// The path is built from this crate's manifest directory at compile time; the file is not
/// checked for existence.
pub fn data_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join("adbench")
        .join(rel)
}

/// A bundle-adjustment problem, replicated as ADBench does.
///
/// The file holds one camera, one point, one weight and one feature; they are copied into
/// all `n`, `m` and `p` slots. All arrays are flat and row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct BaInput {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// Number of observations.
    pub p: usize,
    /// Cameras, `n * 11` values (see [`BA_NCAMPARAMS`]), camera `j` at `j*11 .. j*11 + 11`.
    pub cams: Vec<f64>,
    /// Points, `m * 3` values.
    pub x: Vec<f64>,
    /// One weight per observation, `p` values.
    pub w: Vec<f64>,
    /// One 2-D feature per observation, `p * 2` values.
    pub feats: Vec<f64>,
    /// `(camera, point)` of each observation: observation `i` is `(i % n, i % m)`.
    pub obs: Vec<(usize, usize)>,
}

impl BaInput {
    /// The camera of every observation, gathered: `p * 11` values, row `i` being camera
    /// `obs[i].0`. This is the `cams: [[f64; 11]; p]` argument of a kernel that takes the observations gathered.
    pub fn obs_cams(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.p * BA_NCAMPARAMS);
        for &(c, _) in &self.obs {
            out.extend_from_slice(&self.cams[c * BA_NCAMPARAMS..(c + 1) * BA_NCAMPARAMS]);
        }
        out
    }

    /// The observations as the index array `obs: [[usize; 2]; p]` of a kernel, flat and
    /// row-major: `2 * i` is the camera and `2 * i + 1` the point of observation `i`.
    pub fn obs_flat(&self) -> Vec<usize> {
        self.obs.iter().flat_map(|&(c, pt)| [c, pt]).collect()
    }

    /// A problem of `n` cameras, `m` points and `p` observations with random values and
    /// random observations (each a uniform camera and point), unlike ADBench's replicated
    /// ones: every camera and point differs, so a wrong gather gives a wrong answer.
    ///
    /// Rotations are at most about 0.5 rad and the points lie around z = 5 in front of
    /// cameras centred near the origin, so every projection is well conditioned.
    pub fn random(n: usize, m: usize, p: usize, rng: &mut Rng) -> BaInput {
        let mut cams = Vec::with_capacity(n * BA_NCAMPARAMS);
        for _ in 0..n {
            let mut cam = rng.vec(BA_NCAMPARAMS);
            cam[..3].iter_mut().for_each(|r| *r *= 0.3);
            cam[6] += 2.0; // focal length around 2
            cams.extend(cam);
        }
        let mut x = rng.vec(m * 3);
        x.chunks_exact_mut(3).for_each(|pt| pt[2] += 5.0);
        let obs = (0..p)
            .map(|_| (rng.below(n), rng.below(m)))
            .collect::<Vec<_>>();
        BaInput {
            n,
            m,
            p,
            cams,
            x,
            w: rng.vec(p),
            feats: rng.vec(p * 2),
            obs,
        }
    }

    /// The point of every observation, gathered: `p * 3` values, row `i` being point
    /// `obs[i].1`. This is the `points: [[f64; 3]; p]` argument of a kernel that takes the observations gathered.
    pub fn obs_points(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.p * 3);
        for &(_, pt) in &self.obs {
            out.extend_from_slice(&self.x[pt * 3..pt * 3 + 3]);
        }
        out
    }
}

/// A Gaussian mixture model problem. All arrays are flat and row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct GmmInput {
    /// Dimension of the points.
    pub d: usize,
    /// Number of mixture components.
    pub k: usize,
    /// Number of points.
    pub n: usize,
    /// Component log-weights (unnormalised), `k` values.
    pub alphas: Vec<f64>,
    /// Component means, `k * d` values.
    pub means: Vec<f64>,
    /// Inverse Cholesky factors, `k * icf_len()` values. Row `c` holds the `d` log-diagonal
    /// entries, then the `d(d-1)/2` strictly lower entries column by column (see
    /// [`icf_lower_index`]).
    pub icf: Vec<f64>,
    /// Points, `n * d` values.
    pub x: Vec<f64>,
    /// Wishart prior parameter gamma.
    pub gamma: f64,
    /// Wishart prior parameter m (degrees of freedom beyond `d + 1`).
    pub m: usize,
}

impl GmmInput {
    /// Length of one `icf` row: `d + d(d-1)/2 = d(d+1)/2`.
    pub fn icf_len(&self) -> usize {
        self.d * (self.d + 1) / 2
    }
}

/// Position, inside one `icf` row of dimension `d`, of the strictly lower entry at
/// (`row`, `col`), `col < row < d`: after the `d` log-diagonal entries, column `c` holds
/// rows `c+1 .. d`, so it starts at `d + c(2d - c - 1)/2`.
///
/// This is the index arithmetic the GMM kernel of `tests/adbench.rs` uses. The result is meaningless
/// unless `col < row < d`.
pub const fn icf_lower_index(d: usize, row: usize, col: usize) -> usize {
    d + col * (2 * d - col - 1) / 2 + (row - col - 1)
}

/// Whitespace-separated tokens with a cursor, for parsing with positioned error messages.
struct Tokens<'a> {
    what: &'static str,
    toks: Vec<&'a str>,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(what: &'static str, text: &'a str) -> Self {
        Tokens {
            what,
            toks: text.split_whitespace().collect(),
            pos: 0,
        }
    }

    fn next_str(&mut self, field: &str) -> Result<&'a str, String> {
        let tok = self
            .toks
            .get(self.pos)
            .copied()
            .ok_or_else(|| format!("{}: unexpected end of input reading {field}", self.what))?;
        self.pos += 1;
        Ok(tok)
    }

    fn f64(&mut self, field: &str) -> Result<f64, String> {
        let tok = self.next_str(field)?;
        tok.parse::<f64>().map_err(|e| {
            format!(
                "{}: token {} ({tok:?}) for {field} is not a number: {e}",
                self.what, self.pos
            )
        })
    }

    /// A non-negative integer, written either as an integer or as an integral float
    /// (`1000` or `1000.0`).
    fn usize(&mut self, field: &str) -> Result<usize, String> {
        let tok = self.next_str(field)?;
        if let Ok(v) = tok.parse::<usize>() {
            return Ok(v);
        }
        match tok.parse::<f64>() {
            Ok(v) if v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 => Ok(v as usize),
            _ => Err(format!(
                "{}: token {} ({tok:?}) for {field} is not a non-negative integer",
                self.what, self.pos
            )),
        }
    }

    fn f64s(&mut self, count: usize, field: &str) -> Result<Vec<f64>, String> {
        let mut out = Vec::with_capacity(count.min(self.remaining()));
        for _ in 0..count {
            out.push(self.f64(field)?);
        }
        Ok(out)
    }

    fn remaining(&self) -> usize {
        self.toks.len() - self.pos
    }
}

fn checked_mul(what: &str, a: usize, b: usize) -> Result<usize, String> {
    a.checked_mul(b)
        .ok_or_else(|| format!("{what}: size {a} * {b} overflows"))
}

/// Parses an ADBench bundle-adjustment file (`n m p`, one camera, one point, one weight,
/// one feature) and replicates it as the benchmark does: every camera, point, weight and
/// feature slot gets the same values, and observation `i` uses camera `i % n` and point
/// `i % m`.
///
/// # Errors
///
/// A message naming the field if a token is missing or not a number, if `n` or `m` is zero
/// while `p` is not, if the sizes overflow, or if tokens are left over.
pub fn parse_ba(text: &str) -> Result<BaInput, String> {
    let mut t = Tokens::new("ba", text);
    let n = t.usize("n (cameras)")?;
    let m = t.usize("m (points)")?;
    let p = t.usize("p (observations)")?;
    if p > 0 && (n == 0 || m == 0) {
        return Err(format!(
            "ba: {p} observations need at least one camera and one point (n = {n}, m = {m})"
        ));
    }
    let cam = t.f64s(BA_NCAMPARAMS, "the camera")?;
    let pt = t.f64s(3, "the point")?;
    let w = t.f64("the weight")?;
    let feat = t.f64s(2, "the feature")?;
    let extra = t.remaining();
    if extra != 0 {
        return Err(format!("ba: {extra} unexpected tokens after the feature"));
    }
    checked_mul("ba", n, BA_NCAMPARAMS)?;
    checked_mul("ba", m, 3)?;
    checked_mul("ba", p, 2)?;
    Ok(BaInput {
        n,
        m,
        p,
        cams: cam.repeat(n),
        x: pt.repeat(m),
        w: vec![w; p],
        feats: feat.repeat(p),
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
    })
}

/// Parses an ADBench GMM file: `d K n`, K alphas, K means (d numbers each), K `icf` rows
/// (`d(d+1)/2` numbers each), the points, and `gamma m`.
///
/// The files under `gmm/1k/` hold all `n` points. Files under ADBench's `gmm/2.5M/` hold a
/// single point that the benchmark repeats `n` times; when the text holds exactly one point
/// and `n > 1`, it is repeated the same way.
///
/// # Errors
///
/// A message naming the field if a token is missing or not a number, if `d` or `K` is
/// zero, if `m` is not a non-negative integer, if the sizes overflow, or if the number of
/// tokens fits neither `n` points nor one.
pub fn parse_gmm(text: &str) -> Result<GmmInput, String> {
    let mut t = Tokens::new("gmm", text);
    let d = t.usize("d")?;
    let k = t.usize("K")?;
    let n = t.usize("n")?;
    if d == 0 || k == 0 {
        return Err(format!("gmm: d = {d} and K = {k} must be positive"));
    }
    let icf_len = checked_mul("gmm", d, d + 1)? / 2;
    let alphas = t.f64s(k, "alphas")?;
    let means = t.f64s(checked_mul("gmm", k, d)?, "means")?;
    let icf = t.f64s(checked_mul("gmm", k, icf_len)?, "icf")?;
    let total = checked_mul("gmm", n, d)?;
    // What is left: the points (all n, or one to repeat), then `gamma m`.
    let left = t.remaining();
    let x = if left == total + 2 {
        t.f64s(total, "points")?
    } else if n > 1 && left == d + 2 {
        t.f64s(d, "the point")?.repeat(n)
    } else {
        return Err(format!(
            "gmm: expected {n} points of dimension {d} (or one point to repeat) and `gamma m`, \
             i.e. {} or {} tokens after icf, found {left}",
            total + 2,
            d + 2,
        ));
    };
    let gamma = t.f64("gamma")?;
    let m = t.usize("m")?;
    Ok(GmmInput {
        d,
        k,
        n,
        alphas,
        means,
        icf,
        x,
        gamma,
        m,
    })
}

/// Plain-Rust f64 reference implementations of the ADBench objectives, written as direct
/// loops after ADBench's own C++ code, to check compiled fsmooth kernels against.
pub mod reference {
    use super::{BA_NCAMPARAMS, BaInput, GmmInput};

    fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    /// Rotates `x` by the angle-axis vector `r` (Rodrigues' formula, as in ADBench).
    ///
    /// With `theta = |r|` and `w = r / theta`, the result is
    /// `x cos(theta) + (w × x) sin(theta) + w (w · x)(1 - cos(theta))`; when `|r|^2 == 0`
    /// the first-order form `x + r × x` is used.
    pub fn rodrigues_rotate(r: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
        let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let (sin, cos) = theta.sin_cos();
            let w = [r[0] / theta, r[1] / theta, r[2] / theta];
            let w_cross_x = cross(&w, x);
            let tmp = (w[0] * x[0] + w[1] * x[1] + w[2] * x[2]) * (1.0 - cos);
            let mut out = [0.0; 3];
            for i in 0..3 {
                out[i] = x[i] * cos + w_cross_x[i] * sin + w[i] * tmp;
            }
            out
        } else {
            let r_cross_x = cross(r, x);
            [
                x[0] + r_cross_x[0],
                x[1] + r_cross_x[1],
                x[2] + r_cross_x[2],
            ]
        }
    }

    /// Projects the 3-D point `x` (3 values) through camera `cam` (11 values: rotation
    /// `cam[0..3]`, centre `cam[3..6]`, focal length `cam[6]`, principal point `cam[7..9]`,
    /// radial distortion `cam[9..11]`).
    ///
    /// `Xcam = R(r)(X - C)`, `p = Xcam[0..2] / Xcam[2]`,
    /// `distorted = p (1 + k0 |p|^2 + k1 |p|^4)`, result `distorted * f + x0`.
    ///
    /// # Panics
    ///
    /// If `cam` has fewer than 11 values or `x` fewer than 3.
    pub fn ba_project(cam: &[f64], x: &[f64]) -> [f64; 2] {
        let cam = &cam[..BA_NCAMPARAMS];
        let r = [cam[0], cam[1], cam[2]];
        let centred = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
        let xcam = rodrigues_rotate(&r, &centred);
        let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        let rsq = p[0] * p[0] + p[1] * p[1];
        let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
        let f = cam[6];
        [p[0] * l * f + cam[7], p[1] * l * f + cam[8]]
    }

    /// The reprojection error of one observation: `w * (ba_project(cam, x) - feat)`.
    ///
    /// # Panics
    ///
    /// If `cam` has fewer than 11 values, `x` fewer than 3 or `feat` fewer than 2.
    pub fn ba_reproj_error(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> [f64; 2] {
        let proj = ba_project(cam, x);
        [w * (proj[0] - feat[0]), w * (proj[1] - feat[1])]
    }

    /// The weight error of one observation: `1 - w * w`.
    pub fn ba_weight_error(w: f64) -> f64 {
        1.0 - w * w
    }

    /// The reprojection errors of all observations of `inp`, `p * 2` values.
    pub fn ba_reproj_errors(inp: &BaInput) -> Vec<f64> {
        let mut out = Vec::with_capacity(inp.p * 2);
        for (i, &(c, pt)) in inp.obs.iter().enumerate() {
            let cam = &inp.cams[c * BA_NCAMPARAMS..(c + 1) * BA_NCAMPARAMS];
            let x = &inp.x[pt * 3..pt * 3 + 3];
            out.extend(ba_reproj_error(
                cam,
                x,
                inp.w[i],
                &inp.feats[i * 2..i * 2 + 2],
            ));
        }
        out
    }

    /// The weight errors of all observations of `inp`, `p` values.
    pub fn ba_weight_errors(inp: &BaInput) -> Vec<f64> {
        inp.w.iter().map(|&w| ba_weight_error(w)).collect()
    }

    /// `ln(sum_i exp(v_i))`, computed as `max + ln(sum_i exp(v_i - max))` so that large
    /// entries do not overflow. An empty `v`, or one whose entries are all `-inf`, gives
    /// `-inf`; a `+inf` entry gives `+inf`.
    pub fn logsumexp(v: &[f64]) -> f64 {
        let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if max.is_infinite() {
            return max;
        }
        let s: f64 = v.iter().map(|&x| (x - max).exp()).sum();
        max + s.ln()
    }

    // The constants below are quoted digit for digit from their sources.
    /// Lanczos coefficients for g = 7, n = 9: the widely published set from Paul Godfrey's
    /// notes on the Lanczos approximation (as reproduced in, e.g., the Wikipedia article
    /// "Lanczos approximation" and its sample code, and in many numerical libraries).
    pub(crate) const LANCZOS_G: f64 = 7.0;
    #[allow(clippy::excessive_precision)]
    const LANCZOS_COEF: [f64; 9] = [
        0.999_999_999_999_809_93,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_13,
        -176.615_029_162_140_59,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_571_6e-6,
        1.505_632_735_149_311_6e-7,
    ];
    /// `sqrt(2 pi) * exp(-g)` for g = 7 (computed to 25 digits with mpmath).
    #[allow(clippy::excessive_precision)]
    pub(crate) const SQRT_2PI_EXP_MINUS_G: f64 = 0.002_285_749_117_985_042_393_780_7;

    /// `ln(Gamma(x))` for real `x > 0`, by the Lanczos approximation (g = 7, 9 terms) in
    /// logarithmic form, with the reflection formula below 0.5.
    ///
    /// For `z = x - 1`, `t = z + g + 1/2` and the series `a(z) = c0 + sum_i c_i / (z + i)`,
    /// `ln Gamma(x) = (z + 1/2)(ln t - 1) + ln(a(z) sqrt(2 pi) e^-g)`; grouping the `-t`
    /// term this way (and summing the series smallest terms first) keeps the cancellation
    /// for small `x` low. The absolute error is below about 3e-15 on [0.5, 3] and the
    /// relative error below about 2e-14 there (away from the roots at 1 and 2, where the
    /// error can only be absolute) and below 3e-15 above 3. `lgamma(1)` and `lgamma(2)` are
    /// exactly 0, `lgamma(0)` and `lgamma(+inf)` are `+inf`; negative and NaN arguments give
    /// NaN.
    pub fn lgamma(x: f64) -> f64 {
        if x.is_nan() || x < 0.0 {
            return f64::NAN;
        }
        if x == 0.0 || x.is_infinite() {
            return f64::INFINITY;
        }
        if x == 1.0 || x == 2.0 {
            return 0.0;
        }
        if x < 0.5 {
            // Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x), and sin(pi x) > 0 here.
            let pi = std::f64::consts::PI;
            return (pi / (pi * x).sin()).ln() - lgamma(1.0 - x);
        }
        let z = x - 1.0;
        let mut a = 0.0;
        for i in (1..LANCZOS_COEF.len()).rev() {
            a += LANCZOS_COEF[i] / (z + i as f64);
        }
        a += LANCZOS_COEF[0];
        let t = z + LANCZOS_G + 0.5;
        (z + 0.5) * (t.ln() - 1.0) + (a * SQRT_2PI_EXP_MINUS_G).ln()
    }

    /// The log of the multivariate gamma function:
    /// `lgamma_d(a) = d(d-1)/4 ln(pi) + sum_{j=1..d} lgamma(a + (1-j)/2)`.
    pub fn lgamma_multi(a: f64, d: usize) -> f64 {
        let df = d as f64;
        let mut out = 0.25 * df * (df - 1.0) * std::f64::consts::PI.ln();
        for j in 1..=d {
            out += lgamma(a + 0.5 * (1.0 - j as f64));
        }
        out
    }

    /// The constant terms of the GMM objective, which do not depend on the parameters:
    /// `-n d/2 ln(2 pi) - K C`, with `C = N d (ln(gamma) - 0.5 ln 2) - lgamma_d(N/2)` and
    /// `N = d + m + 1`.
    ///
    /// fsmooth has no `lgamma`, so the GMM kernels (`tests/adbench.rs`, `examples/quickstart.rs`) take this value as their
    /// `constant` argument.
    pub fn gmm_constant(d: usize, k: usize, n: usize, gamma: f64, m: usize) -> f64 {
        let (df, kf, nf) = (d as f64, k as f64, n as f64);
        let big_n = df + m as f64 + 1.0;
        let c =
            big_n * df * (gamma.ln() - 0.5 * std::f64::consts::LN_2) - lgamma_multi(0.5 * big_n, d);
        -nf * df * 0.5 * (2.0 * std::f64::consts::PI).ln() - kf * c
    }

    /// The ADBench GMM objective (negative log-likelihood plus Wishart prior, up to sign
    /// conventions of ADBench):
    ///
    /// `-n d/2 ln(2 pi) + sum_i logsumexp_k(alpha_k + sum(q_k) - 0.5 |Q_k (x_i - mu_k)|^2)
    /// - n logsumexp(alpha) + sum_k (0.5 gamma^2 (|exp(q_k)|^2 + |L_k|^2) - m sum(q_k)) - K C`
    ///
    /// where `Q_k = diag(exp(q_k)) + L_k`, `q_k` the first `d` entries of `icf` row `k` and
    /// `L_k` the strictly lower entries after them, column by column. See
    /// [`gmm_constant`] for `C`.
    ///
    /// # Panics
    ///
    /// If the vectors of `inp` are shorter than its sizes say.
    pub fn gmm_objective(inp: &GmmInput) -> f64 {
        let (d, k, n) = (inp.d, inp.k, inp.n);
        let icf_len = inp.icf_len();
        let sum_qs: Vec<f64> = (0..k)
            .map(|c| inp.icf[c * icf_len..c * icf_len + d].iter().sum())
            .collect();

        let mut xc = vec![0.0; d];
        let mut qxc = vec![0.0; d];
        let mut main_term = vec![0.0; k];
        let mut slse = 0.0;
        for i in 0..n {
            let xi = &inp.x[i * d..(i + 1) * d];
            for c in 0..k {
                let mu = &inp.means[c * d..(c + 1) * d];
                let icf = &inp.icf[c * icf_len..(c + 1) * icf_len];
                for j in 0..d {
                    xc[j] = xi[j] - mu[j];
                    qxc[j] = icf[j].exp() * xc[j];
                }
                // Strictly lower part, column by column: column `col` holds rows col+1..d.
                let mut idx = d;
                for (col, &xcol) in xc.iter().enumerate() {
                    let below = d - col - 1;
                    for (q, &l) in qxc[col + 1..].iter_mut().zip(&icf[idx..idx + below]) {
                        *q += l * xcol;
                    }
                    idx += below;
                }
                let sq: f64 = qxc.iter().map(|v| v * v).sum();
                main_term[c] = inp.alphas[c] + sum_qs[c] - 0.5 * sq;
            }
            slse += logsumexp(&main_term);
        }

        let mut prior = 0.0;
        for (c, &sum_q) in sum_qs.iter().enumerate() {
            let icf = &inp.icf[c * icf_len..(c + 1) * icf_len];
            let diag: f64 = icf[..d].iter().map(|q| q.exp() * q.exp()).sum();
            let lower: f64 = icf[d..].iter().map(|l| l * l).sum();
            prior += 0.5 * inp.gamma * inp.gamma * (diag + lower) - inp.m as f64 * sum_q;
        }

        gmm_constant(d, k, n, inp.gamma, inp.m) + slse - n as f64 * logsumexp(&inp.alphas) + prior
    }
}

#[cfg(test)]
mod tests;
