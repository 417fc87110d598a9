package peregrine.peers.e2e;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.ControlledFragmentHandler.Action;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import peregrine.fix44.FixDictionaryImpl;
import peregrine.fix44.builder.ExecutionReportEncoder;
import peregrine.fix44.builder.NewOrderSingleEncoder;
import peregrine.fix44.decoder.ExecutionReportDecoder;
import peregrine.fix44.decoder.NewOrderSingleDecoder;
import peregrine.sbe.MessageHeaderDecoder;
import peregrine.sbe.MessageHeaderEncoder;
import peregrine.sbe.NewOrderEncoder;
import peregrine.sbe.OrdType;
import peregrine.sbe.Side;
import peregrine.sbe.TimeInForce;
import uk.co.real_logic.artio.Reply;
import uk.co.real_logic.artio.engine.EngineConfiguration;
import uk.co.real_logic.artio.engine.FixEngine;
import uk.co.real_logic.artio.fields.DecimalFloat;
import uk.co.real_logic.artio.fields.UtcTimestampDecoder;
import uk.co.real_logic.artio.fields.UtcTimestampEncoder;
import uk.co.real_logic.artio.library.FixLibrary;
import uk.co.real_logic.artio.library.LibraryConfiguration;
import uk.co.real_logic.artio.library.OnMessageInfo;
import uk.co.real_logic.artio.library.SessionConfiguration;
import uk.co.real_logic.artio.library.SessionHandler;
import uk.co.real_logic.artio.messages.DisconnectReason;
import uk.co.real_logic.artio.messages.InitialAcceptedSessionOwner;
import uk.co.real_logic.artio.messages.SessionState;
import uk.co.real_logic.artio.session.Session;
import uk.co.real_logic.artio.util.MutableAsciiBuffer;
import uk.co.real_logic.artio.validation.SessionPersistenceStrategy;

import java.io.File;
import java.util.Collections;

/**
 * BENCHMARKS.md §3 with Artio 0.175:
 * Venue (FixEngine + FixLibrary, initiator) ⇄ TCP localhost ⇄ Gateway (FixEngine + FixLibrary, acceptor)
 * ⇄ Aeron IPC ⇄ Executor. One order in flight; the venue times each NewOrderSingle → ExecutionReport.
 * Both engines, the executor streams and Artio's engine-library streams share one embedded media driver.
 */
public final class E2eArtio
{
    static final String VENUE = "VENUE";
    static final String GATEWAY = "GATEWAY";
    static final String LIBRARY_CHANNEL = "aeron:ipc";

