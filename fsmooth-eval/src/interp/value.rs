//! The values of the source language.

/// A run-time value of the source language.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An `f64` scalar.
    F64(f64),
    /// A `usize` scalar (an index or a size).
    Usize(usize),
    /// A `bool`.
    Bool(bool),
    /// An array `[T; n]`: its n elements, each a value of type T (never a tuple).
    Array(Vec<Value>),
    /// A tuple `(T1, T2, ..)`: its components (two or more), which may be tuples.
    Tuple(Vec<Value>),
}

impl Value {
    /// A 1-D f64 array.
    pub fn vec(xs: &[f64]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::F64(x)).collect())
    }

    /// A row-major 2-D array with `cols` columns from flat data: `data.len() / cols` rows
    /// (rounded down: trailing values that do not fill a row are dropped). With `cols == 0`
    /// the result is the empty array.
    pub fn matrix(data: &[f64], cols: usize) -> Value {
        if cols == 0 {
            return Value::Array(Vec::new());
        }
        Value::Array(data.chunks_exact(cols).map(Value::vec).collect())
    }

    /// Row-major flattening of an (arbitrarily nested) array, as the generated kernels lay
    /// arrays out. Scalars flatten to one element (`usize` by `as f64`, `bool` to 0 or 1); a
    /// tuple flattens to its components' flattenings one after the other (to compare a
    /// kernel's several results one by one, flatten each of [`Value::parts`]).
    pub fn flatten(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.flatten_into(&mut out);
        out
    }

    fn flatten_into(&self, out: &mut Vec<f64>) {
        match self {
            Value::F64(x) => out.push(*x),
            Value::Usize(k) => out.push(*k as f64),
            Value::Bool(b) => out.push(if *b { 1.0 } else { 0.0 }),
            Value::Array(xs) | Value::Tuple(xs) => {
                for x in xs {
                    x.flatten_into(out);
                }
            }
        }
    }

    /// A tuple's components, in position order; any other value is its own only part. For a
    /// kernel with several results, part `I` is what the generated code writes to `outI` (an
    /// array) or returns (a scalar).
    pub fn parts(&self) -> &[Value] {
        match self {
            Value::Tuple(xs) => xs,
            other => std::slice::from_ref(other),
        }
    }

    /// The number inside an [`Value::F64`]; `None` for any other value.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(x) => Some(*x),
            _ => None,
        }
    }
}

/// The type of a value, as fsmooth would write it.
pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::F64(_) => "f64".into(),
        Value::Usize(_) => "usize".into(),
        Value::Bool(_) => "bool".into(),
        Value::Array(xs) => match xs.first() {
            None => "[_; 0]".into(),
            Some(x0) if xs.iter().all(|x| same_shape(x0, x)) => {
                format!("[{}; {}]", describe(x0), xs.len())
            }
            Some(_) => format!("a ragged array of {} elements", xs.len()),
        },
        Value::Tuple(xs) => {
            let parts: Vec<String> = xs.iter().map(describe).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// Same scalar type, or arrays of the same length whose elements pairwise have the same
/// shape, or tuples of as many components whose components pairwise have the same shape.
pub(super) fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F64(_), Value::F64(_))
        | (Value::Usize(_), Value::Usize(_))
        | (Value::Bool(_), Value::Bool(_)) => true,
        (Value::Array(xs), Value::Array(ys)) | (Value::Tuple(xs), Value::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_shape(x, y))
        }
        _ => false,
    }
}
