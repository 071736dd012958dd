use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f64) -> f64 {
        let f = |y| y * 2.0;
        x
    }
}

fn main() {}
