// The client of examples/client.rs written against QuickFIX/J 2.3.1, the way its
// users write it, for the README's comparison of lengths (scripts/examples.sh
// counts both). An initiator that sends orders produced on another thread and
// checks that each is answered exactly once, whatever happens to the venue.
//
//   peers/quickfixj/run.sh firstapp.Client examples/client.cfg 1000
package peregrine.peers.firstapp;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import quickfix.Application;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileStoreFactory;
import quickfix.IncorrectTagValue;
import quickfix.Message;
import quickfix.MessageCracker;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketInitiator;
import quickfix.UnsupportedMessageType;
import quickfix.field.ClOrdID;
import quickfix.field.HandlInst;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.PossDupFlag;
import quickfix.field.Price;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TransactTime;
import quickfix.fix44.ExecutionReport;
import quickfix.fix44.NewOrderSingle;

public class Client extends MessageCracker implements Application {
    static final SessionID SESSION = new SessionID("FIX.4.4", "CLIENT", "VENUE");
    static final long PACE_MS = 1;
    static final long TIMEOUT_MS = 120_000;

    // The engine calls back on its own thread; main reads these after stop.
    final int[] answers;
    long resendsRecognised;
    long ordersResent;
    final AtomicInteger answered = new AtomicInteger();

    Client(int orders) {
        answers = new int[orders];
    }

    @Handler
    public synchronized void onMessage(ExecutionReport report, SessionID session)
            throws FieldNotFound, IncorrectTagValue {
        String id = report.getClOrdID().getValue();
        int order;
        try {
            order = Integer.parseInt(id.substring("ORD-".length()));
        } catch (RuntimeException e) {
            throw new IncorrectTagValue(ClOrdID.FIELD);
        }
        if (order < 0 || order >= answers.length) {
            throw new IncorrectTagValue(ClOrdID.FIELD);
        }
        boolean possDup = report.getHeader().isSetField(PossDupFlag.FIELD)
                && report.getHeader().getBoolean(PossDupFlag.FIELD);
        if (possDup && answers[order] > 0) {
            resendsRecognised++;
            return;
        }
        answers[order]++;
        if (answers[order] == 1) {
            answered.incrementAndGet();
        }
    }

    @Override
    public void fromApp(Message message, SessionID session)
            throws FieldNotFound, IncorrectTagValue, UnsupportedMessageType {
        crack(message, session);
    }

    @Override
    public synchronized void toApp(Message message, SessionID session) {
        try {
            if (message.getHeader().isSetField(PossDupFlag.FIELD)
                    && message.getHeader().getBoolean(PossDupFlag.FIELD)) {
                ordersResent++;
            }
        } catch (FieldNotFound e) {
            throw new IllegalStateException(e);
        }
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

    public static void main(String[] args) throws Exception {
        String cfg = args.length > 0 ? args[0] : "examples/client.cfg";
        int orders = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Client client = new Client(orders);
        SessionSettings settings = new SessionSettings(cfg);
        SocketInitiator initiator = new SocketInitiator(client,
                new FileStoreFactory(settings), settings, new DefaultMessageFactory());
        initiator.start();
        long logonDeadline = System.currentTimeMillis() + 30_000;
        while (!initiator.isLoggedOn()) {
            if (System.currentTimeMillis() > logonDeadline) {
                throw new IllegalStateException("not logged on within 30 s");
            }
            Thread.sleep(10);
        }

        // Orders come from another thread; QuickFIX/J sends on the caller's thread.
        Thread producer = new Thread(() -> {
            for (int n = 0; n < orders; n++) {
                NewOrderSingle order = new NewOrderSingle(
                        new ClOrdID("ORD-" + n),
                        new Side(Side.BUY),
                        new TransactTime(LocalDateTime.now(ZoneOffset.UTC)),
                        new OrdType(OrdType.LIMIT));
                order.set(new HandlInst(HandlInst.AUTOMATED_EXECUTION_ORDER_PRIVATE_NO_BROKER_INTERVENTION));
                order.set(new Symbol("PGRN"));
                order.set(new OrderQty(100));
                order.set(new Price(101.25));
                // Logged out, QuickFIX/J stores it for the resend and returns false.
                Session.lookupSession(SESSION).send(order);
                try {
                    Thread.sleep(PACE_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        producer.start();

        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        int reported = 0;
        while (client.answered.get() < orders && System.currentTimeMillis() < deadline) {
            int now = client.answered.get();
            if (now / 100 > reported / 100) {
                System.out.println("answered " + now);
            }
            reported = now;
            Thread.sleep(5);
        }
        producer.join();
        initiator.stop();

        int once = 0, missing = 0, twice = 0;
        synchronized (client) {
            for (int a : client.answers) {
                if (a == 1) once++;
                else if (a == 0) missing++;
                else twice++;
            }
            System.out.printf("orders %d: answered once %d, not answered %d, answered more than once %d, "
                    + "PossDup resends recognised %d, messages resent at the venue's request %d%n",
                    orders, once, missing, twice, client.resendsRecognised, client.ordersResent);
        }
        System.exit(once == orders ? 0 : 1);
    }
}
