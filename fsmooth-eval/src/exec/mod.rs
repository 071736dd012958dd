//! `exec`: the executor of the DPS/storage-planned IR ([`fsmooth_core::lir`]).
//!
//! [`call`] executes a [`lir::Func`] on concrete inputs exactly as the Rust that
//! [`fsmooth_core::emit`] prints from it would run, with a real scratch frame, and flags what
//! would be a compiler bug there instead of silently doing what the printed code does
//! ([`run`] is the same for a kernel of one result). The outputs are `out` (an array kernel)
//! or `out0`, `out1`, .. (the array components of a kernel with several results); the scalar
//! results are returned, several for a tuple of them ([`lir::Ex::Tuple`]). It flags:
//!
//! * a proven load or store (`ld`/`st`) out of range (the printed code reads 0.0 or skips);
//! * a value stored to a buffer of another element type, an argument whose element type is
//!   not the signature's, f32 mixed with f64 (buffers and values are typed: `f64`, `f32`
//!   and `usize` each exactly, f32 arithmetic in f32);
//! * a `get`/`get_mut` range of a fill, a stream or a copy out of range (the printed code
//!   skips the loop);
//! * an allocation outside its part of the frame or overlapping a live one there (the
//!   frame is one part per element type, each its own stack), an access to the frame
//!   outside every live allocation, a frame too short for its parts, a read of a slot of an output, of the frame or of a heap
//!   buffer that was never written (since its allocation);
//! * for each output: a slot never written by a successful call, a slot written twice with
//!   no read between (overlapping writes: each slot is written once, or read and written
//!   again by an accumulation), a write before its length check (a check that must report
//!   the output's name) or no check at all, a write before an error raised ahead of the
//!   frame (every output is untouched on an entry error);
//! * what rustc would reject: unknown names, type mismatches, writes to parameters, writes
//!   to a buffer that a loop streams or that a fill borrows (these borrow conflicts are
//!   checked statically, over the whole function, as the borrow checker does), a tuple
//!   anywhere but as the whole result;
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
use resolve::{FIRST_NAMES, NameId, Resolver, canonical_name};
use state::{Executor, Stop, Value};

/// An argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An `f64` scalar.
    F64(f64),
    /// An `f32` scalar.
    F32(f32),
    /// A `usize` scalar (or size).
    Usize(usize),
    /// A `bool` scalar.
    Bool(bool),
    /// An `f64` array, row-major and flat.
    Array(Vec<f64>),
    /// An `f32` array, row-major and flat.
    F32s(Vec<f32>),
    /// A `usize` array (an index array), row-major and flat.
    Usizes(Vec<usize>),
}

/// What a kernel call returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Returned {
    /// A scalar kernel's `f64`.
    F64(f64),
    /// A scalar kernel's `f32`.
    F32(f32),
    /// A scalar kernel's `usize`.
    Usize(usize),
    /// A scalar kernel's `bool`.
    Bool(bool),
    /// An array kernel's `out`, every slot written (f32 and usize elements as f64).
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

/// A scalar result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// An `f64`.
    F64(f64),
    /// An `f32`.
    F32(f32),
    /// A `usize`.
    Usize(usize),
    /// A `bool`.
    Bool(bool),
}

impl From<Scalar> for Returned {
    fn from(s: Scalar) -> Returned {
        match s {
            Scalar::F64(v) => Returned::F64(v),
            Scalar::F32(v) => Returned::F32(v),
            Scalar::Usize(v) => Returned::Usize(v),
            Scalar::Bool(v) => Returned::Bool(v),
        }
    }
}

/// What a kernel call gave: its outputs and its scalar results.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// Each output, in the order the call named them, every slot written (f32 and usize
    /// elements as f64: exact for f32, and for usize up to 2^53).
    pub arrays: Vec<Vec<f64>>,
    /// The scalar results in position order: none for a kernel of array results only, one
    /// for a scalar kernel (or a kernel with one scalar among several results), several for
    /// a kernel returning several scalars.
    pub scalars: Vec<Scalar>,
}

/// Run `f`. `params`: each kernel parameter's Rust name and value (in any order).
/// `out_len`: Some(len) for array kernels (out starts as that many never-written slots), None
/// for scalar kernels. A kernel with several results is run by [`call`].
///
/// `Ok(Ok(ret))` = the kernel returned a value; `Ok(Err(msg))` = the kernel returned an
/// fsmooth `Error` (Shape, Scratch, Index, Arithmetic; `msg` is the error's `Display`);
/// `Err(Fault)` = the executor caught a compiler bug.
pub fn run(
    f: &lir::Func,
    params: &[(&str, Arg)],
    out_len: Option<usize>,
) -> Result<Result<Returned, String>, Fault> {
    let outs: Vec<(&str, usize)> = out_len.map(|n| ("out", n)).into_iter().collect();
    let got = match call(f, params, &outs)? {
        Ok(got) => got,
        Err(m) => return Ok(Err(m)),
    };
    let Outputs {
        mut arrays,
        scalars,
    } = got;
    match (arrays.pop(), scalars.as_slice()) {
        (Some(out), _) => Ok(Ok(Returned::Out(out))),
        (None, [s]) => Ok(Ok((*s).into())),
        (None, _) => Err(Fault(format!(
            "a kernel returning {} scalars run by `run`, which returns one",
            scalars.len()
        ))),
    }
}

