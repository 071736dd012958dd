use fsmooth::fsmooth;

fsmooth! {
    // Appending a vector as one more row needs it as a matrix of one row.
    pub fn k(m: [[f64; 3]; n], v: [f64; 3]) -> [[f64; 3]; n + 1] {
        concat(m, v)
    }
}

fn main() {}