    public static void main(final String[] args) throws Exception
    {
        final Bench b = Bench.parse(args);
        final ThreadingMode mode = AeronIpc.threadingMode(b.threading);
        final long timeoutNs = b.timeoutNs();
        final int total = b.total();
        final boolean codecValidation = !Boolean.getBoolean("fix.codecs.no_validation");
        final boolean boundsChecks = !Boolean.getBoolean("agrona.disable.bounds.checks");
        Bench.log("artio: warmup " + b.warmup + ", iters " + b.iters + ", aeron " + mode + ", driver idle " + b.driverIdle +
            ", idle spin-then-yield:" + b.spins + ", codec validation " + codecValidation +
            ", bounds checks " + boundsChecks);

        final AeronIpc ipc = AeronIpc.launch("peregrine-e2e-artio", mode, b.spins, b.driverIdle);
        final String work = IoUtil.tmpDirName() + "peregrine-e2e-artio-" + ProcessHandle.current().pid();
        IoUtil.delete(new File(work), true);
        Bench.deleteOnFailure(work);

        final int port = Bench.freeLoopbackPort();

        final FixEngine gatewayEngine = FixEngine.launch(engineConfig(work + "/gateway", ipc.dir, 0, b, port));
        final FixEngine venueEngine = FixEngine.launch(engineConfig(work + "/venue", ipc.dir, 100, b, 0));

        final AeronIpc.Streams streams = ipc.streams(b.timeoutMs);
        final Executor executor = new Executor(streams.ordersSub, streams.reportsPub, b.spins, b.timeoutMs);
        executor.start();

        final Gateway gateway = new Gateway(streams.ordersPub, streams.reportsSub, b.spins, timeoutNs);
        final FixLibrary gatewayLibrary = connect(
            libraryConfig(work + "/gateway", ipc.dir, 0, b.spins, "gateway")
                .sessionAcquireHandler((session, info) -> gateway.onAcquired(session)),
            b.timeoutMs);
        gateway.start(gatewayLibrary);

        final Venue venue = new Venue();
        final FixLibrary venueLibrary = connect(
            libraryConfig(work + "/venue", ipc.dir, 100, b.spins, "venue")
                .sessionAcquireHandler((session, info) -> venue),
            b.timeoutMs);
        final SpinThenYield idle = new SpinThenYield(b.spins);
        final Reply<Session> reply = venueLibrary.initiate(SessionConfiguration.builder()
            .address("127.0.0.1", port)
            .senderCompId(VENUE)
            .targetCompId(GATEWAY)
            .fixDictionary(FixDictionaryImpl.class)
            .resetSeqNum(true)
            .timeoutInMs(b.timeoutMs)
            .build());
        final long logonDeadline = System.nanoTime() + timeoutNs;
        while (reply.isExecuting())
        {
            Bench.checkDeadline(logonDeadline, "the FIX logon (initiate)");
            idle.idle(venueLibrary.poll(10));
        }
        if (!reply.hasCompleted())
        {
            Bench.fail("venue: initiate failed: " + reply.state() + " " + reply.error());
        }
        final Session session = reply.resultIfPresent();
        while (!session.canSendMessage() || !gateway.ready)
        {
            Bench.checkDeadline(logonDeadline, "the FIX logon (session active)");
            idle.idle(venueLibrary.poll(10));
        }
        Bench.log("logged on: venue session " + session.id() + ", gateway session " + gateway.sessionId);

        // Venue (this thread): one NewOrderSingle in flight at a time; the ClOrdID is a reused char[]
        // incremented in place, TransactTime is encoded from the clock into a reused buffer.
        final NewOrderSingleEncoder nos = new NewOrderSingleEncoder();
        nos.instrument().symbol("AAPL".toCharArray());
        nos.side('1');
        nos.orderQtyData().orderQty(1000, 0);
        nos.ordType('2');
        nos.price(15000, 2);
        nos.timeInForce('0');
        final UtcTimestampEncoder transactTime = new UtcTimestampEncoder();
        final Measurement measured = new Measurement(b);
        for (int i = 0; i < total; i++)
        {
            measured.before(i);
            venue.nextClOrdId();
            nos.clOrdID(venue.clOrdId, Venue.CL_ORD_ID_LENGTH);
            nos.transactTime(transactTime.buffer(), transactTime.encode(System.currentTimeMillis()));
            final long sent = System.nanoTime();
            final long deadline = sent + timeoutNs;
            idle.reset();
            while (session.trySend(nos) < 0)
            {
                Bench.checkDeadline(deadline, "venue: trySend (back pressure) of order ", i + 1);
                idle.idle(venueLibrary.poll(10));
            }
            idle.reset();
            while (venue.received != i + 1)
            {
                final int work0 = venueLibrary.poll(10);
                if (work0 == 0)
                {
                    Bench.checkDeadline(deadline, "the ExecutionReport of order ", i + 1);
                }
                idle.idle(work0);
            }
            measured.after(i, venue.receivedAt - sent);
        }
        measured.end();
        final String gcAfter = measured.gcAfter;
        Bench.checkCounts(venue.received, gateway.orders, executor.filled, gateway.reports, total, gcAfter);

        final String settings = "Artio 0.175 (Aeron " + MediaDriver.class.getPackage().getImplementationVersion() +
            "): FixEngine + FixLibrary per side (gateway acceptor, venue initiator), DefaultEngineScheduler " +
            "(framer and archiver threads per engine), logInboundMessages(false), logOutboundMessages(false), " +
            "SessionPersistenceStrategy.alwaysTransient, InitialAcceptedSessionOwner.SOLE_LIBRARY, " +
            "codecs generated by Artio's CodecGenerationTool from QuickFIX FIX44.xml (package peregrine.fix44), " +
            "codec validation " + (codecValidation ? "ON" : "off (-Dfix.codecs.no_validation=true)") +
            ", bounds checks " + (boundsChecks ? "ON" : "off (-Dagrona.disable.bounds.checks=true)") +
            "; one embedded MediaDriver ThreadingMode." + mode + " for Artio's engine-library streams " +
            "(aeron:ipc) and the gateway-executor aeron:ipc streams, SBE orders.xml codecs (sbe-tool 1.38.1); " +
            "idle strategy " + new SpinThenYield(b.spins).describe() + " for every thread on the message path: " +
            "venue, gateway, executor, both engines' framers; background agents (driver, with IPC off the " +
            "message path, and both archivers, idle with logging off): " +
            ("spin-yield".equals(b.driverIdle) ? new SpinThenYield(b.spins).describe() :
            "Aeron/Artio default BackoffIdleStrategy (spin, yield, park up to 1 ms)") + "; threads: venue=main (polls its " +
            "library), gateway=own thread (polls its library and the reports stream), executor=own thread; " +
            "no allocation per order in the harness (reused encoders/decoders, char[] ClOrdID, byte[] ids); " +
            "ExecType 150=F (FIX 4.4 Trade), OrdStatus 39=2; GC during run " + gcAfter + "; " + Bench.jvmSettings();
        Bench.report("artio", b.iters, b.warmup, measured.histogram, measured.totalNs, measured.allocBytes, settings);
        Bench.finishAfterReport(() ->
        {
            long t = System.nanoTime();
            // Log out first (the gateway thread still polls and answers), so that closing the
            // engines does not wait for their session timeouts.
            session.startLogout();
            final long logoutDeadline = t + 5_000_000_000L;
            while (session.state() != SessionState.DISCONNECTED && System.nanoTime() - logoutDeadline < 0)
            {
                idle.idle(venueLibrary.poll(10));
            }
            Bench.log("venue session " + session.state() + " +" + (System.nanoTime() - t) / 1_000_000 + " ms");
            gateway.stop();
            executor.stop();
            venueLibrary.close();
            Bench.log("venue library closed +" + (System.nanoTime() - t) / 1_000_000 + " ms");
            gatewayLibrary.close();
            Bench.log("gateway library closed +" + (System.nanoTime() - t) / 1_000_000 + " ms");
            venueEngine.close();
            Bench.log("venue engine closed +" + (System.nanoTime() - t) / 1_000_000 + " ms");
            gatewayEngine.close();
            Bench.log("gateway engine closed +" + (System.nanoTime() - t) / 1_000_000 + " ms");
            ipc.close();
            IoUtil.delete(new File(work), true);
        });
    }

