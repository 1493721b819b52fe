//! The examples' command line: `--headless`, `--frames`, `--out` and per-example options, and
//! whether a display is there to open a window on.

use super::*;
use std::path::PathBuf;

/// What the command line asked for.
#[derive(Clone, Debug)]
pub struct Cli {
    /// Render offscreen into a PNG instead of opening a window.
    pub headless: bool,
    /// Frames (one simulation step each) to run headless.
    pub frames: u32,
    /// Where the headless PNG goes.
    pub out: PathBuf,
}

impl Cli {
    /// Parses `--headless`, `--frames N` and `--out FILE.png` (also `--frames=N`, `--out=FILE`),
    /// with `default_frames` frames when `--frames` is not given. Giving `--frames` or `--out`
    /// implies `--headless`; `--help` prints usage and exits. Also accepts the demo's own
    /// `options`: usage lines such as `"--rows N   rows of boxes (default 20)"` (the flag and its
    /// value, two or more spaces, the help), each a flag taking one value (read it with
    /// `cli_option`, in `cli_option.rs`), or a switch when no value is named (`"--show   ..."`,
    /// read with [`cli_switch`]).
    pub fn parse_with(name: &str, default_frames: u32, options: &[&str]) -> Result<Self, BoxError> {
        // (flag, whether it takes a value)
        let flags: Vec<(&str, bool)> = options
            .iter()
            .filter_map(|o| {
                let mut words = o.split("  ").next().unwrap_or(o).split_whitespace();
                Some((words.next()?, words.next().is_some()))
            })
            .collect();
        let extra: String = options.iter().map(|o| format!("\n  {o}")).collect();
        let usage = format!(
            "usage: cargo run --release --example {name} -- [--headless] [--frames N] [--out FILE.png]{}\n\
             \n\
             Opens a window when a display is available; otherwise, or with --headless, renders\n\
             N frames (default {default_frames}) offscreen and writes the last one to FILE.png\n\
             (default {name}.png). --frames or --out imply --headless.{}",
            options
                .iter()
                .map(|o| format!(" [{}]", o.split("  ").next().unwrap_or(o).trim()))
                .collect::<String>(),
            if extra.is_empty() { String::new() } else { format!("\n\nOptions:{extra}") }
        );
        let mut cli = Cli {
            headless: false,
            frames: default_frames,
            out: PathBuf::from(format!("{name}.png")),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = |what: &str| -> Result<String, BoxError> {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{flag} needs {what}; see --help").into())
            };
            match flag.as_str() {
                "--headless" => cli.headless = true,
                "--frames" => {
                    let v = value("a number of frames")?;
                    cli.frames = v.parse().map_err(|_| {
                        format!("--frames {v}: expected a whole number of frames; see --help")
                    })?;
                    if cli.frames == 0 {
                        return Err("--frames must be at least 1; see --help".into());
                    }
                    cli.headless = true;
                }
                "--out" => {
                    cli.out = PathBuf::from(value("a file name")?);
                    cli.headless = true;
                }
                f if flags.contains(&(f, true)) => {
                    value("a value")?;
                }
                f if flags.contains(&(f, false)) => {}
                "-h" | "--help" => {
                    println!("{usage}");
                    std::process::exit(0);
                }
                _ => return Err(format!("unknown argument `{arg}`; see --help").into()),
            }
        }
        Ok(cli)
    }
}

/// Whether the switch `flag` (an option without a value, `--gpu-timing`) was given.
pub fn cli_switch(flag: &str) -> bool {
    std::env::args().skip(1).any(|a| a == flag)
}

/// Whether a window system looks reachable. On Linux and the BSDs that needs `DISPLAY` (X11) or
/// `WAYLAND_DISPLAY`; elsewhere we just try.
pub fn display_available() -> bool {
    if cfg!(all(
        unix,
        not(any(
            target_os = "macos",
            target_os = "ios",
            target_os = "android"
        ))
    )) {
        let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
        set("DISPLAY") || set("WAYLAND_DISPLAY")
    } else {
        true
    }
}
