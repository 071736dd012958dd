// A type fsmooth does not have, in the return type: its error alone, not a mismatch with
// the body as well (one mistake, one error).
fsmooth::fsmooth! {
    pub fn first(x: [f64; n]) -> i32 {
        0
    }
}

fn main() {}
