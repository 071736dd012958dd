use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f32; n], b: [f64; n]) -> f32 {
        dot(a, b)
    }
}

fn main() {}
