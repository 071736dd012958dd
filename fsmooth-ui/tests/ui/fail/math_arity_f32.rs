use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f32) -> f32 {
        x.clamp(0.0)
    }
}

fn main() {}
