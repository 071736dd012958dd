// `scatter_add` takes the length, the step count and the step.
fsmooth::fsmooth! {
    pub fn g(x: [f64; n], idx: [usize; n]) -> [f64; 4] {
        scatter_add(4, |i| (idx[i], x[i]))
    }
}

fn main() {}
