//! A minimal progress bar on stderr (nothing when stderr is not a terminal or in CI).

use std::io::{IsTerminal, Write};

/// Progress over a known number of steps.
pub struct Progress {
    total: usize,
    done: usize,
    label: String,
    enabled: bool,
}

impl Progress {
    /// A bar of `total` steps.
    pub fn new(label: &str, total: usize) -> Self {
        let enabled = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        Progress {
            total: total.max(1),
            done: 0,
            label: label.to_string(),
            enabled,
        }
    }

    /// One step done; `what` names the next.
    pub fn step(&mut self, what: &str) {
        self.done += 1;
        self.draw(what);
    }

    /// Shows what is running now without advancing.
    pub fn show(&self, what: &str) {
        self.draw(what);
    }

    fn draw(&self, what: &str) {
        let width = 30;
        let filled = width * self.done.min(self.total) / self.total;
        if self.enabled {
            eprint!(
                "\r{} [{}{}] {}/{} {:<40}",
                self.label,
                "#".repeat(filled),
                ".".repeat(width - filled),
                self.done,
                self.total,
                what
            );
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("{} {}/{} {}", self.label, self.done, self.total, what);
        }
    }

    /// Shows progress within the current step (`done` of `total`, round trips say)
    /// without allocating, so that it can be drawn while allocations are being counted.
    /// Draws only on a terminal.
    pub fn show_count(&self, what: &str, done: u64, total: u64) {
        if !self.enabled {
            return;
        }
        let mut buf = [0u8; 256];
        let len = {
            let mut w = &mut buf[..];
            let width = 30;
            let filled = (width as u64 * done.min(total) / total.max(1)) as usize;
            let _ = write!(w, "\r{} [", self.label);
            for i in 0..width {
                let _ = w.write_all(if i < filled { b"#" } else { b"." });
            }
            let _ = write!(w, "] ");
            if self.total > 1 {
                let _ = write!(w, "{}/{} ", self.done, self.total);
            }
            let _ = write!(w, "{what} {done}/{total}      ");
            256 - w.len()
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(&buf[..len]);
        let _ = err.flush();
    }

    /// Ends the bar.
    pub fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}
