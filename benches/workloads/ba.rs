//! ADBench bundle adjustment: `project` of one point through one camera, and the
//! reprojection errors of every observation of `ba1_n49_m7776_p31843` (observation i uses
//! camera i % n and point i % m, as ADBench replicates its inputs).

use super::{Variant, Workload, kernels, naive, respelled};
use fsmooth::Region;
use fsmooth_testdata::{BA_NCAMPARAMS, data_path, parse_ba};
use nalgebra::{Rotation3, SVector, Vector2, Vector3};
use ndarray::{Array1, Array2, ArrayView1, array, s};
use std::hint::black_box;

type Cam = SVector<f64, BA_NCAMPARAMS>;

// ---- hand-written -------------------------------------------------------------------------

#[inline]
fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Rodrigues' rotation of `x` by the angle-axis `r`, on stack arrays.
#[inline]
pub fn rodrigues_hand(r: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (sin, cos) = (theta.sin(), theta.cos());
        let w = [r[0] / theta, r[1] / theta, r[2] / theta];
        let wx = cross(&w, x);
        let tmp = (w[0] * x[0] + w[1] * x[1] + w[2] * x[2]) * (1.0 - cos);
        [
            x[0] * cos + wx[0] * sin + w[0] * tmp,
            x[1] * cos + wx[1] * sin + w[1] * tmp,
            x[2] * cos + wx[2] * sin + w[2] * tmp,
        ]
    } else {
        let rx = cross(r, x);
        [x[0] + rx[0], x[1] + rx[1], x[2] + rx[2]]
    }
}

