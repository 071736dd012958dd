// An index is a `usize`: a whole float literal in it is the mistake, not the size
// (LANGUAGE.md sections 10 and 16: `/` on `usize` rounds down).
fsmooth::fsmooth! {
    pub fn middle(x: [f64; n]) -> f64 {
        x[n / 2.0]
    }
}

fn main() {}
