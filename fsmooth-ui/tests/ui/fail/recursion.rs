use fsmooth::fsmooth;

fsmooth! {
    fn f(x: f64) -> f64 {
        f(x - 1.0)
    }

    pub fn k(x: f64) -> f64 {
        f(x)
    }
}

fn main() {}
