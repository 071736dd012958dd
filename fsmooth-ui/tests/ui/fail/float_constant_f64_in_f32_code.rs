// In `f32` code the `f32` constants: the hint names them, not a cast to `f64`.
fsmooth::fsmooth! {
    pub fn phase(f: f32, i: usize) -> f32 {
        2.0 * core::f64::consts::PI * f * (i as f32)
    }

    pub fn bin(k: f32, n: usize) -> f32 {
        2.0 * PI * k / (n as f32)
    }
}

fn main() {}
