//! ADBench's hand-tracking objective, simple variant (issue 18): 22 bones, 544 vertices,
//! the residuals of `hand/test.txt` (2 points) and of `hand1_t26_c100` (100 points). The
//! bone parents and the points' vertices are index arrays.
//!
//! The fsmooth variant is `kernels::hand`, whose index arrays are checked once at entry.

use super::{Variant, Workload};
use fsmooth::Region;
use fsmooth_testdata::hand::{self, Mat4};
use nalgebra::{Matrix3, Matrix4, Rotation3, Vector3};
use std::hint::black_box;

// ---- hand-written -------------------------------------------------------------------------

/// Bone `i`'s Euler angles from `theta` (ADBench's pose-parameter layout: from bone 2 on,
/// each finger has three posed bones, the first with two angles, then one at rest).
#[inline]
fn pose(theta: &[f64], i: usize) -> [f64; 3] {
    if i < 2 || (i - 2) / 4 >= 5 {
        return [0.0; 3];
    }
    let (f, k) = ((i - 2) / 4, (i - 2) % 4);
    match k {
        0 => [theta[6 + 4 * f], theta[7 + 4 * f], 0.0],
        3 => [0.0; 3],
        _ => [theta[7 + 4 * f + k], 0.0, 0.0],
    }
}

/// The model and one input, flat, as every variant but nalgebra takes them.
pub struct HandArgs {
    pub theta: Vec<f64>,
    pub parents: Vec<usize>,
    pub base_relatives: Vec<Mat4>,
    pub inverse_base_absolutes: Vec<Mat4>,
    pub base_positions: Vec<[f64; 3]>,
    /// `v * b`, row per vertex.
    pub weights: Vec<f64>,
    pub correspondences: Vec<usize>,
    pub points: Vec<[f64; 3]>,
}

impl HandArgs {
    /// Model `m` and input `inp`.
    pub fn new(m: &hand::Model, inp: &hand::Input) -> HandArgs {
        HandArgs {
            theta: inp.theta.clone(),
            parents: m.parents_index(),
            base_relatives: m.base_relatives.clone(),
            inverse_base_absolutes: m.inverse_base_absolutes.clone(),
            base_positions: m.base_positions.clone(),
            weights: m.weights.clone(),
            correspondences: inp.correspondences.clone(),
            points: inp.points.clone(),
        }
    }
}

/// The residuals in loops over slices; `abs` and `transforms` (one per bone) are the
/// workspace, made once.
pub fn objective_hand(out: &mut [f64], a: &HandArgs, abs: &mut [Mat4], transforms: &mut [Mat4]) {
    let nb = a.parents.len();
    for b in 0..nb {
        let r = hand::euler_to_rotation(&pose(&a.theta, b));
        // base * [[r, 0], [0, 1]]
        let base = &a.base_relatives[b];
        let mut rel = [[0.0; 4]; 4];
        for i in 0..4 {
            for j in 0..3 {
                rel[i][j] = base[i][0] * r[0][j] + base[i][1] * r[1][j] + base[i][2] * r[2][j];
            }
            rel[i][3] = base[i][3];
        }
        let p = a.parents[b];
        abs[b] = if p == b {
            rel
        } else {
            hand::mat4_mul(&abs[p], &rel)
        };
        transforms[b] = hand::mat4_mul(&abs[b], &a.inverse_base_absolutes[b]);
    }
    let g = hand::angle_axis_to_rotation(&[a.theta[0], a.theta[1], a.theta[2]]);
    let rows = out.chunks_exact_mut(3).zip(&a.correspondences);
    for ((o, &v), pt) in rows.zip(&a.points) {
        let x = &a.base_positions[v];
        let mut s = [0.0; 3];
        for (t, &w) in transforms.iter().zip(&a.weights[v * nb..(v + 1) * nb]) {
            for r in 0..3 {
                s[r] += (t[r][0] * x[0] + t[r][1] * x[1] + t[r][2] * x[2] + t[r][3]) * w;
            }
        }
        for r in 0..3 {
            o[r] = pt[r] - (g[r][0] * s[0] + g[r][1] * s[1] + g[r][2] * s[2] + a.theta[3 + r]);
        }
    }
}

