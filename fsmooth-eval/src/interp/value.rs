//! The values of the source language.

/// A run-time value of the source language.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An `f64` scalar.
    F64(f64),
    /// An `f32` scalar (LANGUAGE.md section 11), computed in f32 arithmetic.
    F32(f32),
    /// An unsuffixed float literal, or arithmetic and math on such values only, that has
    /// not yet met a typed float: its value computed in f64 and, alongside, in f32. Rust
    /// gives such a literal the type its context needs (`x * 2.0` is f32 for an f32 `x`),
    /// and the whole literal-only expression is then computed in that type; keeping both
    /// computations lets the interpreter take whichever the value meets (an f32 operand, a
    /// declared `f32` type) without knowing the type in advance. With nothing to meet it is
    /// an f64 (the f64 half): [`super::Interp::call`] never returns one.
    Untyped(f64, f32),
    /// A `usize` scalar (an index or a size).
    Usize(usize),
    /// A `bool`.
    Bool(bool),
    /// An array `[T; n]`: its n elements, each a value of type T (never a tuple).
    Array(Vec<Value>),
    /// A tuple `(T1, T2, ..)`: its components (two or more), which may be tuples.
    Tuple(Vec<Value>),
    /// An `f64` carrying a tangent: its value, then its derivative along the one direction
    /// being differentiated (a dual number, LANGUAGE.md section 12; see `interp::dual`).
    /// Only the arguments of a function being differentiated by `jvp`, `vjp` or `grad`,
    /// and what is computed from them, are duals: [`super::Interp::call`] never returns
    /// one, and anywhere else an `f64` is expected a dual is one.
    DualF64(f64, f64),
    /// An `f32` carrying an `f32` tangent (see [`Value::DualF64`]), computed in f32.
    DualF32(f32, f32),
}

/// The two float types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Float {
    F64,
    F32,
}

impl Float {
    pub(super) fn name(self) -> &'static str {
        match self {
            Float::F64 => "f64",
            Float::F32 => "f32",
        }
    }
}