/// Run `f` with the outputs `outs`: each one's name and length, `("out", len)` for an array
/// kernel, or `("outK", len)` for each array component K of a kernel with several results
/// (in position order), none for a scalar kernel. Each output starts as that many
/// never-written slots. `params`: each kernel parameter's Rust name and value (in any order).
///
/// `Ok(Ok(outputs))` = the kernel returned: every output (each slot written once, or read
/// before it was written again) and the scalar results; `Ok(Err(msg))` = the kernel returned
/// an fsmooth `Error` (`msg` is the error's `Display`); `Err(Fault)` = the executor caught a
/// compiler bug.
///
/// # Panics
///
/// If an output's name is neither `out` nor `outK`, is given twice, or `out` comes with
/// others.
pub fn call(
    f: &lir::Func,
    params: &[(&str, Arg)],
    outs: &[(&str, usize)],
) -> Result<Result<Outputs, String>, Fault> {
    check_output_names(outs);
    let mut resolver = Resolver::default();
    for n in FIRST_NAMES {
        resolver.intern(n);
    }
    let body = resolver.stmts(&f.body);
    let result = resolver.result(f.result.as_ref());
    if let Some(msg) = resolver.fault {
        return Err(Fault(msg));
    }
    let single_out = outs.iter().any(|(n, _)| *n == "out");
    if single_out && !result.is_empty() {
        return Err(Fault(
            "an array kernel (returning `Ok(())`) has a scalar result".into(),
        ));
    }
    if outs.is_empty() && result.is_empty() {
        return Err(Fault(
            "a scalar kernel has no result (it would return `Ok(())`)".into(),
        ));
    }
    let out_ids: Vec<NameId> = outs.iter().map(|(n, _)| resolver.intern(n)).collect();
    let param_ids: Vec<NameId> = params
        .iter()
        .map(|(n, _)| resolver.intern(&canonical_name(n)))
        .collect();
    let mut exec = Executor::new(&resolver.names);
    for (id, (name, len)) in out_ids.iter().zip(outs) {
        exec.bind_output(*id, name, *len);
    }
    for (id, (name, arg)) in param_ids.iter().zip(params) {
        exec.bind_arg(*id, name, arg);
    }
    let ran = exec.scope(&body, |exec| {
        result
            .iter()
            .map(|e| exec.eval(e))
            .collect::<Result<Vec<_>, _>>()
    });
    let stop = match ran {
        Ok(values) => {
            let mut scalars = Vec::with_capacity(values.len());
            for (k, v) in values.into_iter().enumerate() {
                scalars.push(match v {
                    Value::F64(v) => Scalar::F64(v),
                    Value::F32(v) => Scalar::F32(v),
                    Value::Usize(v) => Scalar::Usize(v),
                    Value::Bool(v) => Scalar::Bool(v),
                    v => {
                        return Err(Fault(format!(
                            "result {k} is {}, not a scalar",
                            v.describe()
                        )));
                    }
                });
            }
            return match exec.take_outputs() {
                Ok(arrays) => Ok(Ok(Outputs { arrays, scalars })),
                Err(s) => Err(fault_of(s)),
            };
        }
        Err(s) => s,
    };
    match stop {
        Stop::Fault(m) => Err(Fault(m)),
        Stop::Error(m) => {
            // Checked where the body takes a frame at all.
            let has_frame = f.body.iter().any(|s| matches!(s, St::Frame { .. }));
            if has_frame && !exec.frame_ran {
                exec.outputs_untouched("an error raised before the frame")
                    .map_err(fault_of)?;
            }
            Ok(Err(m))
        }
    }
}

/// A stop inside the checks of a call's end: a fault either way.
fn fault_of(s: Stop) -> Fault {
    match s {
        Stop::Fault(m) | Stop::Error(m) => Fault(m),
    }
}

/// The outputs of a call are `out`, or `outK`s, each named once.
fn check_output_names(outs: &[(&str, usize)]) {
    for (j, (name, _)) in outs.iter().enumerate() {
        // `outK` as the compiler prints it: `out0`, `out12`, not `out01`.
        let part = name
            .strip_prefix("out")
            .is_some_and(|k| k.parse::<usize>().is_ok_and(|v| v.to_string() == k));
        assert!(
            *name == "out" || part,
            "output `{name}` is neither `out` nor `outK`"
        );
        assert!(
            outs[..j].iter().all(|(n, _)| n != name),
            "output `{name}` given twice"
        );
    }
    assert!(
        outs.len() == 1 || outs.iter().all(|(n, _)| *n != "out"),
        "`out` given with other outputs"
    );
}
