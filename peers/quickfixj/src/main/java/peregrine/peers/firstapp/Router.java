// The router of examples/router.rs written against QuickFIX/J 2.3.1, the way its
// users write one, for the README's comparison (scripts/router.sh runs both between
// the same clients and exchange, killing each with SIGKILL). Client sessions made from
// an acceptor template for the CompIDs allowed, the exchange an initiator over TLS.
// Orders and cancels go to the exchange with ClOrdID and OrigClOrdID prefixed by the
// client's CompID ("C1:ORD-7"), reports and cancel rejects come back to the client the
// prefix names, each forwarded from inside fromApp with Session.sendToTarget.
//
// QuickFIX/J stores a forward inside fromApp and the incoming MsgSeqNum after fromApp
// returns: a router killed in between is sent the message again once restarted and
// forwards it a second time, as a new message (at least once, never lost).
//
//   peers/quickfixj/run.sh firstapp.Router peers/quickfixj/firstapp/router.cfg
package peregrine.peers.firstapp;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import quickfix.Application;
import quickfix.DefaultMessageFactory;
import quickfix.FieldException;
import quickfix.FieldNotFound;
import quickfix.FileLogFactory;
import quickfix.FileStoreFactory;
import quickfix.IncorrectTagValue;
import quickfix.LogFactory;
import quickfix.Message;
import quickfix.MessageFactory;
import quickfix.MessageStoreFactory;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionNotFound;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.SocketInitiator;
import quickfix.UnsupportedMessageType;
import quickfix.field.AvgPx;
import quickfix.field.ClOrdID;
import quickfix.field.CumQty;
import quickfix.field.ExecID;
import quickfix.field.ExecType;
import quickfix.field.LeavesQty;
import quickfix.field.MsgType;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.OrderQty;
import quickfix.field.OrigClOrdID;
import quickfix.field.Symbol;
import quickfix.field.Text;
import quickfix.mina.acceptor.DynamicAcceptorSessionProvider;
import quickfix.mina.acceptor.DynamicAcceptorSessionProvider.TemplateMapping;

public class Router implements Application {
    static final SessionID EXCHANGE = new SessionID("FIX.4.4", "GW", "EXCH");
    static final SessionID TEMPLATE = new SessionID("FIX.4.4", "GW", "*");

    final List<String> allowed = new ArrayList<>();
    DynamicAcceptorSessionProvider clients;
    SocketAcceptor acceptor;

    static void send(Message message, SessionID to) {
        try {
            Session.sendToTarget(message, to);
        } catch (SessionNotFound e) {
            throw new IllegalStateException(e); // both sides' sessions exist by now
        }
    }

    // Why an order is refused before it reaches the exchange, or null.
    static String check(Message order) {
        if (!order.isSetField(Symbol.FIELD)) {
            return "no Symbol";
        }
        try {
            double qty = order.getDouble(OrderQty.FIELD);
            return qty > 0 && qty <= 1_000_000 ? null : "OrderQty missing or out of range";
        } catch (FieldNotFound | FieldException e) {
            return "OrderQty missing or out of range";
        }
    }

    // An ExecutionReport OrdStatus=Rejected for a client's order: the order's fields and why.
    static void reject(Message order, String why, SessionID client) throws FieldNotFound {
        Message report = (Message) order.clone();
        report.getHeader().setField(new MsgType(MsgType.EXECUTION_REPORT));
        report.setField(new OrderID("NONE"));
        report.setField(new ExecID(order.isSetField(ClOrdID.FIELD) ? order.getString(ClOrdID.FIELD) : "?"));
        report.setField(new ExecType(ExecType.REJECTED));
        report.setField(new OrdStatus(OrdStatus.REJECTED));
        report.setField(new Text(why));
        report.setField(new LeavesQty(0));
        report.setField(new CumQty(0));
        report.setField(new AvgPx(0));
        send(report, client);
    }

