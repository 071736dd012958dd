use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f32; n], floor: f64) -> [f32; n] {
        build(n, |i| x[i].max(floor))
    }
}

fn main() {}
