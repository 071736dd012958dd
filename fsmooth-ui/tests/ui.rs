//! Compile-time errors as rustc diagnostics: every case in `tests/ui/fail` must fail
//! to compile with exactly the `.stderr` beside it, and `tests/ui/pass` must build.
//! Refresh the expected output after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p fsmooth-ui`, then `python3 tools/errors_doc.py`.
//! `tests/ui/pending` holds cases that wait for a compiler fix; they are not run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
