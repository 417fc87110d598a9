// The venue of examples/venue.rs written against QuickFIX/J 2.3.1, the way its
// users write it, for the README's comparison of lengths (scripts/examples.sh
// counts both). An acceptor that fills every NewOrderSingle at once with one
// ExecutionReport, with the settings of a QuickFIX .cfg.
//
//   peers/quickfixj/run.sh firstapp.Venue examples/venue.cfg
package peregrine.peers.firstapp;

import java.util.concurrent.CountDownLatch;
import quickfix.Application;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileStoreFactory;
import quickfix.IncorrectTagValue;
import quickfix.Message;
import quickfix.MessageCracker;
import quickfix.SessionID;
import quickfix.SessionNotFound;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.UnsupportedMessageType;
import quickfix.field.AvgPx;
import quickfix.field.CumQty;
import quickfix.field.ExecID;
import quickfix.field.ExecType;
import quickfix.field.LastPx;
import quickfix.field.LastQty;
import quickfix.field.LeavesQty;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.Symbol;
import quickfix.fix44.ExecutionReport;
import quickfix.fix44.NewOrderSingle;

public class Venue extends MessageCracker implements Application {
    @Handler
    public void onMessage(NewOrderSingle order, SessionID session)
            throws FieldNotFound, SessionNotFound {
        String clOrdId = order.getClOrdID().getValue();
        double qty = order.getOrderQty().getValue();
        double price = order.isSetPrice() ? order.getPrice().getValue() : 0;
        ExecutionReport fill = new ExecutionReport(
                new OrderID(clOrdId),
                new ExecID(clOrdId), // one report per order
                new ExecType(ExecType.TRADE),
                new OrdStatus(OrdStatus.FILLED),
                order.getSide(),
                new LeavesQty(0),
                new CumQty(qty),
                new AvgPx(price));
        fill.set(order.getClOrdID());
        fill.set(order.isSetSymbol() ? order.getSymbol() : new Symbol(""));
        fill.set(order.getOrderQty());
        fill.set(new LastQty(qty));
        fill.set(new LastPx(price));
        quickfix.Session.sendToTarget(fill, session);
    }

    @Override
    public void fromApp(Message message, SessionID session)
            throws FieldNotFound, IncorrectTagValue, UnsupportedMessageType {
        crack(message, session);
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
        String cfg = args.length > 0 ? args[0] : "examples/venue.cfg";
        SessionSettings settings = new SessionSettings(cfg);
        SocketAcceptor acceptor = new SocketAcceptor(new Venue(),
                new FileStoreFactory(settings), settings, new DefaultMessageFactory());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            acceptor.stop();
            System.out.println("venue stopped");
            stopped.countDown();
        }));
        acceptor.start();
        System.out.println("venue listening on " + acceptor.getEndpoints());
        stopped.await();
    }
}
