// A QuickFIX/J counterparty for the store-import test (crates/peregrine-cli/tests/store_import_quickfixj.rs):
// the session of a .cfg (acceptor or initiator, FileStore) answers every NewOrderSingle with
// an ExecutionReport of the same ClOrdID and appends "<ClOrdID> <PossDupFlag>" to OUT for
// each NewOrderSingle delivered. It prints "logon-in <MsgSeqNum> <ResetSeqNumFlag>" for each
// Logon received and "resend-request-in <BeginSeqNo> <EndSeqNo>" for each ResendRequest.
// With REWIND, the session's next expected number is set to REWIND before it starts (as a
// counterparty that lost what it received from there on), so the next Logon it receives is
// too high and it asks for a resend. It exits 0 at its first Logout after a Logon, 1 after
// TIMEOUT_S.
//
//   peers/quickfixj/run.sh Counterparty CFG OUT [REWIND]
package peregrine.peers;

import java.io.Closeable;
import java.io.FileWriter;
import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import quickfix.Application;
import quickfix.Connector;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileStoreFactory;
import quickfix.Message;
import quickfix.MessageStore;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionNotFound;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.SocketInitiator;
import quickfix.field.AvgPx;
import quickfix.field.BeginSeqNo;
import quickfix.field.ClOrdID;
import quickfix.field.CumQty;
import quickfix.field.EndSeqNo;
import quickfix.field.ExecID;
import quickfix.field.ExecType;
import quickfix.field.LeavesQty;
import quickfix.field.MsgSeqNum;
import quickfix.field.MsgType;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.PossDupFlag;
import quickfix.field.ResetSeqNumFlag;
import quickfix.field.Side;
import quickfix.field.Symbol;

public class Counterparty implements Application {
    static final long TIMEOUT_S = 240;

    final Writer out;
    final CountDownLatch loggedOut = new CountDownLatch(1);
    volatile boolean loggedOn;
    int execs;

    Counterparty(Writer out) {
        this.out = out;
    }

    @Override
    public synchronized void fromApp(Message message, SessionID session) throws FieldNotFound {
        if (!message.getHeader().getString(MsgType.FIELD).equals(MsgType.ORDER_SINGLE)) {
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
        Message er = new Message();
        er.getHeader().setString(MsgType.FIELD, MsgType.EXECUTION_REPORT);
        er.setString(OrderID.FIELD, "O" + id);
        er.setString(ExecID.FIELD, "E" + (++execs));
        er.setChar(ExecType.FIELD, ExecType.NEW);
        er.setChar(OrdStatus.FIELD, OrdStatus.NEW);
        er.setString(ClOrdID.FIELD, id);
        er.setString(Symbol.FIELD, message.getString(Symbol.FIELD));
        er.setChar(Side.FIELD, message.getChar(Side.FIELD));
        er.setDecimal(LeavesQty.FIELD, java.math.BigDecimal.ONE);
        er.setDecimal(CumQty.FIELD, java.math.BigDecimal.ZERO);
        er.setDecimal(AvgPx.FIELD, java.math.BigDecimal.ZERO);
        try {
            Session.sendToTarget(er, session);
        } catch (SessionNotFound e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void fromAdmin(Message message, SessionID session) throws FieldNotFound {
        String type = message.getHeader().getString(MsgType.FIELD);
        if (type.equals(MsgType.LOGON)) {
            boolean reset = message.isSetField(ResetSeqNumFlag.FIELD)
                    && message.getBoolean(ResetSeqNumFlag.FIELD);
            System.out.println("logon-in " + message.getHeader().getInt(MsgSeqNum.FIELD)
                    + (reset ? " Y" : " N"));
        } else if (type.equals(MsgType.RESEND_REQUEST)) {
            System.out.println("resend-request-in " + message.getInt(BeginSeqNo.FIELD) + " "
                    + message.getInt(EndSeqNo.FIELD));
        }
        System.out.flush();
    }

    @Override public void onCreate(SessionID session) {}
    @Override public void onLogon(SessionID session) {
        loggedOn = true;
        System.out.println("logon " + session);
        System.out.flush();
    }
    @Override public void onLogout(SessionID session) {
        System.out.println("logout " + session);
        System.out.flush();
        if (loggedOn) loggedOut.countDown();
    }
    @Override public void toAdmin(Message message, SessionID session) {}
    @Override public void toApp(Message message, SessionID session) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: Counterparty CFG OUT [REWIND]");
            System.exit(2);
        }
        SessionSettings settings = new SessionSettings(args[0]);
        Counterparty app = new Counterparty(new FileWriter(args[1], true));
        SessionID id = settings.sectionIterator().next();
        boolean acceptor = "acceptor".equalsIgnoreCase(settings.getString(id, "ConnectionType"));
        FileStoreFactory stores = new FileStoreFactory(settings);
        if (args.length == 3) {
            // Through QuickFIX/J's own store, before the session opens it.
            MessageStore store = stores.create(id);
            store.setNextTargetMsgSeqNum(Integer.parseInt(args[2]));
            ((Closeable) store).close();
        }
        Connector connector = acceptor
                ? new SocketAcceptor(app, stores, settings, new DefaultMessageFactory())
                : new SocketInitiator(app, stores, settings, new DefaultMessageFactory());
        connector.start();
        System.out.println("ready");
        System.out.flush();
        boolean done = app.loggedOut.await(TIMEOUT_S, TimeUnit.SECONDS);
        connector.stop();
        System.exit(done ? 0 : 1);
    }
}
