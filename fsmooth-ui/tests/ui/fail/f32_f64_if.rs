use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f32, fallback: f64) -> f32 {
        if x > 0.0 { x } else { fallback }
    }
}

fn main() {}
