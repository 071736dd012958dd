use fsmooth::{fsmooth, Error, Region};

fsmooth! {
    /// Sizes compare as polynomials: `2 * n` is `n + n`.
    pub fn doubled(a: [f64; n]) -> [f64; 2 * n] {
        build(n + n, |i| a[i % n])
    }

    fn apply(v: [f64; n], f: fn(f64) -> f64) -> [f64; n] {
        map(v, f)
    }

    pub fn scaled(v: [f64; n], s: f64) -> [f64; n] {
        apply(v, |x| x * s)
    }

    pub fn fixed(a: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
        matmul(a, a)
    }

    pub fn packed(m: [[f64; d]; d]) -> [f64; d * (d + 1) / 2] {
        build(d * (d + 1) / 2, |k| m[0][0] + (k as f64))
    }
}

static mut SLAB: [f64; fixed::SCRATCH_LEN] = [0.0; fixed::SCRATCH_LEN];

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let mut out = [0.0; 4];
    doubled(&mut out, &[1.0, 2.0], &mut region)?;
    assert_eq!(out, [1.0, 2.0, 1.0, 2.0]);
    scaled(&mut out, &[1.0; 4], 3.0, &mut region)?;
    let mut slab = [0.0; fixed::SCRATCH_LEN];
    fixed(&mut out, &[1.0, 0.0, 0.0, 1.0], &mut Region::from_slab(&mut slab))?;
    let mut p = [0.0; 3];
    packed(&mut p, &[1.0; 4], &mut region)?;
    let _ = fixed::OUT_LEN + doubled::out_len(2) + packed::scratch_len(2);
    #[allow(static_mut_refs)]
    let _ = unsafe { SLAB.len() };
    Ok(())
}
