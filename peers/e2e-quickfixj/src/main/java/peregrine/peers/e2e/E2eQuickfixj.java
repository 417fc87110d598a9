package peregrine.peers.e2e;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import peregrine.sbe.Decimal64Decoder;
import peregrine.sbe.ExecutionReportDecoder;
import peregrine.sbe.MessageHeaderDecoder;
import peregrine.sbe.MessageHeaderEncoder;
import peregrine.sbe.NewOrderEncoder;
import peregrine.sbe.OrdType;
import peregrine.sbe.Side;
import peregrine.sbe.TimeInForce;
import quickfix.Application;
import quickfix.FieldNotFound;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.SocketInitiator;
import quickfix.field.AvgPx;
import quickfix.field.ClOrdID;
import quickfix.field.CumQty;
import quickfix.field.ExecID;
import quickfix.field.ExecType;
import quickfix.field.LastPx;
import quickfix.field.LastQty;
import quickfix.field.LeavesQty;
import quickfix.field.OrdStatus;
import quickfix.field.OrderID;
import quickfix.field.OrderQty;
import quickfix.field.Symbol;
import quickfix.field.TransactTime;
import quickfix.fix44.ExecutionReport;
import quickfix.fix44.NewOrderSingle;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * BENCHMARKS.md §3 with QuickFIX/J 2.3.1:
 * Venue (SocketInitiator) ⇄ TCP localhost ⇄ Gateway (SocketAcceptor) ⇄ Aeron 1.51.0 IPC ⇄ Executor.
 * One order in flight; the venue times each NewOrderSingle → ExecutionReport round trip.
 */
public final class E2eQuickfixj
{
    static final String VENUE = "VENUE";
    static final String GATEWAY = "GATEWAY";

    // QuickFIX/J session settings (the same for both sides apart from role and comp ids).
    static final String VALIDATION =
        "UseDataDictionary=Y (FIX44.xml from quickfixj-messages-fix44), ValidateIncomingMessage=Y, " +
        "ValidateFieldsOutOfOrder=Y, ValidateFieldsHaveValues=Y, ValidateUserDefinedFields=Y, " +
        "ValidateUnorderedGroupFields=Y, CheckLatency=Y (QuickFIX/J defaults); CheckSum always checked, " +
        "BodyLength by the MINA decoder";

    /** No message or event log at all (without a LogFactory QuickFIX/J falls back to a screen log). */
    static final quickfix.LogFactory NO_LOG = sessionId -> new quickfix.Log()
    {
        @Override
        public void clear()
        {
        }

        @Override
        public void onIncoming(final String message)
        {
        }

        @Override
        public void onOutgoing(final String message)
        {
        }

        @Override
        public void onEvent(final String text)
        {
        }

        @Override
        public void onErrorEvent(final String text)
        {
            System.err.println("[e2e] quickfixj error event: " + text);
        }
    };

    public static void main(final String[] args) throws Exception
    {
        final Bench b = Bench.parse(args);
        final ThreadingMode mode = AeronIpc.threadingMode(b.threading);
        final long timeoutNs = b.timeoutNs();
        final int total = b.total();
        Bench.log("quickfixj: warmup " + b.warmup + ", iters " + b.iters + ", aeron " + mode + ", driver idle " + b.driverIdle +
            ", idle spin-then-yield:" + b.spins);

        // Pre-built per-order values: QuickFIX/J's field API takes java.lang.String / LocalDateTime,
        // so every ClOrdID and TransactTime is created before timing starts.
        final String[] clOrdIds = new String[total];
        final LocalDateTime[] transactTimes = new LocalDateTime[total];
        final LocalDateTime t0 = LocalDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS);
        for (int i = 0; i < total; i++)
        {
            clOrdIds[i] = String.format("C%09d", i + 1);
            transactTimes[i] = t0.plusNanos(i * 1_000_000L);
        }
        final String[] idStrings = new String[total + 2];
        for (int i = 0; i < idStrings.length; i++)
        {
            idStrings[i] = Integer.toString(i);
        }

        final AeronIpc ipc = AeronIpc.launch("peregrine-e2e-quickfixj", mode, b.spins, b.driverIdle);
        final AeronIpc.Streams streams = ipc.streams(b.timeoutMs);

        final Executor executor = new Executor(streams.ordersSub, streams.reportsPub, b.spins, b.timeoutMs);
        executor.start();

        final int port = Bench.freeLoopbackPort();

