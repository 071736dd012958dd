//! What the differential tests of the executor share: the generated programs' arguments
//! for the executor and the interpreter, and how results are compared.

use fsmooth_eval::exec::{Arg, Outputs, Scalar};
use fsmooth_eval::interp::Value;
use fsmooth_testdata::progen::{ArgValue, Elem, Inputs, Part, Program};

/// A count from the environment, or `default`.
pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The arguments of program `p`'s kernel on inputs `i`, each in its element type.
pub fn program_args(p: &Program, i: &Inputs) -> Vec<(&'static str, Arg)> {
    p.params
        .iter()
        .map(|q| {
            let arg = match q.value(i) {
                ArgValue::F64(x) => Arg::F64(x),
                ArgValue::F32(x) => Arg::F32(x),
                ArgValue::Usize(k) => Arg::Usize(k),
                ArgValue::F64s(v) => Arg::Array(v),
                ArgValue::F32s(v) => Arg::F32s(v),
                ArgValue::Usizes(v) => Arg::Usizes(v),
            };
            (q.name, arg)
        })
        .collect()
}

/// The same arguments for the interpreter (matrices as rows).
pub fn program_values(p: &Program, i: &Inputs) -> Vec<Value> {
    p.params
        .iter()
        .map(|q| match (q.value(i), q.cols(i)) {
            (ArgValue::F64(x), _) => Value::F64(x),
            (ArgValue::F32(x), _) => Value::F32(x),
            (ArgValue::Usize(k), _) => Value::Usize(k),
            (ArgValue::F64s(v), None) => Value::vec(&v),
            (ArgValue::F64s(v), Some(c)) => Value::matrix(&v, c),
            (ArgValue::F32s(v), None) => Value::vec_f32(&v),
            (ArgValue::F32s(v), Some(c)) => Value::matrix_f32(&v, c),
            (ArgValue::Usizes(v), None) => Value::usizes(&v),
            (ArgValue::Usizes(v), Some(c)) => Value::usize_matrix(&v, c),
        })
        .collect()
}

fn scalar(s: &Scalar) -> f64 {
    match s {
        Scalar::F64(x) => *x,
        Scalar::F32(x) => f64::from(*x),
        Scalar::Usize(k) => *k as f64,
        Scalar::Bool(b) => f64::from(u8::from(*b)),
    }
}

/// Do the executor's outputs and scalar results equal the interpreter's result, component
/// by component (each array component against its output, in order, and each scalar
/// component against the returned scalars, in order), each as its element type asks
/// (`parts`, the generator's: usize exactly, f32 and f64 each with its tolerance)?
pub fn same_results(got: &Outputs, want: &Value, parts: &[Part]) -> bool {
    parts_agree(got, want, parts, &|elem, g, w| {
        g.iter().zip(w).all(|(a, b)| elem.agree(*a, *b))
    })
}

/// Whether a part's values agree with the interpreter's (of one length), by element type.
pub type PartsAgree = dyn Fn(Elem, &[f64], &[f64]) -> bool;

/// Each part of the executor's outputs against the interpreter's, in the order of
/// [`same_results`], by `agree(element type, got, want)` on parts of one length.
pub fn parts_agree(got: &Outputs, want: &Value, parts: &[Part], agree: &PartsAgree) -> bool {
    let same = |elem: Elem, g: &[f64], w: &[f64]| g.len() == w.len() && agree(elem, g, w);
    if want.parts().len() != parts.len() {
        return false;
    }
    let (mut arrays, mut scalars) = (got.arrays.iter(), got.scalars.iter());
    for (part, kind) in want.parts().iter().zip(parts) {
        let ok = match part {
            Value::Array(_) => arrays
                .next()
                .is_some_and(|g| same(kind.elem, g, &part.flatten())),
            _ => scalars
                .next()
                .is_some_and(|g| same(kind.elem, &[scalar(g)], &part.flatten())),
        };
        if !ok {
            return false;
        }
    }
    arrays.next().is_none() && scalars.next().is_none()
}

/// [`same_results`] with each part's tolerance scaled by its largest value (at least 1): an
/// element that cancels (terms of thousands summing to tens) keeps only the terms' absolute
/// rounding, which differs with the order of the additions (a reassociated sum, a
/// derivative's reordered operations).
pub fn same_at_scale(got: &Outputs, want: &Value, parts: &[Part]) -> bool {
    parts_agree(got, want, parts, &|elem, g, w| {
        let scale = match elem {
            Elem::Usize => 1.0,
            _ => w.iter().fold(
                1.0f64,
                |m, x| if x.is_finite() { m.max(x.abs()) } else { m },
            ),
        };
        g.iter()
            .zip(w)
            .all(|(a, b)| elem.agree(a / scale, b / scale))
    })
}
