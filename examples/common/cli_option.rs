//! Reading a demo's own option (`--rows 12`, `--out-dir DIR`), for the examples that take one:
//! such an example declares this module (`#[path = "common/cli_option.rs"] mod cli_option;`),
//! and so does the `fx` family, whose headless run reads `--out-dir` and `--every`.

/// The value given to a demo's own option `flag` (`--flag V` or `--flag=V`), if any; the flag
/// must be listed in the app's `OPTIONS` for [`crate::common::Cli::parse_with`] to accept it.
pub fn cli_option(flag: &str) -> Option<String> {
    let mut args = std::env::args().skip(1);
    let mut found = None;
    while let Some(arg) = args.next() {
        if arg == flag {
            found = args.next();
        } else if let Some(v) = arg.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            found = Some(v.to_string());
        }
    }
    found
}

/// The whole number given to a demo's own option `flag`, if any, checked to lie in `range`;
/// the error says what was expected.
pub fn cli_number(flag: &str, range: std::ops::RangeInclusive<u32>) -> Result<Option<u32>, String> {
    let Some(v) = cli_option(flag) else {
        return Ok(None);
    };
    match v.parse().ok().filter(|n| range.contains(n)) {
        Some(n) => Ok(Some(n)),
        None if *range.end() == u32::MAX => Err(format!(
            "{flag} {v}: expected a whole number, at least {}",
            range.start()
        )),
        None => Err(format!(
            "{flag} {v}: expected a whole number from {} to {}",
            range.start(),
            range.end()
        )),
    }
}