    static EngineConfiguration engineConfig(
        final String dir, final String aeronDir, final int streamBase, final Bench b, final int port)
    {
        final int spins = b.spins;
        final EngineConfiguration c = new EngineConfiguration();
        if ("spin-yield".equals(b.driverIdle))
        {
            c.archiverIdleStrategy(new SpinThenYield(spins));
        }
        if (port > 0)
        {
            c.bindTo("127.0.0.1", port);
        }
        c.libraryAeronChannel(LIBRARY_CHANNEL)
            .logFileDir(dir)
            .deleteLogFileDirOnStart(true)
            .logInboundMessages(false)
            .logOutboundMessages(false)
            .framerIdleStrategy(new SpinThenYield(spins))
            .sessionPersistenceStrategy(SessionPersistenceStrategy.alwaysTransient())
            .initialAcceptedSessionOwner(InitialAcceptedSessionOwner.SOLE_LIBRARY)
            .acceptorfixDictionary(FixDictionaryImpl.class)
            .printStartupWarnings(false)
            .outboundReplayStream(streamBase + 3)
            .archiveReplayStream(streamBase + 4)
            .reproductionLogStream(streamBase + 6)
            .reproductionReplayStream(streamBase + 7)
            .inboundAdminStream(streamBase + 21)
            .outboundAdminStream(streamBase + 22)
            .inboundLibraryStream(streamBase + 1)
            .outboundLibraryStream(streamBase + 2);
        c.monitoringFile(dir + "-engine-counters");
        c.aeronContext().aeronDirectoryName(aeronDir);
        return c;
    }

