// A Rust call of a kernel with arguments that are not a contiguous row-major run of the
// kernel's element type (LANGUAGE.md section 17): a VecDeque (two runs), f32 data for an f64
// parameter, and an output that is not mutable. rustc names what is accepted.
use fsmooth::{Region, fsmooth};
use std::collections::VecDeque;

fsmooth! {
    /// Sum of two vectors.
    pub fn add2(a: [f64; n], b: [f64; n]) -> [f64; n] {
        add(a, b)
    }
}

fn main() {
    let mut out = vec![0.0; 3];
    let ring: VecDeque<f64> = VecDeque::from(vec![1.0; 3]);
    let _ = add2(&mut out, &ring, &[2.0; 3], &mut Region::new());
    let single = vec![1.0f32; 3];
    let _ = add2(&mut out, &single, &[2.0; 3], &mut Region::new());
    let _ = add2(&mut std::rc::Rc::<[f64]>::from(out), &[1.0; 3], &[2.0; 3], &mut Region::new());
}
