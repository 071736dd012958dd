use fsmooth::fsmooth;

fsmooth! {
    pub fn area(r: f32) -> f32 {
        std::f64::consts::PI * r * r
    }
}

fn main() {}