    static LibraryConfiguration libraryConfig(
        final String dir, final String aeronDir, final int streamBase, final int spins, final String name)
    {
        final LibraryConfiguration c = new LibraryConfiguration();
        c.libraryAeronChannels(Collections.singletonList(LIBRARY_CHANNEL))
            .libraryIdleStrategy(new SpinThenYield(spins))
            .libraryName(name);
        c.inboundLibraryStream(streamBase + 1);
        c.outboundLibraryStream(streamBase + 2);
        c.monitoringFile(dir + "-library-counters");
        c.aeronContext().aeronDirectoryName(aeronDir);
        return c;
    }

    static FixLibrary connect(final LibraryConfiguration config, final long timeoutMs)
    {
        final FixLibrary library = FixLibrary.connect(config);
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        final SpinThenYield idle = new SpinThenYield();
        while (!library.isConnected())
        {
            Bench.checkDeadline(deadline, "a FixLibrary to connect to its engine");
            idle.idle(library.poll(10));
        }
        return library;
    }

    /** Writes the decimal digits of v (>= 0) into dst; returns the length. */
    static int digits(long v, final byte[] dst)
    {
        int n = 0;
        do
        {
            dst[n++] = (byte)('0' + (v % 10));
            v /= 10;
        }
        while (v != 0);
        for (int i = 0, j = n - 1; i < j; i++, j--)
        {
            final byte t = dst[i];
            dst[i] = dst[j];
            dst[j] = t;
        }
        return n;
    }

    abstract static class BaseHandler implements SessionHandler
    {
        @Override
        public void onTimeout(final int libraryId, final Session session)
        {
        }

        @Override
        public void onSlowStatus(final int libraryId, final Session session, final boolean hasBecomeSlow)
        {
        }

        @Override
        public Action onDisconnect(final int libraryId, final Session session, final DisconnectReason reason)
        {
            return Action.CONTINUE;
        }

        @Override
        public void onSessionStart(final Session session)
        {
        }
    }

    /** Venue session handler (runs on the venue thread inside venueLibrary.poll). */
    static final class Venue extends BaseHandler
    {
        static final int CL_ORD_ID_LENGTH = 10;
        final char[] clOrdId = "C000000000".toCharArray();
        private final MutableAsciiBuffer ascii = new MutableAsciiBuffer();
        private final ExecutionReportDecoder er = new ExecutionReportDecoder();
        long received;
        long receivedAt;

        void nextClOrdId()
        {
            int i = CL_ORD_ID_LENGTH - 1;
            while (clOrdId[i] == '9')
            {
                clOrdId[i--] = '0';
            }
            clOrdId[i]++;
        }