        final Gateway gateway = new Gateway(streams.ordersPub, streams.reportsSub, b.spins, timeoutNs, idStrings);
        final SocketAcceptor acceptor = new SocketAcceptor(
            gateway, new MemoryStoreFactory(), settings(true, port), NO_LOG, new quickfix.fix44.MessageFactory());
        final Venue venue = new Venue();
        final SocketInitiator initiator = new SocketInitiator(
            venue, new MemoryStoreFactory(), settings(false, port), NO_LOG, new quickfix.fix44.MessageFactory());
        acceptor.start();
        initiator.start();

        final long logonDeadline = System.nanoTime() + timeoutNs;
        while (venue.session == null || gateway.session == null)
        {
            Bench.checkDeadline(logonDeadline, "the FIX logon");
            Thread.sleep(1);
        }
        Bench.log("logged on; gateway session " + gateway.session.getSessionID());
        gateway.start();

        // Venue (this thread): one NewOrderSingle in flight at a time.
        final NewOrderSingle nos = new NewOrderSingle();
        nos.set(new quickfix.field.Symbol("AAPL"));
        nos.set(new quickfix.field.Side(quickfix.field.Side.BUY));
        nos.set(new OrderQty(1000));
        nos.set(new quickfix.field.OrdType(quickfix.field.OrdType.LIMIT));
        nos.set(new quickfix.field.Price(150.00));
        nos.set(new quickfix.field.TimeInForce(quickfix.field.TimeInForce.DAY));
        final ClOrdID clOrdId = new ClOrdID();
        final TransactTime transactTime = new TransactTime();
        final Session session = venue.session;
        final SpinThenYield idle = new SpinThenYield(b.spins);
        final Measurement measured = new Measurement(b);
        for (int i = 0; i < total; i++)
        {
            measured.before(i);
            clOrdId.setValue(clOrdIds[i]);
            nos.set(clOrdId);
            transactTime.setValue(transactTimes[i]);
            nos.set(transactTime);
            venue.expected = clOrdIds[i];
            final long sent = System.nanoTime();
            if (!session.send(nos))
            {
                Bench.fail("venue: Session.send returned false at order " + (i + 1));
            }
            final long deadline = sent + timeoutNs;
            idle.reset();
            while (venue.received != i + 1)
            {
                Bench.checkDeadline(deadline, "the ExecutionReport of order ", i + 1);
                idle.idle();
            }
            measured.after(i, venue.receivedAt - sent);
        }
        measured.end();
        final String gcAfter = measured.gcAfter;
        Bench.checkCounts(venue.fills, gateway.orders, executor.filled, gateway.reports, total, gcAfter);

