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