        @Override
        public Action onMessage(
            final DirectBuffer buffer, final int offset, final int length, final int libraryId,
            final Session session, final int sequenceIndex, final long messageType, final long timestampInNs,
            final long position, final OnMessageInfo messageInfo)
        {
            final long now = System.nanoTime();
            if (messageType != ExecutionReportDecoder.MESSAGE_TYPE)
            {
                return Action.CONTINUE; // session-level messages (Logon, Heartbeat, ...) are handed over too
            }
            ascii.wrap(buffer);
            er.reset();
            er.decode(ascii, offset, length);
            final char[] id = er.clOrdID();
            final int len = er.clOrdIDLength();
            boolean same = len == CL_ORD_ID_LENGTH;
            for (int i = 0; same && i < len; i++)
            {
                same = id[i] == clOrdId[i];
            }
            if (!same)
            {
                Bench.fail("venue: ClOrdID " + new String(id, 0, len) + " != expected " + new String(clOrdId));
            }
            final DecimalFloat cum = er.cumQty();
            final DecimalFloat leaves = er.leavesQty();
            if (er.ordStatus() != '2' || er.execType() != 'F' || !isUnits(cum, 1000) || !isUnits(leaves, 0))
            {
                Bench.fail("venue: not a fill: " + er);
            }
            receivedAt = now;
            received++;
            return Action.CONTINUE;
        }

        private static boolean isUnits(final DecimalFloat d, final long units)
        {
            long v = d.value();
            for (int s = d.scale(); s > 0; s--)
            {
                if (v % 10 != 0)
                {
                    return false;
                }
                v /= 10;
            }
            return v == units;
        }
    }

    /**
     * Gateway thread: polls its FixLibrary (NewOrderSingle → SBE NewOrder on Aeron) and the reports
     * stream (SBE ExecutionReport → FIX ExecutionReport on the session).
     */
    static final class Gateway extends BaseHandler implements Runnable, FragmentHandler
    {
        private static final byte[] ZERO16 = new byte[16];

        private final ExclusivePublication ordersPub;
        private final Subscription reportsSub;
        private final SpinThenYield idle;
        private final SpinThenYield offerIdle;
        private final long timeoutNs;
        private final MutableAsciiBuffer ascii = new MutableAsciiBuffer();
        private final NewOrderSingleDecoder nos = new NewOrderSingleDecoder();
        private final UtcTimestampDecoder timestampDecoder = new UtcTimestampDecoder(true);
        private final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
        private final NewOrderEncoder orderEncoder = new NewOrderEncoder();
        private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
        private final peregrine.sbe.ExecutionReportDecoder reportDecoder = new peregrine.sbe.ExecutionReportDecoder();
        private final ExecutionReportEncoder er = new ExecutionReportEncoder();
        private final byte[] orderIdBytes = new byte[20];
        private final byte[] execIdBytes = new byte[20];
        private final byte[] clOrdIdBytes = new byte[32];
        private final byte[] symbolBytes = new byte[16];
        private final Thread thread = new Thread(this, "gateway");
        private FixLibrary library;
        private Session session;
        volatile boolean ready;
        volatile long sessionId;
        private volatile boolean running = true;
        volatile long orders;
        volatile long reports;

        Gateway(final ExclusivePublication ordersPub, final Subscription reportsSub, final int spins, final long timeoutNs)
        {
            this.ordersPub = ordersPub;
            this.reportsSub = reportsSub;
            this.idle = new SpinThenYield(spins);
            this.offerIdle = new SpinThenYield(spins);
            this.timeoutNs = timeoutNs;
            thread.setDaemon(true);
        }

        SessionHandler onAcquired(final Session session)
        {
            this.session = session;
            sessionId = session.id();
            ready = true;
            return this;
        }

        void start(final FixLibrary library)
        {
            this.library = library;
            thread.start();
        }

        void stop() throws InterruptedException
        {
            running = false;
            thread.join(5_000);
        }

        @Override
        public void run()
        {
            final FixLibrary library = this.library;
            final Subscription sub = reportsSub;
            final SpinThenYield idle = this.idle;
            while (running)
            {
                idle.idle(library.poll(10) + sub.poll(this, 10));
            }
        }

