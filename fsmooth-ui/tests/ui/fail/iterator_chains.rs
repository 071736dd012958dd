use fsmooth::fsmooth;

fsmooth! {
    pub fn total(x: [f64; n]) -> f64 {
        x.iter().sum()
    }
    pub fn energy(x: [f64; n]) -> f64 {
        x.iter().map(|v| v * v).sum()
    }
    pub fn inner(x: [f64; n], y: [f64; n]) -> f64 {
        x.iter().zip(y.iter()).map(|(a, b)| a * b).sum()
    }
    pub fn peak(x: [f64; n]) -> f64 {
        x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
    }
    pub fn steps(x: [f64; n]) -> f64 {
        x.windows(2).map(|w| w[1] - w[0]).sum()
    }
}

fn main() {}
