//! How long the randomised suites run.
//!
//! `cargo test` runs each suite at a length a newcomer can wait for (the README's test
//! command stays under five minutes on two cores). `FSMOOTH_LONG=1` switches every suite
//! to its long run (10^5 executor programs and fuzz cases, 10^3 rustc programs); a suite's
//! own variable (`FSMOOTH_EXEC_PROGRAMS`, `FSMOOTH_DIFF_PROGRAMS`, `FSMOOTH_FUZZ_CASES`,
//! `FSMOOTH_TYPED_PROGRAMS` for the typed programs in the interpreter) sets its length
//! outright. `FSMOOTH_PROGEN_TYPED=1` adds the generator's typed programs to every suite
//! that draws generated programs ([`crate::progen::Config::from_env`]).

/// Is the long run asked for (`FSMOOTH_LONG` set to anything but `0` or empty)?
pub fn long() -> bool {
    std::env::var("FSMOOTH_LONG").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The length of a suite: the number in `var` if it is set, else `long` for a long run,
/// else `short`.
pub fn length(var: &str, short: u64, long: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if self::long() { long } else { short })
}
