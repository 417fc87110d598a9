//! Runner for the QuickFIX session acceptance scripts against a FIX acceptor
//! over real TCP.
//!
//! The scripts (`.def` files, from the QuickFIX project, quickfixengine.org) play
//! the counterparty of an acceptor: they connect, send `I` lines and check that
//! what comes back matches the `E` lines under the strict rule (same fields, same
//! order, same values, except the tags of `fields.fmt` which are matched by pattern).
//!
//! * [`Script`] parses a `.def` file into [`Step`]s;
//! * [`complete_message`] does the substitutions of the reference runner
//!   (`<TIME±n>`, BodyLength, CheckSum);
//! * [`FieldPatterns::match_message`] is the strict comparison, reporting a [`Mismatch`];
//!   [`match_quickfixj`] is QuickFIX/J's, for the scripts QuickFIX/J adds
//!   ([`MatchRule`] says which a suite uses);
//! * [`run_script`] / [`run_suite`] run scripts against a running acceptor;
//! * [`run_with_acceptor`] / [`run_parallel`] launch acceptors from the scripts'
//!   cfgs and run whole suites, several at a time.
//!
//! The scripts are kept in the repository, `acceptance/quickfix` (with QuickFIX's
//! licence beside them), and found by [`acceptance_dir`]; `PEREGRINE_ACCEPTANCE_DIR`
//! names another copy. Scripts QuickFIX/J 2.3.1 adds to them are in
//! `acceptance/quickfixj` ([`IN_REPO_QUICKFIXJ_DIR`], with its licence), compared
//! by QuickFIX/J's rule.
//!
//! ```no_run
//! use peregrine_acceptance::{run_suite, write_report, FieldPatterns, RunConfig};
//! let patterns = FieldPatterns::load("acceptance/quickfix/definitions/fields.fmt")?;
//! let cfg = RunConfig::new(
//!     "127.0.0.1:5005".parse()?,
//!     "127.0.0.1:5080".parse()?,
//!     patterns,
//! );
//! let dir = std::path::Path::new("acceptance/quickfix/definitions/server/fix44");
//! let results = run_suite(dir, &cfg)?;
//! write_report(&results, &mut std::io::stdout())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

mod admin;
mod fix;
mod matcher;
mod orchestrate;
mod pattern;
mod playback;
mod read;
mod runner;
mod script;

pub use admin::{
    percent_encode, seqnum_request_target, set_session, set_session_with_token, AdminError,
    AdminErrorKind,
};
pub use fix::{
    checksum, complete_message, format_utc_timestamp, frame_message, render, substitute_time,
    FrameOutcome, SOH,
};
pub use matcher::{
    logout_before_disconnect, match_quickfixj, without_tolerated, FieldPatterns,
    FieldPatternsError, MatchRule, Mismatch, MismatchKind,
};
pub use orchestrate::{
    acceptance_dir, acceptor_command_line, derive_cfg, dictionaries_dir, free_port, repo_root,
    run_parallel, run_with_acceptor, skip_message, suite_specs, AcceptorSpec, Launcher,
    SuiteOutcome, ACCEPTANCE_DIR_ENV, ADMIN_TOKEN, IN_REPO_ACCEPTANCE_DIR,
    IN_REPO_DICTIONARIES_DIR, IN_REPO_QUICKFIXJ_DIR, SUITES, VERSIONS,
};
pub use pattern::{Pattern, PatternError, PatternErrorKind};
pub use playback::{
    play_script, realize_expected, FakeAdmin, Mutator, PlaybackError, PlaybackErrorKind,
};
pub use runner::{
    list_scripts, run_script, run_suite, run_suite_filtered, summary_line, write_report, RunConfig,
    ScriptResult,
};
pub use script::{ParseError, Script, ScriptStep, Step, SyntaxError};
