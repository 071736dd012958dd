use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f64) -> f64 {
        let mut s = x;
        while s < 1.0 {
            s = s * 2.0;
        }
        s
    }
}

fn main() {}
