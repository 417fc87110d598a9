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

    /// Ends the bar.
    pub fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}
