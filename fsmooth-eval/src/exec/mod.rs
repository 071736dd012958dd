//! `exec`: the executor of the DPS/storage-planned IR ([`fsmooth_core::lir`]).
//!
//! [`run`] executes a [`lir::Func`] on concrete inputs exactly as the Rust that
//! [`fsmooth_core::emit`] prints from it would run, with a real scratch frame, and flags what
//! would be a compiler bug there instead of silently doing what the printed code does:
//!
//! * a proven load or store (`ld`/`st`) out of range (the printed code reads 0.0 or skips);
//! * a `get`/`get_mut` range of a fill, a stream or a copy out of range (the printed code
//!   skips the loop);
//! * an allocation outside the frame or overlapping a live one, an access to the frame
//!   outside every live allocation, a read of a slot of `out`, of the frame or of a heap
//!   buffer that was never written (since its allocation), an `out` slot never written by a
//!   successful call; `out` written before an error raised ahead of the frame;
//! * what rustc would reject: unknown names, type mismatches, writes to parameters, writes
//!   to a buffer that a loop streams or that a fill borrows (these borrow conflicts are
//!   checked statically, over the whole function, as the borrow checker does);
//! * what would panic: `usize` `/` or `%` by zero, `usize` overflow in a plain operator;
//! * [`lir::Ex::Internal`], and runaway loops (a step budget).
//!
//! The program is first resolved (names interned, sizes folded) so that running it does no
//! string work.
//!
//! The module is in four parts: `resolve` turns the loop IR into its resolved form (and does
//! the static checks), `state` holds what a run changes (bindings, buffers, live allocations
//! of the frame), `eval` evaluates expressions and `stmt` runs statements.

mod eval;
mod resolve;
mod state;
mod stmt;
#[cfg(test)]
mod tests;

use fsmooth_core::lir::{self, St};
use resolve::{NameId, OUT_NAME, Resolver, canonical_name};
use state::{Executor, OUT_BUFFER, Stop, Value};

/// An argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An `f64` scalar.
    F64(f64),
    /// A `usize` scalar (or size).
    Usize(usize),
    /// A `bool` scalar.
    Bool(bool),
    /// An array, row-major and flat.
    Array(Vec<f64>),
}

/// What a kernel call returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Returned {
    /// A scalar kernel's `f64`.
    F64(f64),
    /// A scalar kernel's `usize`.
    Usize(usize),
    /// A scalar kernel's `bool`.
    Bool(bool),
    /// An array kernel's `out`, every slot written.
    Out(Vec<f64>),
}

/// A compiler bug the executor caught.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault(pub String);

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Loop iterations (and copied slots) allowed in one call.
const STEP_BUDGET: u64 = 50_000_000;

/// The largest frame or heap buffer the executor allocates; a larger one fails with
/// `Error::Scratch`, as a failed allocation does.
const MAX_FRAME: usize = 1 << 24;

/// Run `f`. `params`: each kernel parameter's Rust name and value (in any order).
/// `out_len`: Some(len) for array kernels (out starts as that many never-written slots), None
/// for scalar kernels.
///
/// `Ok(Ok(ret))` = the kernel returned a value; `Ok(Err(msg))` = the kernel returned an
/// fsmooth `Error` (Shape, Scratch, Index, Arithmetic; `msg` is the error's `Display`);
/// `Err(Fault)` = the executor caught a compiler bug.
pub fn run(
    f: &lir::Func,
    params: &[(&str, Arg)],
    out_len: Option<usize>,
) -> Result<Result<Returned, String>, Fault> {
    let mut resolver = Resolver::default();
    for n in ["out", "scratch"] {
        resolver.intern(n);
    }
    let body = resolver.stmts(&f.body);
    let result = f.result.as_ref().map(|e| resolver.expr(e));
    if let Some(msg) = resolver.fault {
        return Err(Fault(msg));
    }
    match (out_len, &result) {
        (Some(_), Some(_)) => {
            return Err(Fault(
                "an array kernel (returning `Ok(())`) has a scalar result".into(),
            ));
        }
        (None, None) => {
            return Err(Fault(
                "a scalar kernel has no result (it would return `Ok(())`)".into(),
            ));
        }
        _ => {}
    }
    let param_ids: Vec<NameId> = params
        .iter()
        .map(|(n, _)| resolver.intern(&canonical_name(n)))
        .collect();
    let mut exec = Executor::new(&resolver.names, out_len.unwrap_or(0));
    for (id, (name, arg)) in param_ids.iter().zip(params) {
        exec.bind_arg(*id, name, arg);
    }
    if out_len.is_some() {
        exec.bind(OUT_NAME, Value::Buffer(OUT_BUFFER), false);
    }
    let ran = exec.scope(&body, |exec| match &result {
        Some(e) => exec.eval(e).map(Some),
        None => Ok(None),
    });
    match ran {
        Ok(v) => match v {
            None => {
                if let Some(slot) = exec.buffers[OUT_BUFFER].written.iter().position(|w| !w) {
                    return Err(Fault(format!("out slot {slot} never written")));
                }
                Ok(Ok(Returned::Out(std::mem::take(
                    &mut exec.buffers[OUT_BUFFER].data,
                ))))
            }
            Some(Value::F64(v)) => Ok(Ok(Returned::F64(v))),
            Some(Value::Usize(v)) => Ok(Ok(Returned::Usize(v))),
            Some(Value::Bool(v)) => Ok(Ok(Returned::Bool(v))),
            Some(v) => Err(Fault(format!(
                "the result is {}, not a scalar",
                v.describe()
            ))),
        },
        Err(Stop::Fault(m)) => Err(Fault(m)),
        Err(Stop::Error(m)) => {
            // Checked where the body takes a frame at all.
            let has_frame = f.body.iter().any(|s| matches!(s, St::Frame { .. }));
            if has_frame && !exec.frame_ran {
                exec.out_untouched("an error raised before the frame")
                    .map_err(|s| match s {
                        Stop::Fault(m) | Stop::Error(m) => Fault(m),
                    })?;
            }
            Ok(Err(m))
        }
    }
}
