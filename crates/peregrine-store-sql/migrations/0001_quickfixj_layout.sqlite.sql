-- QuickFIX/J's JdbcStore tables on SQLite: the PostgreSQL layout (quickfixj-core 2.3.1,
-- config/sql/postgresql), the same columns and keys (SQLite takes the types as affinities:
-- TEXT, INTEGER, NUMERIC for creation_time, written as "YYYY-MM-DD HH:MM:SS.ffffff" UTC), so that
-- QuickFIX/J (through an SQLite JDBC driver) and Peregrine read and continue
-- each other's rows. Applied at open when the tables are absent;
-- {sessions} and {messages} are replaced by the configured table names
-- (JdbcStoreSessionsTableName, JdbcStoreMessagesTableName), checked as SQL
-- identifiers first.
CREATE TABLE IF NOT EXISTS {sessions} (
  beginstring CHAR(8) NOT NULL,
  sendercompid VARCHAR(64) NOT NULL,
  sendersubid VARCHAR(64) NOT NULL,
  senderlocid VARCHAR(64) NOT NULL,
  targetcompid VARCHAR(64) NOT NULL,
  targetsubid VARCHAR(64) NOT NULL,
  targetlocid VARCHAR(64) NOT NULL,
  session_qualifier VARCHAR(64) NOT NULL,
  creation_time TIMESTAMP NOT NULL,
  incoming_seqnum INTEGER NOT NULL,
  outgoing_seqnum INTEGER NOT NULL,
  PRIMARY KEY (beginstring, sendercompid, sendersubid, senderlocid,
               targetcompid, targetsubid, targetlocid, session_qualifier)
);

CREATE TABLE IF NOT EXISTS {messages} (
  beginstring CHAR(8) NOT NULL,
  sendercompid VARCHAR(64) NOT NULL,
  sendersubid VARCHAR(64) NOT NULL,
  senderlocid VARCHAR(64) NOT NULL,
  targetcompid VARCHAR(64) NOT NULL,
  targetsubid VARCHAR(64) NOT NULL,
  targetlocid VARCHAR(64) NOT NULL,
  session_qualifier VARCHAR(64) NOT NULL,
  msgseqnum INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (beginstring, sendercompid, sendersubid, senderlocid,
               targetcompid, targetsubid, targetlocid, session_qualifier,
               msgseqnum)
);
