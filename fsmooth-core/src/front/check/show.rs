//! Surface expressions as text, for the messages of run-time checks.

use crate::front::ast::{Expr, ExprKind};

/// The text of an expression, for run-time error messages.
pub fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Float(v, None) => format!("{v:?}"),
        ExprKind::Float(v, Some(t)) => format!("{v:?}{}", t.name()),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Var(n) => n.text.clone(),
        ExprKind::Bin(op, a, b) => format!("{} {} {}", show_p(a), op.symbol(), show_p(b)),
        ExprKind::Len(a) => format!("{}.len()", show_p(a)),
        ExprKind::Index(a, i) => format!("{}[{}]", show_p(a), show(i)),
        ExprKind::Cast(a, t) => format!("{} as {}", show_p(a), t.name()),
        ExprKind::Call(n, xs) => format!(
            "{}({})",
            n.text,
            xs.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        _ => "..".to_string(),
    }
}

/// `show`, parenthesised when an operand needs it.
pub(super) fn show_p(e: &Expr) -> String {
    match e.kind {
        ExprKind::Bin(..) | ExprKind::Cast(..) => format!("({})", show(e)),
        _ => show(e),
    }
}
