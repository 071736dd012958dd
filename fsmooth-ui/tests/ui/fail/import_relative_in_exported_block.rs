// A block that other blocks import imports by absolute paths only: its source is compiled
// where it is imported.
fsmooth::fsmooth! {
    pub mod a;
    pub fn twice(x: f64) -> f64 { 2.0 * x }
}

pub mod inner {
    fsmooth::fsmooth! {
        pub mod b;
        use super::a::twice;
        pub fn four(x: f64) -> f64 { twice(twice(x)) }
    }
}

fn main() {}
