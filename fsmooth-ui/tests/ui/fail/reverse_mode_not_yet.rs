// Reverse mode is not in this release of the compiler yet.
fsmooth::fsmooth! {
    fn loss(w: [f64; n]) -> f64 { sqnorm(w) }
    pub fn g(w: [f64; n]) -> (f64, [f64; n]) { grad(loss, w) }
}

fn main() {}