// ---- nalgebra -----------------------------------------------------------------------------

/// The inputs in nalgebra's types, and its workspace.
pub struct HandNa {
    parents: Vec<usize>,
    base_relatives: Vec<Matrix4<f64>>,
    inverse_base_absolutes: Vec<Matrix4<f64>>,
    base_positions: Vec<Vector3<f64>>,
    weights: Vec<f64>,
    correspondences: Vec<usize>,
    points: Vec<Vector3<f64>>,
    abs: Vec<Matrix4<f64>>,
    transforms: Vec<Matrix4<f64>>,
}

/// The residuals as a nalgebra user writes them: `Rotation3::from_euler_angles` (roll,
/// pitch, yaw: `Rz(yaw) Ry(pitch) Rx(roll)`), `Rotation3::new` for the angle-axis vector,
/// homogeneous 4x4 products.
pub fn objective_na(theta: &[f64], d: &mut HandNa, out: &mut Vec<Vector3<f64>>) {
    let nb = d.parents.len();
    for b in 0..nb {
        let p = pose(theta, b);
        let rot = Rotation3::from_euler_angles(p[0], p[2], p[1]).to_homogeneous();
        let rel = d.base_relatives[b] * rot;
        let parent = d.parents[b];
        d.abs[b] = if parent == b {
            rel
        } else {
            d.abs[parent] * rel
        };
        d.transforms[b] = d.abs[b] * d.inverse_base_absolutes[b];
    }
    let r = Vector3::new(theta[0], theta[1], theta[2]);
    let g = if r.norm() < 1e-4 {
        Matrix3::identity()
    } else {
        Rotation3::new(r).into_inner()
    };
    let t = Vector3::new(theta[3], theta[4], theta[5]);
    out.clear();
    for (&v, pt) in d.correspondences.iter().zip(&d.points) {
        let x = d.base_positions[v].push(1.0);
        let ws = &d.weights[v * nb..(v + 1) * nb];
        let s: Vector3<f64> = d
            .transforms
            .iter()
            .zip(ws)
            .map(|(m, &w)| (m.fixed_view::<3, 4>(0, 0) * x) * w)
            .sum();
        out.push(pt - (g * s + t));
    }
}

// ---- the workload -------------------------------------------------------------------------

/// The hand objective on `hand/test.txt` (`SMALL = false`, 2 points) or on
/// `hand1_t26_c100` (100 points).
pub struct Hand<const C100: bool> {
    args: HandArgs,
    /// The flat arrays of the fsmooth kernel.
    flat: [Vec<f64>; 5],
    region: Region<'static>,
    out: Vec<f64>,
    hand_out: Vec<f64>,
    work: (Vec<Mat4>, Vec<Mat4>),
    na: HandNa,
    na_out: Vec<Vector3<f64>>,
    /// Spellings B and C.
    spelled_out: [Vec<f64>; 2],
}

