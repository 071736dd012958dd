use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f32; n], threshold: f64) -> [f32; n] {
        build(n, |i| if x[i] > threshold { x[i] } else { 0.0 })
    }
}

fn main() {}
