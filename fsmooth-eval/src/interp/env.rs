//! What names stand for: values, functions and unknown sizes, in an immutable environment.

use super::value::{Value, describe};
use fsmooth_core::front::ast::{Expr, FnDef, Name, Ty};
use std::rc::Rc;

/// What a name (or an expression) stands for during evaluation.
#[derive(Clone)]
pub(super) enum Denotation<'a> {
    /// A value.
    Value(Rc<Value>),
    /// A function (closure or named function).
    Function(Rc<Function<'a>>),
    /// A size name that no argument determined.
    UnknownSize,
}

impl From<Value> for Denotation<'_> {
    fn from(v: Value) -> Self {
        Denotation::Value(Rc::new(v))
    }
}

/// A function value.
pub(super) enum Function<'a> {
    /// `|x, y| body`, with the environment it was written in.
    Closure {
        params: &'a [Name],
        body: &'a Expr,
        env: Env<'a>,
        /// The block it was written in: names in its body resolve there.
        block: usize,
    },
    /// A block or prelude function, and its block.
    Named(&'a FnDef, usize),
    /// A function bound to a parameter (or `let`) of type `fn(params) -> ret`: its
    /// arguments and result are checked against that type, with the sizes of `env`.
    Typed {
        inner: Rc<Function<'a>>,
        params: &'a [Ty],
        ret: &'a Ty,
        env: Env<'a>,
    },
}

/// An immutable environment: a linked list of bindings, innermost first.
pub(super) type Env<'a> = Option<Rc<Binding<'a>>>;

/// A name, what it stands for, and the bindings around it.
pub(super) struct Binding<'a> {
    pub(super) name: &'a str,
    pub(super) denotation: Denotation<'a>,
    pub(super) next: Env<'a>,
}

/// `env` with `name` bound (in front of any binding of the same name).
pub(super) fn bind<'a>(env: &Env<'a>, name: &'a str, denotation: Denotation<'a>) -> Env<'a> {
    Some(Rc::new(Binding {
        name,
        denotation,
        next: env.clone(),
    }))
}

/// What `name` stands for in `env`: its innermost binding.
pub(super) fn lookup<'e, 'a>(env: &'e Env<'a>, name: &str) -> Option<&'e Denotation<'a>> {
    let mut cur = env.as_ref();
    while let Some(binding) = cur {
        if binding.name == name {
            return Some(&binding.denotation);
        }
        cur = binding.next.as_ref();
    }
    None
}

/// What a denotation is, for messages.
pub(super) fn describe_denotation(v: &Denotation<'_>) -> String {
    match v {
        Denotation::Value(v) => describe(v),
        Denotation::Function(_) => "a function".into(),
        Denotation::UnknownSize => "an unknown size".into(),
    }
}
