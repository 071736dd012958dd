//! The paper's micro benchmarks (section 6.1): `add3` on 100 elements, `cross` on 3.

use super::{Rng, Variant, Workload, kernels, naive};
use fsmooth::Region;
use nalgebra::{DVector, Vector3};
use ndarray::{Array1, array};
use std::hint::black_box;

/// `add(add(a, b), c)` on vectors of 100 elements.
pub struct Add3 {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    region: Region<'static>,
    out: Vec<f64>,
    hand_out: Vec<f64>,
    na: [DVector<f64>; 3],
    na_out: DVector<f64>,
    nd: [Array1<f64>; 3],
    nd_out: Array1<f64>,
    naive_out: Vec<f64>,
    /// Outputs of the ablation steps D, DF, DFB.
    ablation_out: [Vec<f64>; 3],
}

pub const ADD3_N: usize = 100;

/// Hand-written add3.
#[inline]
pub fn add3_hand(out: &mut [f64], a: &[f64], b: &[f64], c: &[f64]) {
    for (o, ((x, y), z)) in out.iter_mut().zip(a.iter().zip(b).zip(c)) {
        *o = x + y + z;
    }
}

impl Workload for Add3 {
    const GROUP: &'static str = "add3";
    const SIZE: &'static str = "n = 100";
    const NALGEBRA: &'static str = "dynamic";

