//! Stencils with boundaries (issue 21): a 1-D Jacobi iteration whose two ends stay fixed,
//! 10 steps over 1,000 points.

use super::{Rng, Variant, Workload};
use fsmooth::Region;
use std::hint::black_box;

fsmooth::fsmooth! {
    /// `steps` Jacobi sweeps: each inner point becomes the mean of itself and its two
    /// neighbours, the ends stay as they are.
    pub fn jacobi(a0: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, a0, |a, _t| build(n, |i| {
            if i == 0 || i == n - 1 { a[i] } else { (a[i - 1] + a[i] + a[i + 1]) / 3.0 }
        }))
    }
}

/// The same by hand: two buffers in turn, the ends apart, the interior by windows.
#[inline]
pub fn jacobi_hand(out: &mut [f64], a0: &[f64], steps: usize, other: &mut [f64]) {
    let n = a0.len();
    out.copy_from_slice(a0);
    if n < 3 {
        return;
    }
    // `out` holds the state after an even number of sweeps, `other` after an odd one.
    let (mut cur, mut nxt) = (out, other);
    for _ in 0..steps {
        nxt[0] = cur[0];
        nxt[n - 1] = cur[n - 1];
        for (o, w) in nxt[1..n - 1].iter_mut().zip(cur.windows(3)) {
            *o = (w[0] + w[1] + w[2]) / 3.0;
        }
        std::mem::swap(&mut cur, &mut nxt);
    }
    if steps % 2 == 1 {
        nxt.copy_from_slice(cur);
    }
}

/// Points of [`Jacobi`].
pub const JACOBI_N: usize = 1_000;
/// Sweeps of [`Jacobi`].
pub const JACOBI_STEPS: usize = 10;

const VARIANTS: [Variant; 2] = [Variant::Fsmooth, Variant::Hand];

/// Jacobi 1-D, fixed ends, `JACOBI_STEPS` sweeps over `JACOBI_N` points.
pub struct Jacobi {
    a0: Vec<f64>,
    region: Region<'static>,
    other: Vec<f64>,
    out: [Vec<f64>; 2],
}

impl Workload for Jacobi {
    const GROUP: &'static str = "jacobi_1e3";
    const SIZE: &'static str = "n = 1,000, 10 sweeps";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Jacobi {
            a0: Rng::new(31).vec(JACOBI_N),
            region: Region::new(),
            other: vec![0.0; JACOBI_N],
            out: [vec![0.0; JACOBI_N], vec![0.0; JACOBI_N]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &VARIANTS
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (out, a0, steps) = black_box((&mut self.out[0], &self.a0, JACOBI_STEPS));
        jacobi(out, a0, steps, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, a0, steps) = black_box((&mut self.out[1], &self.a0, JACOBI_STEPS));
        jacobi_hand(out, a0, steps, &mut self.other);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[usize::from(v == Variant::Hand)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}
