//! Where messages and sequence numbers are kept, and the logs.

use super::{flag, flag_rule, number, text, DefaultValue, Key, GO, OURS, QF, QFJ};

/// The screen log keys' default: QuickFIX/J's `ScreenLogFactory`.
const SCREEN: &str = "none set: nothing printed; another set: Y (QuickFIX/J's `ScreenLogFactory`)";

pub(super) const KEYS: &[Key] = &[
    text(
        "FileStorePath",
        QF,
        "a directory",
        "none",
        "file store base directory (`--store file`)",
    ),
    text(
        "FileLogPath",
        QF,
        "a directory",
        "none (no logs)",
        "message and event logs; a directory that cannot be written stops start-up naming file, line and key",
    ),
    flag_rule(
        "ScreenLogShowEvents",
        QF,
        SCREEN,
        "the [screen log](#logs): the event log's lines on standard output, without `FileLogPath` or a `tracing` subscriber",
    ),
    flag_rule(
        "ScreenLogShowIncoming",
        QF,
        SCREEN,
        "the [screen log](#logs): the messages received, on standard output",
    ),
    flag_rule(
        "ScreenLogShowOutgoing",
        QF,
        SCREEN,
        "the [screen log](#logs): the messages sent, on standard output",
    ),
    number(
        "FileStoreSync",
        QFJ,
        ("milliseconds (or Y, N, always, never)", 1, 3_600_000),
        DefaultValue::Text("Y (QuickFIX/J's default is N: Peregrine is durable unless told otherwise)"),
        "fsync policy of the file store: `Y`/`always` (every commit: a message is on disk before it leaves; the messages of one batch of input share one fsync), `N`/`never`, or milliseconds, {range} (the reactor fsyncs an idle session's last commits within about that interval too)",
    ),
    flag(
        "EngineJournal",
        OURS,
        true,
        "with `FileStorePath`: `Y` (the default since 2026-11-28) makes every session of the engine that names the same directory a view of one journal, `engine.journal` there (`peregrine_store::EngineJournal`): a turn of the engine (every connection it read, the forwards between sessions their callbacks sent, every session touched) commits in **one write and, with `FileStoreSync=Y`, one fsync**, before any byte of it is written to a socket; sessions sharing a journal must agree on `FileStoreSync` and `FileStoreDamage`; a session that has its own file store directory there from before is carried over into the journal once (numbers and messages). What a callback sends on another session (`Outbox::send_to`) then commits with the message that caused it ([Forwarding between sessions](../../docs/forwarding.md)). `N`: a directory per session (`FileStore`, each committing on its own)",
    ),
    text(
        "FileStoreDamage",
        OURS,
        "refuse or report",
        "refuse",
        "when the file store finds acknowledged data damaged or missing on open: `refuse` to start (the error names the lost messages), or `report` (start; the loss is logged, in the event log and in `/sessions`, and the journal is rewritten without the damage)",
    ),
    text(
        "JdbcURL",
        QFJ,
        "a JDBC URL",
        "none (no database store)",
        "a database store in QuickFIX/J's `JdbcStore` tables ([peregrine-store-sql](../peregrine-store-sql/README.md)): `jdbc:postgresql://host:port/db` or `jdbc:sqlite:FILE`",
    ),
    text(
        "JdbcDriver",
        QFJ,
        "a class name",
        "none",
        "taken and ignored (the URL's scheme says which database)",
    ),
    text(
        "JdbcUser",
        QFJ,
        "text",
        "none",
        "PostgreSQL's user (wins over the URL's)",
    ),
    text(
        "JdbcPassword",
        QFJ,
        "text",
        "none",
        "PostgreSQL's password (wins over the URL's)",
    ),
    text(
        "JdbcStoreSessionsTableName",
        QFJ,
        "a table name",
        "sessions",
        "the sessions table; letters, digits and `_` (not first a digit), at most 63, optionally `schema.table`",
    ),
    text(
        "JdbcStoreMessagesTableName",
        QFJ,
        "a table name",
        "messages",
        "the messages table; letters, digits and `_` (not first a digit), at most 63, optionally `schema.table`",
    ),
    text(
        "JdbcSessionIdDefaultPropertyValue",
        QFJ,
        "text",
        "empty",
        "what an unused key column holds (as QuickFIX/J's `SessionID.NOT_SET`)",
    ),
    text(
        "SQLStoreDriver",
        GO,
        "postgres or sqlite3",
        "none (no database store)",
        "a database store ([peregrine-store-sql](../peregrine-store-sql/README.md)): `postgres` (or `pgx`) or `sqlite3`, with `SQLStoreDataSourceName`",
    ),
    text(
        "SQLStoreDataSourceName",
        GO,
        "a URL, key=value text or a file",
        "none",
        "with `SQLStoreDriver`: a URL or `key=value` string (`postgres`), a file (`sqlite3`, `file:` taken)",
    ),
];
