// Errors come out in the order of the source, whichever pass finds them: here the checker
// finds the first (a shape) and the parser the second (a `for` loop).
fsmooth::fsmooth! {
    pub fn first(a: [f64; 3], b: [f64; 4]) -> [f64; 3] {
        add(a, b)
    }

    pub fn second(a: [f64; n]) -> f64 {
        for x in a {}
        0.0
    }
}

fn main() {}