impl Value {
    /// A 1-D f64 array.
    pub fn vec(xs: &[f64]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::F64(x)).collect())
    }

    /// A 1-D f32 array.
    pub fn vec_f32(xs: &[f32]) -> Value {
        Value::Array(xs.iter().map(|&x| Value::F32(x)).collect())
    }

    /// A 1-D usize array (an index array).
    pub fn usizes(xs: &[usize]) -> Value {
        Value::Array(xs.iter().map(|&k| Value::Usize(k)).collect())
    }

    /// A row-major 2-D array with `cols` columns from flat data: `data.len() / cols` rows
    /// (rounded down: trailing values that do not fill a row are dropped). With `cols == 0`
    /// the result is the empty array.
    pub fn matrix(data: &[f64], cols: usize) -> Value {
        Value::rows(data.iter().map(|&x| Value::F64(x)).collect(), cols)
    }

    /// [`Value::matrix`] of f32 data.
    pub fn matrix_f32(data: &[f32], cols: usize) -> Value {
        Value::rows(data.iter().map(|&x| Value::F32(x)).collect(), cols)
    }

    /// [`Value::matrix`] of usize data (`obs: [[usize; 2]; p]`).
    pub fn usize_matrix(data: &[usize], cols: usize) -> Value {
        Value::rows(data.iter().map(|&k| Value::Usize(k)).collect(), cols)
    }

    /// Scalars cut into rows of `cols` (as [`Value::matrix`]).
    fn rows(data: Vec<Value>, cols: usize) -> Value {
        if cols == 0 {
            return Value::Array(Vec::new());
        }
        Value::Array(
            data.chunks_exact(cols)
                .map(|row| Value::Array(row.to_vec()))
                .collect(),
        )
    }

    /// Row-major flattening of an (arbitrarily nested) array, as the generated kernels lay
    /// arrays out. Scalars flatten to one element (`f32` and `usize` by `as f64`, which is
    /// exact for f32 and for usize up to 2^53, an untyped float to its f64 value, a dual to
    /// its value, `bool` to 0 or 1); a tuple flattens to its components' flattenings one after the other (to
    /// compare a kernel's several results one by one, flatten each of [`Value::parts`]).
    pub fn flatten(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.flatten_into(&mut out);
        out
    }

    fn flatten_into(&self, out: &mut Vec<f64>) {
        match self {
            Value::F64(x) | Value::Untyped(x, _) | Value::DualF64(x, _) => out.push(*x),
            Value::F32(x) | Value::DualF32(x, _) => out.push(f64::from(*x)),
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

    /// The number inside an [`Value::F32`]; `None` for any other value.
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            Value::F32(x) => Some(*x),
            _ => None,
        }
    }

    /// The number inside a [`Value::Usize`]; `None` for any other value.
    pub fn as_usize(&self) -> Option<usize> {
        match self {
            Value::Usize(k) => Some(*k),
            _ => None,
        }
    }

    /// The value with every untyped float in it given type `to`.
    pub(super) fn settle(self, to: Float) -> Value {
        match self {
            Value::Untyped(x, y) => match to {
                Float::F64 => Value::F64(x),
                Float::F32 => Value::F32(y),
            },
            Value::Array(xs) => Value::Array(xs.into_iter().map(|x| x.settle(to)).collect()),
            Value::Tuple(xs) => Value::Tuple(xs.into_iter().map(|x| x.settle(to)).collect()),
            other => other,
        }
    }

    /// Does the value hold an untyped float anywhere?
    pub(super) fn has_untyped(&self) -> bool {
        match self {
            Value::Untyped(..) => true,
            Value::Array(xs) | Value::Tuple(xs) => xs.iter().any(Value::has_untyped),
            _ => false,
        }
    }

    /// The type of the first typed float in the value (depth first), if any.
    pub(super) fn float_type(&self) -> Option<Float> {
        match self {
            Value::F64(_) | Value::DualF64(..) => Some(Float::F64),
            Value::F32(_) | Value::DualF32(..) => Some(Float::F32),
            Value::Array(xs) | Value::Tuple(xs) => xs.iter().find_map(Value::float_type),
            _ => None,
        }
    }
}

/// The elements of an array being built (all of one shape, [`same_shape`]), with their
/// untyped floats given the type of the typed floats among them: an array has one element
/// type, and a literal in it takes that type (`[x, 0.5]` with x an f32 is `[f32; 2]`).
pub(super) fn unify(xs: Vec<Value>) -> Vec<Value> {
    if !xs.iter().any(Value::has_untyped) {
        return xs;
    }
    match xs.iter().find_map(Value::float_type) {
        Some(t) => xs.into_iter().map(|x| x.settle(t)).collect(),
        None => xs,
    }
}

/// The type of a value, as fsmooth would write it (an untyped float is `{float}`, as
/// rustc writes it).
pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::F64(_) | Value::DualF64(..) => "f64".into(),
        Value::F32(_) | Value::DualF32(..) => "f32".into(),
        Value::Untyped(..) => "{float}".into(),
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
/// An untyped float has the shape of either float type (it takes the type it meets), and a
/// dual the shape of its type.
pub(super) fn same_shape(a: &Value, b: &Value) -> bool {
    use Value::{Bool, DualF32, DualF64, F32, F64, Untyped, Usize};
    match (a, b) {
        (F64(_) | DualF64(..) | Untyped(..), F64(_) | DualF64(..) | Untyped(..))
        | (F32(_) | DualF32(..) | Untyped(..), F32(_) | DualF32(..) | Untyped(..))
        | (Usize(_), Usize(_))
        | (Bool(_), Bool(_)) => true,
        (Value::Array(xs), Value::Array(ys)) | (Value::Tuple(xs), Value::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_shape(x, y))
        }
        _ => false,
    }
}