    @Override
    public void fromApp(Message message, SessionID session)
            throws FieldNotFound, IncorrectTagValue, UnsupportedMessageType {
        String type = message.getHeader().getString(MsgType.FIELD);
        Message out = (Message) message.clone(); // sendToTarget writes the header anew
        if (session.equals(EXCHANGE)) {
            if (!type.equals(MsgType.EXECUTION_REPORT) && !type.equals(MsgType.ORDER_CANCEL_REJECT)) {
                return; // a reject is not answered (no reject loops)
            }
            // "C1:ORD-7" back to C1 as "ORD-7" (OrigClOrdID likewise).
            String id = message.getString(ClOrdID.FIELD);
            String client = id.substring(0, Math.max(id.indexOf(':'), 0));
            if (!allowed.contains(client)) {
                throw new IncorrectTagValue(ClOrdID.FIELD); // not our ClOrdID
            }
            out.setField(new ClOrdID(id.substring(client.length() + 1)));
            if (message.isSetField(OrigClOrdID.FIELD)) {
                String orig = message.getString(OrigClOrdID.FIELD);
                out.setField(new OrigClOrdID(orig.substring(orig.indexOf(':') + 1)));
            }
            // A client that has not logged on since a restart has no session yet: make it
            // from the template, so that the report is stored for its resend.
            SessionID to = new SessionID("FIX.4.4", "GW", client);
            clients.getSession(to, acceptor);
            send(out, to);
            return;
        }
        String prefix = session.getTargetCompID() + ":";
        switch (type) {
            case MsgType.ORDER_SINGLE:
                String why = check(message);
                if (why == null && !Session.lookupSession(EXCHANGE).isLoggedOn()) {
                    why = "exchange not logged on";
                }
                if (why != null) {
                    reject(message, why, session);
                    return;
                }
                break;
            case MsgType.ORDER_CANCEL_REQUEST:
                break;
            default:
                throw new UnsupportedMessageType();
        }
        out.setField(new ClOrdID(prefix + message.getString(ClOrdID.FIELD)));
        if (message.isSetField(OrigClOrdID.FIELD)) {
            out.setField(new OrigClOrdID(prefix + message.getString(OrigClOrdID.FIELD)));
        }
        send(out, EXCHANGE);
    }

    @Override
    public void onCreate(SessionID session) {}

    @Override
    public void onLogon(SessionID session) {}

    @Override
    public void onLogout(SessionID session) {}

    @Override
    public void toAdmin(Message message, SessionID session) {}

    @Override
    public void fromAdmin(Message message, SessionID session) {}

    @Override
    public void toApp(Message message, SessionID session) {}

    public static void main(String[] args) throws Exception {
        String cfg = args.length > 0 ? args[0] : "peers/quickfixj/firstapp/router.cfg";
        SessionSettings settings = new SessionSettings(cfg);
        MessageStoreFactory stores = new FileStoreFactory(settings);
        LogFactory logs = new FileLogFactory(settings);
        MessageFactory messages = new DefaultMessageFactory();
        Router router = new Router();
        // Each allowed CompID is mapped to the template; any other gets no session and no
        // answer to its Logon (QuickFIX/J 2.3.1 leaves the connection to its logon timeout).
        List<TemplateMapping> mappings = new ArrayList<>();
        for (String client : settings.getString(TEMPLATE, "AllowedTargetCompIDs").split(",")) {
            router.allowed.add(client);
            mappings.add(new TemplateMapping(new SessionID("FIX.4.4", "GW", client), TEMPLATE));
        }
        router.clients = new DynamicAcceptorSessionProvider(settings, mappings, router, stores, logs,
                messages);
        router.acceptor = new SocketAcceptor(router, stores, settings, logs, messages);
        router.acceptor.setSessionProvider(new InetSocketAddress(
                settings.getString(TEMPLATE, "SocketAcceptAddress"),
                (int) settings.getLong(TEMPLATE, "SocketAcceptPort")), router.clients);
        // Its own connector: QuickFIX/J's acceptors and initiators are separate objects.
        SocketInitiator exchange = new SocketInitiator(router, stores, settings, logs, messages);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            exchange.stop();
            router.acceptor.stop();
            System.out.println("router stopped");
            stopped.countDown();
        }));
        router.acceptor.start();
        exchange.start();
        System.out.println("router listening on " + router.acceptor.getEndpoints());
        stopped.await();
    }
}
