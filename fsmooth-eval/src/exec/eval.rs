//! Expressions: scalars, loads (checked against the buffer and the frame's live
//! allocations), sizes and the runtime's entry functions, as the printed code computes them.

use super::resolve::{ResolvedEx, ResolvedSize};
use super::state::{Executor, Outcome, Value, arithmetic_error, fault, runtime_error, slot_text};
use fsmooth_core::front::ast::{BinOp, MathFn};
use fsmooth_core::lir::{Checked, Entry, Scalar, Wrap};
use fsmooth_runtime::__rt;

impl Executor<'_> {
    /// The value of `e`, a scalar (what a store or a slot takes).
    pub(super) fn eval_scalar(&mut self, e: &ResolvedEx) -> Outcome<Value> {
        match self.eval(e)? {
            v @ (Value::F64(_) | Value::F32(_) | Value::Usize(_) | Value::Bool(_)) => Ok(v),
            v => fault(format!("expected a scalar, found {}", v.describe())),
        }
    }

    pub(super) fn eval_usize(&mut self, e: &ResolvedEx) -> Outcome<usize> {
        match self.eval(e)? {
            Value::Usize(v) => Ok(v),
            v => fault(format!("expected usize, found {}", v.describe())),
        }
    }

    pub(super) fn eval_bool(&mut self, e: &ResolvedEx) -> Outcome<bool> {
        match self.eval(e)? {
            Value::Bool(v) => Ok(v),
            v => fault(format!("expected bool, found {}", v.describe())),
        }
    }

    /// The value of `e`.
    pub(super) fn eval(&mut self, e: &ResolvedEx) -> Outcome<Value> {
        Ok(match e {
            ResolvedEx::F64(v) => Value::F64(*v),
            ResolvedEx::F32(v) => Value::F32(*v),
            ResolvedEx::Bool(v) => Value::Bool(*v),
            ResolvedEx::Usize(v) => Value::Usize(*v),
            ResolvedEx::Var(id) => match self.binding(*id)?.value {
                v @ (Value::F64(_) | Value::F32(_) | Value::Usize(_) | Value::Bool(_)) => v,
                v => {
                    return fault(format!(
                        "`{}` is used as a scalar but is {}",
                        self.name(*id),
                        v.describe()
                    ));
                }
            },
            ResolvedEx::Len(b) => Value::Usize(self.window(*b)?.2),
            ResolvedEx::Bin(op, a, b) => self.binary(*op, a, b)?,
            ResolvedEx::Checked(c, a, b, text) => {
                let a = self.eval_usize(a)?;
                let b = self.eval_usize(b)?;
                let r = match c {
                    Checked::Add => __rt::add(a, b, ""),
                    Checked::Sub => __rt::sub(a, b, ""),
                    Checked::Mul => __rt::mul(a, b, ""),
                    Checked::Div => __rt::div(a, b, ""),
                    Checked::DivExact => __rt::div_exact(a, b, ""),
                    Checked::Rem => __rt::rem(a, b, ""),
                };
                Value::Usize(r.map_err(|_| arithmetic_error(text))?)
            }
            ResolvedEx::Wrap(w, a, b) => {
                let a = self.eval_usize(a)?;
                let b = self.eval_usize(b)?;
                Value::Usize(match w {
                    Wrap::Add => a.wrapping_add(b),
                    Wrap::Sub => a.wrapping_sub(b),
                    Wrap::Mul => a.wrapping_mul(b),
                })
            }
            ResolvedEx::Neg(a) => match self.eval(a)? {
                Value::F64(v) => Value::F64(-v),
                Value::F32(v) => Value::F32(-v),
                v => return fault(format!("`-` on {}", v.describe())),
            },
            ResolvedEx::Not(a) => match self.eval(a)? {
                Value::Bool(v) => Value::Bool(!v),
                Value::Usize(v) => Value::Usize(!v),
                v => return fault(format!("`!` on {}", v.describe())),
            },
            ResolvedEx::ToF64(a) => match self.eval(a)? {
                Value::F64(v) => Value::F64(v),
                Value::F32(v) => Value::F64(f64::from(v)),
                Value::Usize(v) => Value::F64(v as f64),
                v => return fault(format!("`as f64` on {}", v.describe())),
            },
            ResolvedEx::ToF32(a) => match self.eval(a)? {
                Value::F64(v) => Value::F32(v as f32),
                Value::F32(v) => Value::F32(v),
                Value::Usize(v) => Value::F32(v as f32),
                v => return fault(format!("`as f32` on {}", v.describe())),
            },
            // The generated code's `(x as i64) as f64`: a value past 2^63 would be a wrong
            // proof, which the executor reports.
            ResolvedEx::IndexTo(t, a) => match (self.eval(a)?, t) {
                (Value::Usize(v), _) if v > i64::MAX as usize => {
                    return fault(format!("an index conversion of {v}, past 2^63"));
                }
                (Value::Usize(v), Scalar::F32) => Value::F32(v as i64 as f32),
                (Value::Usize(v), _) => Value::F64(v as i64 as f64),
                (v, _) => return fault(format!("an index conversion of {}", v.describe())),
            },
            ResolvedEx::ToUsize(a) => match self.eval(a)? {
                Value::F64(v) => Value::Usize(v as usize),
                Value::F32(v) => Value::Usize(v as usize),
                Value::Usize(v) => Value::Usize(v),
                Value::Bool(v) => Value::Usize(usize::from(v)),
                v => return fault(format!("`as usize` on {}", v.describe())),
            },
            ResolvedEx::Math(f, args) => {
                let mut vs = Vec::with_capacity(args.len());
                for a in args {
                    vs.push(self.eval(a)?);
                }
                math(*f, &vs)?
            }
            ResolvedEx::Fused(xs) => {
                let mut vs = Vec::with_capacity(3);
                for x in xs {
                    vs.push(self.eval(x)?);
                }
                // As `__rt::fused` compiles for the target this runs on.
                if cfg!(target_feature = "fma") {
                    math(MathFn::MulAdd, &vs)?
                } else {
                    arith(BinOp::Add, arith(BinOp::Mul, vs[0], vs[1])?, vs[2])?
                }
            }
            ResolvedEx::Entry(en, xs) => self.entry(en, xs)?,
            ResolvedEx::Const(s) => Value::Usize(self.eval_size(s)?),
            ResolvedEx::Ld(b, at) => {
                let (buf, first, len) = self.window(*b)?;
                let at = self.eval_usize(at)?;
                if at >= len {
                    return fault(format!(
                        "proven load {}[{}] out of range for length {len} \
                         (the printed `ld` would read 0.0)",
                        self.buffers[buf].name(),
                        slot_text(first, at)
                    ));
                }
                self.check_live(buf, first + at, first + at + 1)?;
                self.read_slot(buf, first + at)?
            }
            ResolvedEx::LdRow(b, off, width, at, elem) => {
                // A buffer, or a row (a segment's): offsets are the row's.
                let (buf, row_off, row) = self.buffer_part(*b)?;
                let off = self.eval_usize(off)?;
                // `ldr` takes `&[f64]`; `ldr_of` any element type.
                if *elem == Scalar::F64 && self.buffers[buf].elem != Scalar::F64 {
                    return fault(format!(
                        "`ldr` (of f64) on `{}`, a buffer of {}",
                        self.buffers[buf].name(),
                        self.buffers[buf].elem
                    ));
                }
                let len = row.unwrap_or(self.buffers[buf].len());
                if *at >= *width || off.checked_add(*width).is_none_or(|end| end > len) {
                    return fault(format!(
                        "proven row load {}[{off}..{off} + {width}][{at}] out of range for \
                         length {len} (the printed `ldr` would read 0.0)",
                        self.buffers[buf].name()
                    ));
                }
                self.check_live(buf, row_off + off, row_off + off + width)?;
                self.read_slot(buf, row_off + off + at)?
            }
            ResolvedEx::Check(i, d) => {
                let i = self.eval_usize(i)?;
                let d = self.eval_usize(d)?;
                Value::Usize(__rt::check(i, d).map_err(runtime_error)?)
            }
            ResolvedEx::Elem(id) => match self.binding(*id)?.value {
                Value::Elem(buf, i) => self.read_slot(buf, i)?,
                v => {
                    return fault(format!(
                        "`*{}` of {}, not a stream element",
                        self.name(*id),
                        v.describe()
                    ));
                }
            },
            ResolvedEx::Block(sts, v) => self.scope(sts, |exec| exec.eval(v))?,
            ResolvedEx::If(c, a, b) => {
                if self.eval_bool(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            ResolvedEx::Internal(m) => return fault(format!("fsmooth internal error: {m}")),
        })
    }

    /// `a op b`; `&&` and `||` short-circuit.
    fn binary(&mut self, op: BinOp, a: &ResolvedEx, b: &ResolvedEx) -> Outcome<Value> {
        let x = self.eval(a)?;
        if matches!(op, BinOp::And | BinOp::Or) {
            let Value::Bool(x) = x else {
                return fault(format!("`{}` on {}", op.symbol(), x.describe()));
            };
            // Short-circuit, as Rust.
            if (op == BinOp::And) != x {
                return Ok(Value::Bool(x));
            }
            return Ok(Value::Bool(self.eval_bool(b)?));
        }
        let y = self.eval(b)?;
        arith(op, x, y)
    }

    /// A call of one of the runtime's entry functions, on usize arguments.
    fn entry(&mut self, en: &Entry, xs: &[ResolvedEx]) -> Outcome<Value> {
        let mut arg = |i: usize| -> Outcome<usize> {
            match xs.get(i) {
                Some(e) => self.eval_usize(e),
                None => fault(format!("`{en:?}` is missing argument {i}")),
            }
        };
        Ok(Value::Usize(match en {
            Entry::FromLen => {
                let (a, b) = (arg(0)?, arg(1)?);
                __rt::from_len(a, b)
            }
            Entry::Max => {
                let (a, b) = (arg(0)?, arg(1)?);
                __rt::max(a, b)
            }
            Entry::Root(k) => __rt::root(arg(0)?, *k),
            Entry::Slots => {
                let (a, b, c) = (arg(0)?, arg(1)?, arg(2)?);
                __rt::slots(a, b, c)
            }
            Entry::SolveLinear(scale, offset) => __rt::solve_linear(arg(0)?, *scale, *offset),
        }))
    }

    /// A folded size, with the runtime's saturating arithmetic.
    fn eval_size(&mut self, s: &ResolvedSize) -> Outcome<usize> {
        let mut two = |a: &ResolvedSize, b: &ResolvedSize| -> Outcome<(usize, usize)> {
            Ok((self.eval_size(a)?, self.eval_size(b)?))
        };
        Ok(match s {
            ResolvedSize::Lit(v) => *v,
            ResolvedSize::Zero => 0,
            ResolvedSize::Name(id) => match self.binding(*id)?.value {
                Value::Usize(v) => v,
                v => {
                    return fault(format!(
                        "size `{}` is {}, not usize",
                        self.name(*id),
                        v.describe()
                    ));
                }
            },
            ResolvedSize::Add(a, b) => {
                let (a, b) = two(a, b)?;
                a.saturating_add(b)
            }
            ResolvedSize::Sub(a, b) => {
                let (a, b) = two(a, b)?;
                __rt::sat_sub(a, b)
            }
            ResolvedSize::Mul(a, b) => {
                let (a, b) = two(a, b)?;
                a.saturating_mul(b)
            }
            ResolvedSize::Div(a, b) => {
                let (a, b) = two(a, b)?;
                __rt::sat_div(a, b)
            }
            ResolvedSize::Rem(a, b) => {
                let (a, b) = two(a, b)?;
                a.checked_rem(b).unwrap_or(usize::MAX)
            }
        })
    }
}

/// A math method on values as the runtime computes it: each float type in its own width
/// (the runtime's generic functions), `min`, `max` and `clamp` on usize too. The operands
/// must all be of the receiver's type (`powi`'s exponent is a usize).
fn math(f: MathFn, vs: &[Value]) -> Outcome<Value> {
    let bad = || {
        let types: Vec<&str> = vs.iter().map(|v| v.describe()).collect();
        fault(format!("`{}` on {}", f.name(), types.join(", ")))
    };
    if f == MathFn::Powi {
        return match vs {
            [Value::F64(x), Value::Usize(k)] => Ok(Value::F64(__rt::powi(*x, exponent(*k)))),
            [Value::F32(x), Value::Usize(k)] => Ok(Value::F32(__rt::powi(*x, exponent(*k)))),
            _ => bad(),
        };
    }
    let same = |t: Scalar| vs.iter().all(|v| v.scalar() == Some(t));
    match vs.first() {
        Some(Value::F64(_)) if same(Scalar::F64) => {
            let xs: Vec<f64> = vs
                .iter()
                .map(|v| if let Value::F64(x) = v { *x } else { 0.0 })
                .collect();
            float(f, &xs).map(Value::F64).map_or_else(bad, Ok)
        }
        Some(Value::F32(_)) if same(Scalar::F32) => {
            let xs: Vec<f32> = vs
                .iter()
                .map(|v| if let Value::F32(x) = v { *x } else { 0.0 })
                .collect();
            float(f, &xs).map(Value::F32).map_or_else(bad, Ok)
        }
        Some(Value::Usize(_)) if same(Scalar::Usize) => {
            let xs: Vec<usize> = vs
                .iter()
                .map(|v| if let Value::Usize(x) = v { *x } else { 0 })
                .collect();
            Ok(Value::Usize(match (f, xs.as_slice()) {
                (MathFn::Min, [x, y]) => __rt::min(*x, *y),
                (MathFn::Max, [x, y]) => __rt::max_f(*x, *y),
                (MathFn::Clamp, [x, lo, hi]) => __rt::clamp(*x, *lo, *hi),
                _ => return bad(),
            }))
        }
        _ => bad(),
    }
}

/// `powi`'s exponent as printed: `i32::try_from(k).unwrap_or(i32::MAX)`.
fn exponent(k: usize) -> i32 {
    i32::try_from(k).unwrap_or(i32::MAX)
}

/// A float method of `xs[0]` with the arguments `xs[1..]`, as the runtime computes it.
fn float<F: __rt::Float + __rt::Ordered>(f: MathFn, xs: &[F]) -> Option<F> {
    Some(match (f, xs) {
        (MathFn::Sqrt, [x]) => __rt::sqrt(*x),
        (MathFn::Exp, [x]) => __rt::exp(*x),
        (MathFn::Ln, [x]) => __rt::ln(*x),
        (MathFn::Sin, [x]) => __rt::sin(*x),
        (MathFn::Cos, [x]) => __rt::cos(*x),
        (MathFn::Tan, [x]) => __rt::tan(*x),
        (MathFn::Tanh, [x]) => __rt::tanh(*x),
        (MathFn::Abs, [x]) => __rt::abs(*x),
        (MathFn::Floor, [x]) => __rt::floor(*x),
        (MathFn::Ceil, [x]) => __rt::ceil(*x),
        (MathFn::Asin, [x]) => __rt::asin(*x),
        (MathFn::Acos, [x]) => __rt::acos(*x),
        (MathFn::Atan, [x]) => __rt::atan(*x),
        (MathFn::Sinh, [x]) => __rt::sinh(*x),
        (MathFn::Cosh, [x]) => __rt::cosh(*x),
        (MathFn::Cbrt, [x]) => __rt::cbrt(*x),
        (MathFn::Exp2, [x]) => __rt::exp2(*x),
        (MathFn::Log2, [x]) => __rt::log2(*x),
        (MathFn::Log10, [x]) => __rt::log10(*x),
        (MathFn::Signum, [x]) => __rt::signum(*x),
        (MathFn::Powf, [x, y]) => __rt::powf(*x, *y),
        (MathFn::Min, [x, y]) => __rt::min(*x, *y),
        (MathFn::Max, [x, y]) => __rt::max_f(*x, *y),
        (MathFn::Atan2, [y, x]) => __rt::atan2(*y, *x),
        (MathFn::Hypot, [x, y]) => __rt::hypot(*x, *y),
        (MathFn::MulAdd, [x, a, b]) => __rt::mul_add(*x, *a, *b),
        (MathFn::Clamp, [x, lo, hi]) => __rt::clamp(*x, *lo, *hi),
        _ => return None,
    })
}

/// `x op y` on two values, `op` not `&&` or `||`: the executor's arithmetic and comparisons
/// (a `usize` overflow or zero divisor is a fault, as it panics in Rust).
pub(super) fn arith(op: BinOp, x: Value, y: Value) -> Outcome<Value> {
    use std::cmp::Ordering;
    let cmp = |o: Option<Ordering>| -> Option<bool> {
        Some(match op {
            BinOp::Lt => o == Some(Ordering::Less),
            BinOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
            BinOp::Gt => o == Some(Ordering::Greater),
            BinOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
            BinOp::Eq => o == Some(Ordering::Equal),
            BinOp::Ne => o != Some(Ordering::Equal),
            _ => return None,
        })
    };
    let bad = |x: Value, y: Value| {
        fault(format!(
            "`{}` on {} and {}",
            op.symbol(),
            x.describe(),
            y.describe()
        ))
    };
    match (x, y) {
        (Value::F64(x), Value::F64(y)) => Ok(match op {
            BinOp::Add => Value::F64(x + y),
            BinOp::Sub => Value::F64(x - y),
            BinOp::Mul => Value::F64(x * y),
            BinOp::Div => Value::F64(x / y),
            BinOp::Rem => Value::F64(x % y),
            _ => match cmp(x.partial_cmp(&y)) {
                Some(r) => Value::Bool(r),
                None => return bad(Value::F64(x), Value::F64(y)),
            },
        }),
        (Value::F32(x), Value::F32(y)) => Ok(match op {
            BinOp::Add => Value::F32(x + y),
            BinOp::Sub => Value::F32(x - y),
            BinOp::Mul => Value::F32(x * y),
            BinOp::Div => Value::F32(x / y),
            BinOp::Rem => Value::F32(x % y),
            _ => match cmp(x.partial_cmp(&y)) {
                Some(r) => Value::Bool(r),
                None => return bad(Value::F32(x), Value::F32(y)),
            },
        }),
        (Value::Usize(x), Value::Usize(y)) => {
            let r = match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::Div => x.checked_div(y),
                BinOp::Rem => x.checked_rem(y),
                _ => match cmp(x.partial_cmp(&y)) {
                    Some(r) => return Ok(Value::Bool(r)),
                    None => return bad(Value::Usize(x), Value::Usize(y)),
                },
            };
            match r {
                Some(v) => Ok(Value::Usize(v)),
                None => fault(format!(
                    "`{x} {} {y}` on usize panics (overflow or zero divisor)",
                    op.symbol()
                )),
            }
        }
        (Value::Bool(x), Value::Bool(y)) => match cmp(x.partial_cmp(&y)) {
            Some(r) => Ok(Value::Bool(r)),
            None => bad(Value::Bool(x), Value::Bool(y)),
        },
        (x, y) => bad(x, y),
    }
}