impl<const C100: bool> Workload for Hand<C100> {
    const GROUP: &'static str = if C100 { "hand_c100" } else { "hand_c2" };
    const SIZE: &'static str = if C100 {
        "hand1_t26_c100: 22 bones, 544 vertices, 100 points"
    } else {
        "hand/test.txt: 22 bones, 544 vertices, 2 points"
    };
    const NALGEBRA: &'static str = "static";

    fn variants() -> &'static [Variant] {
        &[
            Variant::Fsmooth,
            Variant::Hand,
            Variant::Nalgebra,
            Variant::SpellingB,
            Variant::SpellingC,
        ]
    }

    fn new() -> Self {
        let m = hand::model();
        let text = if C100 { hand::SIMPLE_SMALL } else { hand::TEST };
        let inp = hand::parse_input(text, m.n_vertices()).unwrap();
        let nb = m.n_bones();
        let args = HandArgs::new(&m, &inp);
        let mat = |a: &Mat4| Matrix4::from_row_slice(a.as_flattened());
        let na = HandNa {
            parents: args.parents.clone(),
            base_relatives: m.base_relatives.iter().map(mat).collect(),
            inverse_base_absolutes: m.inverse_base_absolutes.iter().map(mat).collect(),
            base_positions: m.base_positions.iter().map(|x| Vector3::from(*x)).collect(),
            weights: m.weights.clone(),
            correspondences: inp.correspondences.clone(),
            points: inp.points.iter().map(|x| Vector3::from(*x)).collect(),
            abs: vec![Matrix4::zeros(); nb],
            transforms: vec![Matrix4::zeros(); nb],
        };
        let c = inp.points.len();
        let mut w = Hand {
            flat: [
                m.base_relatives_flat(),
                m.inverse_base_absolutes_flat(),
                m.base_positions_flat(),
                m.weights.clone(),
                inp.points_flat(),
            ],
            args,
            region: Region::new(),
            out: vec![0.0; c * 3],
            hand_out: vec![0.0; c * 3],
            spelled_out: [vec![0.0; c * 3], vec![0.0; c * 3]],
            work: (vec![[[0.0; 4]; 4]; nb], vec![[[0.0; 4]; 4]; nb]),
            na,
            na_out: Vec::with_capacity(c),
        };
        super::check(&mut w);
        // The reference implementation agrees too.
        let want = hand::objective(&m, &inp);
        for (g, e) in w.out.iter().zip(&want) {
            assert!(
                (g - e).abs() <= 1e-10 * e.abs().max(1.0),
                "{g} vs reference {e}"
            );
        }
        w
    }

    #[inline]
    fn fsmooth(&mut self) {
        let out = black_box(&mut self.out);
        let [rel, ibase, pos, weights, pts] = black_box(&self.flat);
        let theta = black_box(&self.args.theta);
        let (par, cor) = black_box((&self.args.parents, &self.args.correspondences));
        super::kernels::hand::objective(
            out,
            theta,
            par,
            rel,
            ibase,
            pos,
            weights,
            cor,
            pts,
            &mut self.region,
        )
        .unwrap();
    }

    /// B: the prelude's matrix functions (the homogeneous rotation's `matmul`, the skinning a
    /// `matvec` per bone added to an array state, `sub` and `add` for the residual); C:
    /// written-out builds and sums (the Euler rotation written out, the update in place
    /// testing `j != k`, `map2` for the transforms, one sum over the bones per coordinate).
    /// `respelled::hand_b`, `hand_c`.
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let out = black_box(&mut self.spelled_out[K - 1]);
        let [rel, ibase, pos, weights, pts] = black_box(&self.flat);
        let theta = black_box(&self.args.theta);
        let (par, cor) = black_box((&self.args.parents, &self.args.correspondences));
        let kernel = match K {
            1 => super::respelled::hand_b,
            _ => super::respelled::hand_c,
        };
        kernel(
            out,
            theta,
            par,
            rel,
            ibase,
            pos,
            weights,
            cor,
            pts,
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, args) = black_box((&mut self.hand_out, &self.args));
        objective_hand(out, args, &mut self.work.0, &mut self.work.1);
    }

    #[inline]
    fn nalgebra(&mut self) {
        let theta = black_box(&self.args.theta);
        objective_na(theta, black_box(&mut self.na), &mut self.na_out);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.clone(),
            Variant::Hand => self.hand_out.clone(),
            Variant::Nalgebra => self.na_out.iter().flat_map(|e| [e.x, e.y, e.z]).collect(),
            Variant::SpellingB => self.spelled_out[0].clone(),
            Variant::SpellingC => self.spelled_out[1].clone(),
            _ => unreachable!(),
        }
    }

    fn tolerance() -> f64 {
        1e-10
    }
}
