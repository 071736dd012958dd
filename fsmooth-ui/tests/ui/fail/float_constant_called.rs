// Rust's constants are values: `PI`, not `PI()`, and brought in by `use` (LANGUAGE.md
// section 16).
fsmooth::fsmooth! {
    pub fn circle(r: f64) -> f64 {
        PI() * r * r
    }

    pub fn turn(a: f64) -> f64 {
        a / TAU
    }
}

fn main() {}
