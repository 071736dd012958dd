use fsmooth::fsmooth;

fsmooth! {
    fn even(x: f64) -> f64 {
        odd(x)
    }

    fn odd(x: f64) -> f64 {
        even(x)
    }

    pub fn k(x: f64) -> f64 {
        even(x)
    }
}

fn main() {}
