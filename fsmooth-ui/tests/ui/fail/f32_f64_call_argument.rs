use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f32; n], s: f64) -> [f32; n] {
        smul(v, s)
    }
}

fn main() {}
