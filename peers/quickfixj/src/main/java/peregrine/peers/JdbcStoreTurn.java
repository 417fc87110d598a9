package peregrine.peers;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.postgresql.ds.PGSimpleDataSource;

import quickfix.JdbcStoreFactory;
import quickfix.MessageStore;
import quickfix.SessionID;
import quickfix.SessionSettings;

/**
 * QuickFIX/J 2.3.1's own JdbcStore on a PostgreSQL database, for the test in which it and
 * Peregrine's PostgresStore take turns on the same tables (crates/peregrine-store-sql/tests/
 * quickfixj_turns.rs):
 *
 * <pre>
 *   run.sh JdbcStoreTurn --host H --port P --db D --user U BEGIN SENDER TARGET write N
 *   run.sh JdbcStoreTurn --host H --port P --db D --user U BEGIN SENDER TARGET dump
 * </pre>
 *
 * write N: stores N messages as sent (the next sender number moves past each; each a whole
 * NewOrderSingle as QuickFIX/J encodes it, ClOrdID QFJ-k and Text "qfj é k", an e-acute to
 * show the ISO-8859-1 text), and moves the next target number by one. dump: prints "sender=S",
 * "target=T", "created=MILLIS" and each stored message on its own line, SOH shown as '|'.
 */
public final class JdbcStoreTurn {
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1", db = "postgres", user = "postgres";
        int port = 5432, i = 0;
        for (; i < args.length && args[i].startsWith("--"); i += 2) {
            switch (args[i]) {
                case "--host": host = args[i + 1]; break;
                case "--port": port = Integer.parseInt(args[i + 1]); break;
                case "--db": db = args[i + 1]; break;
                case "--user": user = args[i + 1]; break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        SessionID id = new SessionID(args[i], args[i + 1], args[i + 2]);
        String action = args[i + 3];

        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {host});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName(db);
        ds.setUser(user);
        SessionSettings settings = new SessionSettings();
        settings.setString(id, "JdbcStoreSessionsTableName", "sessions");
        settings.setString(id, "JdbcStoreMessagesTableName", "messages");
        JdbcStoreFactory factory = new JdbcStoreFactory(settings);
        factory.setDataSource(ds);
        MessageStore store = factory.create(id);

        if (action.equals("write")) {
            int n = Integer.parseInt(args[i + 4]);
            for (int k = 1; k <= n; k++) {
                int seq = store.getNextSenderMsgSeqNum();
                // A whole message, as a QuickFIX/J session stores what it sends.
                quickfix.Message m = new quickfix.Message();
                m.getHeader().setString(35, "D");
                m.getHeader().setString(49, id.getSenderCompID());
                m.getHeader().setString(56, id.getTargetCompID());
                m.getHeader().setInt(34, seq);
                m.getHeader().setString(52, "20260101-00:00:00.000");
                m.setString(11, "QFJ-" + k);
                m.setString(58, "qfj \u00e9 " + k);
                m.getHeader().setString(8, id.getBeginString());
                store.set(seq, m.toString());
                store.incrNextSenderMsgSeqNum();
            }
            store.incrNextTargetMsgSeqNum();
        } else if (action.equals("dump")) {
            // UTF-8 whatever the locale (the test reads it as such).
            PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
                    StandardCharsets.UTF_8);
            out.println("sender=" + store.getNextSenderMsgSeqNum());
            out.println("target=" + store.getNextTargetMsgSeqNum());
            out.println("created=" + store.getCreationTime().getTime());
            List<String> messages = new ArrayList<>();
            store.get(1, Integer.MAX_VALUE, messages);
            for (String m : messages) {
                out.println(m.replace('\u0001', '|'));
            }
        } else {
            throw new IllegalArgumentException("unknown action " + action);
        }
    }
}
