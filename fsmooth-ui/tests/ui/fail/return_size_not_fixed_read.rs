// A return size no parameter fixes, read in the body too: one error, on the return type
// (the body's use of the size raises nothing more).
fsmooth::fsmooth! {
    pub fn fill(x: f32) -> [f32; n] {
        build(n, |_i| x)
    }
}

fn main() {}
