//! The text output: per message a header line, its problems, then one line
//! per field, repeating groups indented by level.
//!
//! ```text
//! 20261124-10:00:00.123  FIX.4.4  MarketDataSnapshotFullRefresh (W)  VENUE->CLIENT  seq 7
//!   8     BeginString = FIX.4.4
//!   268   NoMDEntries = 2
//!     - 269   MDEntryType = 0 (BID)
//!       270   MDEntryPx = 1.25
//!     - 269   MDEntryType = 1 (OFFER)
//!       270   MDEntryPx = 1.5
//! ```

use std::collections::HashSet;
use std::io::{self, Write};

use peregrine_decode::escape::escape;
use peregrine_decode::tree::Node;
use peregrine_decode::Shown;

/// Writes one message, and a blank line after it.
pub fn write(out: &mut impl Write, m: &Shown<'_, '_, '_>) -> io::Result<()> {
    let mut parts: Vec<String> = Vec::with_capacity(5);
    if let Some(t) = m.time {
        parts.push(escape(t.as_bytes()).into_owned());
    }
    parts.push(match m.app_version {
        Some(v) => format!("{} ({v})", escape(m.begin_string.as_bytes())),
        None => escape(m.begin_string.as_bytes()).into_owned(),
    });
    let or_unknown = |v: Option<&str>| escape(v.unwrap_or("?").as_bytes()).into_owned();
    parts.push(format!(
        "{} ({})",
        m.msg_type_name.unwrap_or("?"),
        or_unknown(m.msg_type)
    ));
    parts.push(format!(
        "{}->{}",
        or_unknown(m.sender),
        or_unknown(m.target)
    ));
    if let Some(seq) = m.seq_num {
        parts.push(format!("seq {}", escape(seq.as_bytes())));
    }
    writeln!(out, "{}", parts.join("  "))?;
    for p in m.problems {
        writeln!(out, "  ! {p}")?;
    }
    fields(out, m.fields, 0, false, m.tags)?;
    writeln!(out)
}

/// The fields of one level; `instance` marks the first shown one as the start
/// of a group instance.
fn fields(
    out: &mut impl Write,
    nodes: &[Node<'_, '_>],
    depth: usize,
    mut instance: bool,
    tags: Option<&HashSet<u32>>,
) -> io::Result<()> {
    let indent = 2 + 4 * depth;
    for n in nodes.iter().filter(|n| n.shown(tags)) {
        if instance {
            write!(out, "{:w$}- ", "", w = indent - 2)?;
            instance = false;
        } else {
            write!(out, "{:w$}", "", w = indent)?;
        }
        write!(
            out,
            "{:<4}  {} = {}",
            n.tag,
            n.name.unwrap_or("?"),
            escape(n.value)
        )?;
        match &n.meaning {
            Some(m) => writeln!(out, " ({m})")?,
            None => writeln!(out)?,
        }
        for inst in n.instances.iter().flatten() {
            fields(out, inst, depth + 1, true, tags)?;
        }
    }
    Ok(())
}
