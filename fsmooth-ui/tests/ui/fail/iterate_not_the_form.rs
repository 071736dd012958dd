// A call named as a form of section 14, not of its form, where the block has no function of
// that name.
fsmooth::fsmooth! {
    pub fn g(x: f64) -> f64 {
        iterate(x, 10)
    }
}

fn main() {}
