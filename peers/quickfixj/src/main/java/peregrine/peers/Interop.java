// QuickFIX/J's side of the interop suite (crates/peregrine-interop/tests/quickfixj.rs):
// the session of a .cfg (acceptor or initiator, FIX.4.4 or FIXT.1.1, file store, SSL as
// configured) sends COUNT NewOrderSingles J1..JCOUNT from its own thread, whatever the
// session's state (logged out, QuickFIX/J stores them for the resend), and appends
// "<ClOrdID> <PossDupFlag>" to OUT for every ExecutionReport delivered to it. It exits
// 0 once every order has a report, 1 after TIMEOUT_S without.
//
// Orders are J1..JCOUNT, or PREFIX1..PREFIXCOUNT.
//
//   peers/quickfixj/run.sh Interop CFG COUNT OUT [PREFIX]
package peregrine.peers;

import java.io.FileWriter;
import java.io.IOException;
import java.io.Writer;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import quickfix.Application;
import quickfix.Connector;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.SocketInitiator;
import quickfix.field.ClOrdID;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.PossDupFlag;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TransactTime;

public class Interop implements Application {
    static final long TIMEOUT_S = 240;

    final Writer out;
    final Set<String> answered = new HashSet<>();

    Interop(Writer out) {
        this.out = out;
    }

    @Override
    public synchronized void fromApp(Message message, SessionID session) throws FieldNotFound {
        if (!message.getHeader().getString(MsgType.FIELD).equals(MsgType.EXECUTION_REPORT)) {
            return;
        }
        String id = message.getString(ClOrdID.FIELD);
        boolean possDup = message.getHeader().isSetField(PossDupFlag.FIELD)
                && message.getHeader().getBoolean(PossDupFlag.FIELD);
        try {
            out.write(id + (possDup ? " Y\n" : " N\n"));
            out.flush();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        answered.add(id);
    }

    // Reports of this run's orders (a resend may bring an earlier run's too).
    synchronized int answeredCount(String prefix) {
        int n = 0;
        for (String id : answered) {
            if (id.startsWith(prefix)) n++;
        }
        return n;
    }

    @Override public void onCreate(SessionID session) {}
    @Override public void onLogon(SessionID session) { System.out.println("logon " + session); }
    @Override public void onLogout(SessionID session) { System.out.println("logout " + session); }
    @Override public void toAdmin(Message message, SessionID session) {}
    @Override public void fromAdmin(Message message, SessionID session) {}
    @Override public void toApp(Message message, SessionID session) {}

    static Message order(String prefix, int n) {
        Message m = new Message();
        m.getHeader().setString(MsgType.FIELD, MsgType.ORDER_SINGLE);
        m.setString(ClOrdID.FIELD, prefix + n);
        m.setString(Symbol.FIELD, "PGRN");
        m.setChar(Side.FIELD, Side.BUY);
        m.setUtcTimeStamp(TransactTime.FIELD, LocalDateTime.now(ZoneOffset.UTC));
        m.setDecimal(OrderQty.FIELD, java.math.BigDecimal.ONE);
        m.setChar(OrdType.FIELD, OrdType.MARKET);
        return m;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: Interop CFG COUNT OUT [PREFIX]");
            System.exit(2);
        }
        SessionSettings settings = new SessionSettings(args[0]);
        int count = Integer.parseInt(args[1]);
        String prefix = args.length == 4 ? args[3] : "J";
        Interop app = new Interop(new FileWriter(args[2], true));
        SessionID id = settings.sectionIterator().next();
        boolean acceptor = "acceptor".equalsIgnoreCase(settings.getString(id, "ConnectionType"));
        Connector connector = acceptor
                ? new SocketAcceptor(app, new FileStoreFactory(settings), settings, new DefaultMessageFactory())
                : new SocketInitiator(app, new FileStoreFactory(settings), settings, new DefaultMessageFactory());
        connector.start();
        System.out.println("ready");
        System.out.flush();
        long deadline = System.currentTimeMillis() + 60_000;
        while (!connector.isLoggedOn()) {
            if (System.currentTimeMillis() > deadline) {
                System.out.println("not logged on within 60 s");
                System.exit(1);
            }
            Thread.sleep(10);
        }
        Session session = Session.lookupSession(id);
        Thread producer = new Thread(() -> {
            for (int n = 1; n <= count; n++) {
                // Logged out, QuickFIX/J stores it under its sequence number for the resend.
                session.send(order(prefix, n));
                if (n % 50 == 0) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            System.out.println("sent " + count);
        });
        producer.start();
        deadline = System.currentTimeMillis() + TIMEOUT_S * 1000;
        int last = -1;
        while (app.answeredCount(prefix) < count && System.currentTimeMillis() < deadline) {
            int now = app.answeredCount(prefix);
            if (now / 1000 != last / 1000) {
                System.out.println("answered " + now);
                System.out.flush();
            }
            last = now;
            Thread.sleep(10);
        }
        producer.join();
        int answered = app.answeredCount(prefix);
        System.out.println("answered " + answered + " of " + count);
        System.out.flush();
        connector.stop();
        System.exit(answered == count ? 0 : 1);
    }
}