/// ADBench's projection, on stack arrays.
#[inline]
pub fn project_hand(cam: &[f64; 11], x: &[f64; 3]) -> [f64; 2] {
    let r = [cam[0], cam[1], cam[2]];
    let xc = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xr = rodrigues_hand(&r, &xc);
    let p = [xr[0] / xr[2], xr[1] / xr[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    [p[0] * l * cam[6] + cam[7], p[1] * l * cam[6] + cam[8]]
}

/// Reprojection errors of all observations, written into `out` (2 per observation).
pub fn reproj_hand(out: &mut [f64], cams: &[f64], points: &[f64], w: &[f64], feats: &[f64]) {
    let (n, m) = (cams.len() / BA_NCAMPARAMS, points.len() / 3);
    let obs = out.chunks_exact_mut(2).zip(feats.chunks_exact(2).zip(w));
    for (i, (o, (f, &wi))) in obs.enumerate() {
        let c = (i % n) * BA_NCAMPARAMS;
        let cam: &[f64; 11] = cams[c..c + BA_NCAMPARAMS].try_into().unwrap();
        let x: &[f64; 3] = points[(i % m) * 3..(i % m) * 3 + 3].try_into().unwrap();
        let p = project_hand(cam, x);
        o[0] = (p[0] - f[0]) * wi;
        o[1] = (p[1] - f[1]) * wi;
    }
}

// ---- nalgebra (static sizes) --------------------------------------------------------------

/// The projection as a nalgebra user writes it: `Rotation3::new` from the angle-axis vector.
#[inline]
pub fn project_na(cam: &Cam, x: &Vector3<f64>) -> Vector2<f64> {
    let rot = Rotation3::new(cam.fixed_rows::<3>(0).into_owned());
    let xcam = rot * (x - cam.fixed_rows::<3>(3));
    let p = xcam.xy() / xcam.z;
    let rsq = p.norm_squared();
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    p * (l * cam[6]) + cam.fixed_rows::<2>(7)
}

// ---- ndarray ------------------------------------------------------------------------------

fn cross_nd(a: &ArrayView1<f64>, b: &ArrayView1<f64>) -> Array1<f64> {
    array![
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn rodrigues_nd(r: ArrayView1<f64>, x: ArrayView1<f64>) -> Array1<f64> {
    let sqtheta = r.dot(&r);
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (sin, cos) = (theta.sin(), theta.cos());
        let w = &r / theta;
        let wx = cross_nd(&w.view(), &x);
        let tmp = w.dot(&x) * (1.0 - cos);
        &x * cos + wx * sin + w * tmp
    } else {
        &x + &cross_nd(&r, &x)
    }
}

/// The projection on ndarray arrays.
pub fn project_nd(cam: ArrayView1<f64>, x: ArrayView1<f64>) -> Array1<f64> {
    let xc = &x - &cam.slice(s![3..6]);
    let xcam = rodrigues_nd(cam.slice(s![0..3]), xc.view());
    let p = array![xcam[0] / xcam[2], xcam[1] / xcam[2]];
    let rsq = p.dot(&p);
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    p * (l * cam[6]) + cam.slice(s![7..9])
}

// ---- naive: the fsmooth source, a Vec per array operation ---------------------------------

fn rodrigues_naive(r: &[f64], x: &[f64]) -> Vec<f64> {
    use naive::*;
    let sqtheta = sqnorm(r);
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let w = map(r, |v| v / theta);
        let tmp = dot(&w, x) * (1.0 - costheta);
        add(
            &add(&smul(x, costheta), &smul(&cross(&w, x), sintheta)),
            &smul(&w, tmp),
        )
    } else {
        add(x, &cross(r, x))
    }
}

fn radial_distort_naive(k: &[f64], p: &[f64]) -> Vec<f64> {
    let rsq = naive::sqnorm(p);
    naive::smul(p, 1.0 + k[0] * rsq + k[1] * rsq * rsq)
}

/// The projection, a `Vec` per operation.
pub fn project_naive(cam: &[f64], x: &[f64]) -> Vec<f64> {
    let xcam = rodrigues_naive(&cam[0..3], &naive::sub(x, &cam[3..6]));
    let p = vec![xcam[0] / xcam[2], xcam[1] / xcam[2]];
    naive::add(
        &naive::smul(&radial_distort_naive(&cam[9..11], &p), cam[6]),
        &cam[7..9],
    )
}

fn reproj_naive(cams: &[f64], points: &[f64], w: &[f64], feats: &[f64]) -> Vec<f64> {
    let (n, m) = (cams.len() / BA_NCAMPARAMS, points.len() / 3);
    let mut out = Vec::with_capacity(w.len() * 2);
    for (i, wi) in w.iter().enumerate() {
        let cam = &cams[(i % n) * BA_NCAMPARAMS..(i % n + 1) * BA_NCAMPARAMS];
        let x = &points[(i % m) * 3..(i % m) * 3 + 3];
        let e = naive::smul(
            &naive::sub(&project_naive(cam, x), &feats[i * 2..i * 2 + 2]),
            *wi,
        );
        out.extend(e);
    }
    out
}

// ---- workloads ----------------------------------------------------------------------------

/// The standard variants and the other two spellings (`respelled`).
const WITH_SPELLINGS: [Variant; 7] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::Nalgebra,
    Variant::Ndarray,
    Variant::Naive,
    Variant::SpellingB,
    Variant::SpellingC,
];

/// `project` of the first point of `ba/test.txt` through its first camera.
pub struct Project {
    /// Camera and point together, so every variant passes one input pointer through
    /// `black_box` (as nalgebra's tuple is).
    inp: ([f64; 11], [f64; 3]),
    region: Region<'static>,
    out: [f64; 2],
    hand_out: [f64; 2],
    na: (Cam, Vector3<f64>),
    na_out: Vector2<f64>,
    nd: (Array1<f64>, Array1<f64>),
    nd_out: Array1<f64>,
    naive_out: Vec<f64>,
    /// Spellings B and C.
    spelled_out: [[f64; 2]; 2],
}

impl Workload for Project {
    const GROUP: &'static str = "ba_project";
    const SIZE: &'static str = "one camera, one point";
    const NALGEBRA: &'static str = "static";

    fn new() -> Self {
        let inp = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
        let cam: [f64; 11] = inp.cams[..11].try_into().unwrap();
        let x: [f64; 3] = inp.x[..3].try_into().unwrap();
        let mut w = Project {
            inp: (cam, x),
            region: Region::new(),
            out: [0.0; 2],
            hand_out: [0.0; 2],
            na: (Cam::from(cam), Vector3::from(x)),
            na_out: Vector2::zeros(),
            nd: (Array1::from(cam.to_vec()), Array1::from(x.to_vec())),
            nd_out: Array1::zeros(0),
            naive_out: Vec::new(),
            spelled_out: [[0.0; 2]; 2],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_SPELLINGS
    }

    /// B: every array a `build`, Rodrigues inline; C: scalars (`respelled::project_b`,
    /// `project_c`).
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, (cam, x)): (&mut [f64; 2], &([f64; 11], [f64; 3])) =
            black_box((&mut self.spelled_out[K - 1], &self.inp));
        let kernel = match K {
            1 => respelled::project_b,
            _ => respelled::project_c,
        };
        kernel(out, cam, x, &mut self.region).unwrap();
    }

    #[inline]
    fn fsmooth(&mut self) {
        // Array references through `black_box`: constant lengths, as a caller with arrays.
        let (out, (cam, x)): (&mut [f64; 2], &([f64; 11], [f64; 3])) =
            black_box((&mut self.out, &self.inp));
        kernels::project(out, cam, x, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, (cam, x)): (&mut [f64; 2], &([f64; 11], [f64; 3])) =
            black_box((&mut self.hand_out, &self.inp));
        *out = project_hand(cam, x);
    }

    #[inline]
    fn nalgebra(&mut self) {
        let (out, (cam, x)) = black_box((&mut self.na_out, &self.na));
        *out = project_na(cam, x);
    }

    #[inline]
    fn ndarray(&mut self) {
        let (cam, x) = black_box(&self.nd);
        self.nd_out = project_nd(cam.view(), x.view());
    }

    #[inline]
    fn naive(&mut self) {
        let (cam, x) = black_box(&self.inp);
        self.naive_out = project_naive(cam, x);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.to_vec(),
            Variant::Hand => self.hand_out.to_vec(),
            Variant::Nalgebra => self.na_out.as_slice().to_vec(),
            Variant::Ndarray => self.nd_out.to_vec(),
            Variant::Naive => self.naive_out.clone(),
            Variant::SpellingB => self.spelled_out[0].to_vec(),
            Variant::SpellingC => self.spelled_out[1].to_vec(),
            _ => unreachable!("not a variant of this workload"),
        }
    }

    fn tolerance() -> f64 {
        1e-10
    }
}

