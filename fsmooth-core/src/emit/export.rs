//! A block that declares `pub mod name;`: its items inside `mod name`, with the hidden
//! `macro_rules!` that hands the block's source to importing blocks
//! ([`crate::front::imports`]).

use crate::front::ast::ModuleDecl;
use crate::front::imports::{BLOCK_MACRO, section_template};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// `mod name { items; the source macro }` for the block whose tokens are `source`, with
/// id `id`. `failed`: the block had errors, so importing blocks stay quiet about it.
pub fn module(
    decl: &ModuleDecl,
    id: &str,
    failed: bool,
    source: &TokenStream,
    items: TokenStream,
) -> TokenStream {
    let ModuleDecl { attrs, vis, name } = decl;
    let name = crate::front::ast::ident(&name.text, name.span);
    let mac = crate::front::ast::ident(&format!("__fsmooth_src_{id}"), Span::call_site());
    let reach = crate::front::ast::ident(BLOCK_MACRO, Span::call_site());
    let section = section_template(id, failed, source);
    let rules = quote! {
        ($requester:literal [$($path:tt)*] $($rest:tt)*) => {
            ::fsmooth::fsmooth! { #section $($rest)* }
        };
    };
    // The source's `crate::` paths are the importing blocks' to resolve (against the
    // exporting crate, through the `$crate` the macro passes along), so clippy's
    // `crate_in_macro_def` does not apply.
    // Other crates reach a `pub` module's macro: it is exported (at the crate root, hence
    // the id in its name) and re-exported here; otherwise it stays in its crate.
    let export = if decl.exported() {
        quote! {
            #[doc(hidden)]
            #[macro_export]
            #[allow(clippy::crate_in_macro_def)]
            macro_rules! #mac { #rules }
            #[doc(hidden)]
            pub use #mac as #reach;
        }
    } else {
        quote! {
            #[doc(hidden)]
            #[allow(clippy::crate_in_macro_def)]
            macro_rules! #mac { #rules }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub(crate) use #mac as #reach;
        }
    };
    quote! {
        #(#attrs)*
        #vis mod #name {
            #items
            #export
        }
    }
}