    fn new() -> Self {
        let mut rng = Rng::new(1);
        let (a, b, c) = (rng.vec(ADD3_N), rng.vec(ADD3_N), rng.vec(ADD3_N));
        let dv = |v: &Vec<f64>| DVector::from_column_slice(v);
        let av = |v: &Vec<f64>| Array1::from(v.clone());
        let mut w = Add3 {
            na: [dv(&a), dv(&b), dv(&c)],
            nd: [av(&a), av(&b), av(&c)],
            a,
            b,
            c,
            region: Region::new(),
            out: vec![0.0; ADD3_N],
            hand_out: vec![0.0; ADD3_N],
            na_out: DVector::zeros(0),
            nd_out: Array1::zeros(0),
            naive_out: Vec::new(),
            ablation_out: [vec![0.0; ADD3_N], vec![0.0; ADD3_N], vec![0.0; ADD3_N]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &super::WITH_ABLATION
    }

    #[inline]
    fn ablation<const STEP: usize>(&mut self) {
        // Direct calls (no function pointer): STEP is a constant, the match folds away.
        let out = black_box(&mut self.ablation_out[STEP]);
        let (a, b, c) = black_box((&self.a, &self.b, &self.c));
        let r = match STEP {
            0 => kernels::d::add3(out, a, b, c, &mut self.region),
            1 => kernels::df::add3(out, a, b, c, &mut self.region),
            _ => kernels::dfb::add3(out, a, b, c, &mut self.region),
        };
        r.unwrap();
    }

    #[inline]
    fn fsmooth(&mut self) {
        kernels::add3(
            black_box(&mut self.out),
            black_box(&self.a),
            black_box(&self.b),
            black_box(&self.c),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        add3_hand(
            black_box(&mut self.hand_out),
            black_box(&self.a),
            black_box(&self.b),
            black_box(&self.c),
        );
    }

    #[inline]
    fn nalgebra(&mut self) {
        let [a, b, c] = black_box(&self.na);
        self.na_out = a + b + c;
    }

    #[inline]
    fn ndarray(&mut self) {
        let [a, b, c] = black_box(&self.nd);
        self.nd_out = a + b + c;
    }

    #[inline]
    fn naive(&mut self) {
        let (a, b, c) = black_box((&self.a, &self.b, &self.c));
        self.naive_out = naive::add(&naive::add(a, b), c);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.clone(),
            Variant::Hand => self.hand_out.clone(),
            Variant::Nalgebra => self.na_out.as_slice().to_vec(),
            Variant::Ndarray => self.nd_out.to_vec(),
            Variant::Naive => self.naive_out.clone(),
            Variant::D => self.ablation_out[0].clone(),
            Variant::DF => self.ablation_out[1].clone(),
            Variant::DFB => self.ablation_out[2].clone(),
            Variant::HandIjk
            | Variant::NoViews
            | Variant::Reassociated
            | Variant::NumDual
            | Variant::SpellingB
            | Variant::SpellingC
            | Variant::HandDyn => unreachable!(),
        }
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// `cross(a, b)` on 3-vectors.
pub struct Cross {
    ab: [[f64; 3]; 2],
    region: Region<'static>,
    out: [f64; 3],
    hand_out: [f64; 3],
    na: [Vector3<f64>; 2],
    na_out: Vector3<f64>,
    nd: [Array1<f64>; 2],
    nd_out: Array1<f64>,
    naive_out: Vec<f64>,
}

/// Hand-written cross product.
#[inline]
pub fn cross_hand(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl Workload for Cross {
    const GROUP: &'static str = "cross";
    const SIZE: &'static str = "n = 3";
    const NALGEBRA: &'static str = "static";

    fn new() -> Self {
        let mut rng = Rng::new(2);
        let a = [rng.f64(), rng.f64(), rng.f64()];
        let b = [rng.f64(), rng.f64(), rng.f64()];
        let mut w = Cross {
            ab: [a, b],
            region: Region::new(),
            out: [0.0; 3],
            hand_out: [0.0; 3],
            na: [Vector3::from(a), Vector3::from(b)],
            na_out: Vector3::zeros(),
            nd: [Array1::from(a.to_vec()), Array1::from(b.to_vec())],
            nd_out: Array1::zeros(0),
            naive_out: Vec::new(),
        };
        super::check(&mut w);
        w
    }

    #[inline]
    fn fsmooth(&mut self) {
        // Array references through `black_box`, so the kernel sees constant lengths as a
        // caller with arrays does.
        let (out, [a, b]): (&mut [f64; 3], &[[f64; 3]; 2]) = black_box((&mut self.out, &self.ab));
        kernels::cross3(out, a, b, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, [a, b]): (&mut [f64; 3], &[[f64; 3]; 2]) =
            black_box((&mut self.hand_out, &self.ab));
        *out = cross_hand(a, b);
    }

    #[inline]
    fn nalgebra(&mut self) {
        let (out, [a, b]) = black_box((&mut self.na_out, &self.na));
        *out = a.cross(b);
    }

    #[inline]
    fn ndarray(&mut self) {
        // ndarray has no cross product: written out on its arrays.
        let [a, b] = black_box(&self.nd);
        self.nd_out = array![
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ];
    }

    #[inline]
    fn naive(&mut self) {
        let [a, b] = black_box(&self.ab);
        self.naive_out = naive::cross(a, b);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.to_vec(),
            Variant::Hand => self.hand_out.to_vec(),
            Variant::Nalgebra => self.na_out.as_slice().to_vec(),
            Variant::Ndarray => self.nd_out.to_vec(),
            Variant::Naive => self.naive_out.clone(),
            _ => unreachable!("not a variant of this workload"),
        }
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// `dot(a, b)` on vectors of 1,000 elements: one sum, in order and in lanes.
pub struct Dot {
    a: Vec<f64>,
    b: Vec<f64>,
    region: Region<'static>,
    /// The results of fsmooth, in order and reassociated, hand-written, nalgebra, ndarray.
    out: [f64; 5],
    na: [DVector<f64>; 2],
    nd: [Array1<f64>; 2],
}

pub const DOT_N: usize = 1000;

impl Workload for Dot {
    const GROUP: &'static str = "dot_1e3";
    const SIZE: &'static str = "n = 1000";
    const NALGEBRA: &'static str = "dynamic";

    fn new() -> Self {
        let mut rng = Rng::new(11);
        let (a, b) = (rng.vec(DOT_N), rng.vec(DOT_N));
        let mut w = Dot {
            na: [
                DVector::from_column_slice(&a),
                DVector::from_column_slice(&b),
            ],
            nd: [Array1::from(a.clone()), Array1::from(b.clone())],
            a,
            b,
            region: Region::new(),
            out: [0.0; 5],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &[
            Variant::Fsmooth,
            Variant::Hand,
            Variant::Nalgebra,
            Variant::Ndarray,
            Variant::Reassociated,
        ]
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (a, b) = black_box((&self.a, &self.b));
        self.out[0] = kernels::dot_product(a, b, &mut self.region).unwrap();
    }

    #[inline]
    fn reassociated(&mut self) {
        let (a, b) = black_box((&self.a, &self.b));
        self.out[1] = kernels::reassoc::dot_product(a, b, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (a, b) = black_box((&self.a, &self.b));
        self.out[2] = a.iter().zip(b).map(|(x, y)| x * y).sum();
    }

    #[inline]
    fn nalgebra(&mut self) {
        let [a, b] = black_box(&self.na);
        self.out[3] = a.dot(b);
    }

    #[inline]
    fn ndarray(&mut self) {
        let [a, b] = black_box(&self.nd);
        self.out[4] = a.dot(b);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let k = match v {
            Variant::Fsmooth => 0,
            Variant::Reassociated => 1,
            Variant::Hand => 2,
            Variant::Nalgebra => 3,
            Variant::Ndarray => 4,
            _ => unreachable!("not a variant of dot_1e3"),
        };
        vec![self.out[k]]
    }
}