/// The reprojection errors of all 31,843 observations of `ba1_n49_m7776_p31843`.
pub struct Reproj {
    cams: Vec<f64>,
    points: Vec<f64>,
    w: Vec<f64>,
    feats: Vec<f64>,
    region: Region<'static>,
    out: Vec<f64>,
    hand_out: Vec<f64>,
    na: (Vec<Cam>, Vec<Vector3<f64>>, Vec<Vector2<f64>>),
    na_out: Vec<Vector2<f64>>,
    nd: (Array2<f64>, Array2<f64>, Array1<f64>, Array2<f64>),
    nd_out: Array2<f64>,
    naive_out: Vec<f64>,
    /// Spellings B and C.
    spelled_out: [Vec<f64>; 2],
}

impl Workload for Reproj {
    const GROUP: &'static str = "ba_reproj";
    const SIZE: &'static str = "ba1_n49_m7776_p31843: 31,843 observations";
    const NALGEBRA: &'static str = "static";

    fn new() -> Self {
        let text = std::fs::read_to_string(data_path("ba/ba1_n49_m7776_p31843.txt")).unwrap();
        let inp = parse_ba(&text).unwrap();
        let na = (
            inp.cams
                .chunks_exact(BA_NCAMPARAMS)
                .map(Cam::from_column_slice)
                .collect(),
            inp.x
                .chunks_exact(3)
                .map(Vector3::from_column_slice)
                .collect(),
            inp.feats
                .chunks_exact(2)
                .map(Vector2::from_column_slice)
                .collect(),
        );
        let nd = (
            Array2::from_shape_vec((inp.n, BA_NCAMPARAMS), inp.cams.clone()).unwrap(),
            Array2::from_shape_vec((inp.m, 3), inp.x.clone()).unwrap(),
            Array1::from(inp.w.clone()),
            Array2::from_shape_vec((inp.p, 2), inp.feats.clone()).unwrap(),
        );
        let mut w = Reproj {
            out: vec![0.0; inp.p * 2],
            spelled_out: [vec![0.0; inp.p * 2], vec![0.0; inp.p * 2]],
            hand_out: vec![0.0; inp.p * 2],
            cams: inp.cams,
            points: inp.x,
            w: inp.w,
            feats: inp.feats,
            region: Region::new(),
            na,
            na_out: Vec::new(),
            nd,
            nd_out: Array2::zeros((0, 2)),
            naive_out: Vec::new(),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_SPELLINGS
    }

    /// B: the projection's arrays as `build`s, each error a `build` over two coordinates;
    /// C: the projection in scalars, each error an array literal (`respelled::reproj_b`,
    /// `reproj_c`).
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let kernel = match K {
            1 => respelled::reproj_b,
            _ => respelled::reproj_c,
        };
        kernel(
            black_box(&mut self.spelled_out[K - 1]),
            black_box(&self.cams),
            black_box(&self.points),
            black_box(&self.w),
            black_box(&self.feats),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn fsmooth(&mut self) {
        kernels::reproj_errors(
            black_box(&mut self.out),
            black_box(&self.cams),
            black_box(&self.points),
            black_box(&self.w),
            black_box(&self.feats),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        reproj_hand(
            black_box(&mut self.hand_out),
            black_box(&self.cams),
            black_box(&self.points),
            black_box(&self.w),
            black_box(&self.feats),
        );
    }

    #[inline]
    fn nalgebra(&mut self) {
        let (cams, points, feats) = black_box(&self.na);
        let w = black_box(&self.w);
        let (n, m) = (cams.len(), points.len());
        self.na_out = (0..feats.len())
            .map(|i| (project_na(&cams[i % n], &points[i % m]) - feats[i]) * w[i])
            .collect();
    }

    #[inline]
    fn ndarray(&mut self) {
        let (cams, points, w, feats) = black_box(&self.nd);
        let (n, m) = (cams.nrows(), points.nrows());
        let mut out = Array2::zeros((feats.nrows(), 2));
        for (i, mut row) in out.rows_mut().into_iter().enumerate() {
            let e = (project_nd(cams.row(i % n), points.row(i % m)) - feats.row(i)) * w[i];
            row.assign(&e);
        }
        self.nd_out = out;
    }

    #[inline]
    fn naive(&mut self) {
        let (c, p, w, f) = black_box((&self.cams, &self.points, &self.w, &self.feats));
        self.naive_out = reproj_naive(c, p, w, f);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.clone(),
            Variant::Hand => self.hand_out.clone(),
            Variant::Nalgebra => self.na_out.iter().flat_map(|e| [e.x, e.y]).collect(),
            Variant::Ndarray => self.nd_out.iter().copied().collect(),
            Variant::Naive => self.naive_out.clone(),
            Variant::SpellingB => self.spelled_out[0].to_vec(),
            Variant::SpellingC => self.spelled_out[1].to_vec(),
            _ => unreachable!("not a variant of this workload"),
        }
    }

    fn tolerance() -> f64 {
        1e-10
    }
}
