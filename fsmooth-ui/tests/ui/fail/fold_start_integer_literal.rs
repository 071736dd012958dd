// A fold over floats started from an integer literal: one error on the literal, naming the
// float to write (a cast of the state would compile and count wrong).
fsmooth::fsmooth! {
    pub fn total(x: [f32; n]) -> f32 {
        ifold(n, 0, |acc, i| acc + x[i])
    }

    pub fn count_and_sum(x: [f64; n]) -> (usize, f64) {
        ifold(n, (0, 0), |(c, s), i| (c + 1, s + x[i]))
    }
}

fn main() {}