        final String settings = "QuickFIX/J 2.3.1 SocketInitiator (venue) and SocketAcceptor (gateway), default " +
            "single-threaded event handling (QFJ Message Processor thread per connector, MINA I/O), " +
            "MemoryStoreFactory, a no-op LogFactory (no message or event logs), SocketTcpNoDelay=Y, ResetOnLogon=Y; " +
            "validation: " + VALIDATION + "; Aeron " + io.aeron.driver.MediaDriver.class.getPackage().getImplementationVersion() +
            " embedded MediaDriver ThreadingMode." + mode + " aeron:ipc, SBE orders.xml codecs (sbe-tool 1.38.1); " +
            "idle strategy " + new SpinThenYield(b.spins).describe() + " for venue wait, gateway Aeron poller " +
            "and executor (QuickFIX/J's own threads block in its queues and MINA selectors); driver agents: " +
            AeronIpc.describeDriverIdle(b.driverIdle, b.spins) + "; " +
            "threads: venue=main, gateway inbound=QFJ acceptor callback, gateway outbound=own poller thread, " +
            "executor=own thread; TransactTime and ClOrdID strings pre-built, gateway builds one String per ER " +
            "(ClOrdID from SBE, QuickFIX/J's API takes String); ExecType 150=F (FIX 4.4 Trade), OrdStatus 39=2; " +
            "GC during run " + gcAfter + "; " + Bench.jvmSettings();
        Bench.report("quickfixj", b.iters, b.warmup, measured.histogram, measured.totalNs, measured.allocBytes, settings);
        Bench.finishAfterReport(() ->
        {
            gateway.stop();
            executor.stop();
            initiator.stop(true);
            acceptor.stop(true);
            ipc.close();
        });
    }

    static SessionSettings settings(final boolean acceptor, final int port)
    {
        final SessionSettings s = new SessionSettings();
        final SessionID id = acceptor ?
            new SessionID("FIX.4.4", GATEWAY, VENUE) : new SessionID("FIX.4.4", VENUE, GATEWAY);
        s.setString(id, "ConnectionType", acceptor ? "acceptor" : "initiator");
        s.setString(id, "StartTime", "00:00:00");
        s.setString(id, "EndTime", "00:00:00");
        s.setString(id, "NonStopSession", "Y");
        s.setString(id, "HeartBtInt", "30");
        s.setString(id, "ResetOnLogon", "Y");
        s.setString(id, "UseDataDictionary", "Y");
        s.setString(id, "DataDictionary", "FIX44.xml");
        s.setString(id, "SocketTcpNoDelay", "Y");
        s.setString(id, "ReconnectInterval", "1");
        if (acceptor)
        {
            s.setString(id, "SocketAcceptAddress", "127.0.0.1");
            s.setString(id, "SocketAcceptPort", Integer.toString(port));
        }
        else
        {
            s.setString(id, "SocketConnectHost", "127.0.0.1");
            s.setString(id, "SocketConnectPort", Integer.toString(port));
        }
        return s;
    }

    abstract static class BaseApp implements Application
    {
        volatile Session session;

        @Override
        public void onCreate(final SessionID sessionId)
        {
        }

        @Override
        public void onLogon(final SessionID sessionId)
        {
            session = Session.lookupSession(sessionId);
        }

        @Override
        public void onLogout(final SessionID sessionId)
        {
        }

        @Override
        public void toAdmin(final Message message, final SessionID sessionId)
        {
        }

        @Override
        public void fromAdmin(final Message message, final SessionID sessionId)
        {
        }

        @Override
        public void toApp(final Message message, final SessionID sessionId)
        {
        }
    }

    /** Venue callbacks (QuickFIX/J initiator thread): check the ER, stamp the arrival time. */
    static final class Venue extends BaseApp
    {
        volatile String expected;
        volatile long receivedAt;
        volatile long received;
        long fills;

        @Override
        public void fromApp(final Message message, final SessionID sessionId) throws FieldNotFound
        {
            final long now = System.nanoTime();
            if (!"8".equals(message.getHeader().getString(35)))
            {
                Bench.fail("venue: unexpected message " + message);
            }
            if (!message.getString(11).equals(expected))
            {
                Bench.fail("venue: ClOrdID " + message.getString(11) + " != expected " + expected);
            }
            if (message.getChar(39) != '2' || message.getChar(150) != 'F' || message.getDouble(14) != 1000.0 ||
                message.getDouble(151) != 0.0)
            {
                Bench.fail("venue: not a fill: " + message);
            }
            fills++;
            receivedAt = now;
            received = received + 1;
        }
    }

    /**
     * Gateway: NewOrderSingle (QuickFIX/J acceptor thread) → SBE NewOrder on Aeron; its own poller
     * thread turns SBE ExecutionReports into FIX ExecutionReports on the session.
     */
    static final class Gateway extends BaseApp implements Runnable, FragmentHandler
    {
        private static final byte[] ZERO16 = new byte[16];
        private static final long[] POW10 = {1L, 10L, 100L, 1000L, 10000L, 100000L, 1000000L, 10000000L, 100000000L};

        private final ExclusivePublication ordersPub;
        private final Subscription reportsSub;
        private final SpinThenYield pollIdle;
        private final SpinThenYield offerIdle;
        private final long timeoutNs;
        private final String[] idStrings;
        private final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
        private final NewOrderEncoder orderEncoder = new NewOrderEncoder();
        private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
        private final ExecutionReportDecoder reportDecoder = new ExecutionReportDecoder();
        private final ExecutionReport er = new ExecutionReport();
        private final OrderID orderId = new OrderID();
        private final ExecID execId = new ExecID();
        private final ExecType execType = new ExecType();
        private final OrdStatus ordStatus = new OrdStatus();
        private final quickfix.field.Side side = new quickfix.field.Side();
        private final Symbol symbol = new Symbol();
        private final OrderQty orderQty = new OrderQty();
        private final LastQty lastQty = new LastQty();
        private final LastPx lastPx = new LastPx();
        private final LeavesQty leavesQty = new LeavesQty();
        private final CumQty cumQty = new CumQty();
        private final AvgPx avgPx = new AvgPx();
        private final ClOrdID clOrdId = new ClOrdID();
        private final StringBuilder clOrdIdChars = new StringBuilder(32);
        private final byte[] symbolBytes = new byte[16];
        private final byte[] cachedSymbolBytes = new byte[16];
        private String cachedSymbol;
        private final Thread thread = new Thread(this, "gateway-aeron");
        private volatile boolean running = true;
        long orders;
        volatile long reports;

        Gateway(
            final ExclusivePublication ordersPub, final Subscription reportsSub, final int spins, final long timeoutNs,
            final String[] idStrings)
        {
            this.ordersPub = ordersPub;
            this.reportsSub = reportsSub;
            this.pollIdle = new SpinThenYield(spins);
            this.offerIdle = new SpinThenYield(spins);
            this.timeoutNs = timeoutNs;
            this.idStrings = idStrings;
            thread.setDaemon(true);
        }

        void start()
        {
            thread.start();
        }

        void stop() throws InterruptedException
        {
            running = false;
            thread.join(5_000);
        }

        // NewOrderSingle → SBE NewOrder (acceptor thread).
        @Override
        public void fromApp(final Message m, final SessionID sessionId) throws FieldNotFound
        {
            if (!"D".equals(m.getHeader().getString(35)))
            {
                Bench.fail("gateway: unexpected message " + m);
            }
            final String clOrd = m.getString(11);
            final String sym = m.getString(55);
            final char sd = m.getChar(54);
            final LocalDateTime tt = m.getUtcTimeStamp(60);
            final double qty = m.getDouble(38);
            final char ordType = m.getChar(40);
            final double px = m.getDouble(44);
            final char tif = m.getChar(59);

            final NewOrderEncoder e = orderEncoder.wrapAndApplyHeader(out, 0, headerEncoder)
                .sessionId(1)
                .transactTime(tt.toEpochSecond(ZoneOffset.UTC) * 1_000_000_000L + tt.getNano());
            e.price().mantissa(Math.round(px * 100.0)).exponent((byte)-2);
            e.orderQty().mantissa(Math.round(qty)).exponent((byte)0);
            e.clOrdId(clOrd)
                .symbol(sym)
                .putAccount(ZERO16, 0)
                .side(Side.get((byte)sd))
                .ordType(OrdType.get((byte)ordType))
                .timeInForce(TimeInForce.get((byte)tif));
            AeronIpc.offer(ordersPub, out, MessageHeaderEncoder.ENCODED_LENGTH + e.encodedLength(), offerIdle, timeoutNs);
            orders++;
        }

        // SBE ExecutionReport → FIX ExecutionReport (gateway poller thread).
        @Override
        public void run()
        {
            final Subscription sub = reportsSub;
            final SpinThenYield idle = pollIdle;
            while (running)
            {
                idle.idle(sub.poll(this, 16));
            }
        }

        private static double toDouble(final Decimal64Decoder d)
        {
            final long m = d.mantissa();
            final int e = d.exponent();
            return e >= 0 ? (double)(m * POW10[e]) : (double)m / POW10[-e];
        }

        private String id(final long v)
        {
            return v >= 0 && v < idStrings.length ? idStrings[(int)v] : Long.toString(v);
        }

        @Override
        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            headerDecoder.wrap(buffer, offset);
            if (headerDecoder.templateId() != ExecutionReportDecoder.TEMPLATE_ID)
            {
                Bench.fail("gateway: unexpected SBE template " + headerDecoder.templateId());
            }
            final ExecutionReportDecoder r = reportDecoder.wrap(
                buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(), headerDecoder.version());
            orderId.setValue(id(r.orderId()));
            er.set(orderId);
            execId.setValue(id(r.execId()));
            er.set(execId);
            orderQty.setValue(toDouble(r.orderQty()));
            er.set(orderQty);
            lastQty.setValue(toDouble(r.lastQty()));
            er.set(lastQty);
            lastPx.setValue(toDouble(r.lastPx()));
            er.set(lastPx);
            leavesQty.setValue(toDouble(r.leavesQty()));
            er.set(leavesQty);
            cumQty.setValue(toDouble(r.cumQty()));
            er.set(cumQty);
            avgPx.setValue(toDouble(r.avgPx()));
            er.set(avgPx);
            clOrdIdChars.setLength(0);
            r.getClOrdId(clOrdIdChars);
            clOrdId.setValue(clOrdIdChars.toString());
            er.set(clOrdId);
            r.getSymbol(symbolBytes, 0);
            if (cachedSymbol == null || !java.util.Arrays.equals(symbolBytes, cachedSymbolBytes))
            {
                System.arraycopy(symbolBytes, 0, cachedSymbolBytes, 0, 16);
                int n = 0;
                while (n < 16 && symbolBytes[n] != 0)
                {
                    n++;
                }
                cachedSymbol = new String(symbolBytes, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
            }
            symbol.setValue(cachedSymbol);
            er.set(symbol);
            side.setValue((char)r.sideRaw());
            er.set(side);
            execType.setValue((char)r.execTypeRaw());
            er.set(execType);
            ordStatus.setValue((char)r.ordStatusRaw());
            er.set(ordStatus);
            final Session s = session;
            if (s == null || !s.send(er))
            {
                Bench.fail("gateway: Session.send failed");
            }
            reports = reports + 1;
        }
    }
}