        // NewOrderSingle → SBE NewOrder.
        @Override
        public Action onMessage(
            final DirectBuffer buffer, final int offset, final int length, final int libraryId,
            final Session session, final int sequenceIndex, final long messageType, final long timestampInNs,
            final long position, final OnMessageInfo messageInfo)
        {
            if (messageType != NewOrderSingleDecoder.MESSAGE_TYPE)
            {
                return Action.CONTINUE; // session-level messages (Logon, Heartbeat, ...) are handed over too
            }
            ascii.wrap(buffer);
            final NewOrderSingleDecoder d = nos;
            d.reset();
            d.decode(ascii, offset, length);
            final long transactTimeMs = timestampDecoder.decode(d.transactTime(), d.transactTimeLength());
            final DecimalFloat px = d.price();
            final DecimalFloat qty = d.orderQty();

            final NewOrderEncoder e = orderEncoder.wrapAndApplyHeader(out, 0, headerEncoder)
                .sessionId(session.id())
                .transactTime(transactTimeMs * 1_000_000L);
            e.price().mantissa(px.value()).exponent((byte)-px.scale());
            e.orderQty().mantissa(qty.value()).exponent((byte)-qty.scale());
            final char[] id = d.clOrdID();
            final int idLen = d.clOrdIDLength();
            for (int i = 0; i < 32; i++)
            {
                e.clOrdId(i, i < idLen ? (byte)id[i] : 0);
            }
            final char[] sym = d.symbol();
            final int symLen = d.symbolLength();
            for (int i = 0; i < 16; i++)
            {
                e.symbol(i, i < symLen ? (byte)sym[i] : 0);
            }
            e.putAccount(ZERO16, 0)
                .side(Side.get((byte)d.side()))
                .ordType(OrdType.get((byte)d.ordType()))
                .timeInForce(TimeInForce.get((byte)d.timeInForce()));
            AeronIpc.offer(ordersPub, out, MessageHeaderEncoder.ENCODED_LENGTH + e.encodedLength(), offerIdle, timeoutNs);
            orders++;
            return Action.CONTINUE;
        }

        private static int asciiLength(final byte[] b)
        {
            int n = 0;
            while (n < b.length && b[n] != 0)
            {
                n++;
            }
            return n;
        }

        // SBE ExecutionReport → FIX ExecutionReport.
        @Override
        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            headerDecoder.wrap(buffer, offset);
            if (headerDecoder.templateId() != peregrine.sbe.ExecutionReportDecoder.TEMPLATE_ID)
            {
                Bench.fail("gateway: unexpected SBE template " + headerDecoder.templateId());
            }
            final peregrine.sbe.ExecutionReportDecoder r = reportDecoder.wrap(
                buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(), headerDecoder.version());
            final ExecutionReportEncoder f = er;
            f.orderID(orderIdBytes, digits(r.orderId(), orderIdBytes));
            f.execID(execIdBytes, digits(r.execId(), execIdBytes));
            f.execType((char)r.execTypeRaw());
            f.ordStatus((char)r.ordStatusRaw());
            f.side((char)r.sideRaw());
            r.getSymbol(symbolBytes, 0);
            f.instrument().symbol(symbolBytes, asciiLength(symbolBytes));
            f.orderQtyData().orderQty(r.orderQty().mantissa(), -r.orderQty().exponent());
            f.lastQty(r.lastQty().mantissa(), -r.lastQty().exponent());
            f.lastPx(r.lastPx().mantissa(), -r.lastPx().exponent());
            f.leavesQty(r.leavesQty().mantissa(), -r.leavesQty().exponent());
            f.cumQty(r.cumQty().mantissa(), -r.cumQty().exponent());
            f.avgPx(r.avgPx().mantissa(), -r.avgPx().exponent());
            r.getClOrdId(clOrdIdBytes, 0);
            f.clOrdID(clOrdIdBytes, asciiLength(clOrdIdBytes));
            final long deadline = System.nanoTime() + timeoutNs;
            offerIdle.reset();
            while (session.trySend(f) < 0)
            {
                Bench.checkDeadline(deadline, "gateway: trySend of an ExecutionReport (back pressure)");
                offerIdle.idle();
            }
            reports++;
        }
    }
}
