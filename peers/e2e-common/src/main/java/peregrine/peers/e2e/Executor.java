package peregrine.peers.e2e;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import peregrine.sbe.Decimal64Decoder;
import peregrine.sbe.ExecType;
import peregrine.sbe.ExecutionReportEncoder;
import peregrine.sbe.MessageHeaderDecoder;
import peregrine.sbe.MessageHeaderEncoder;
import peregrine.sbe.NewOrderDecoder;
import peregrine.sbe.OrdRejReason;
import peregrine.sbe.OrdStatus;

/**
 * The executor: its own thread, polls the orders stream, decodes each SBE NewOrder and answers
 * with a filled SBE ExecutionReport (orderId = execId = a counter, lastQty = cumQty = orderQty,
 * lastPx = avgPx = price, leavesQty = 0). Identical in every Java harness; allocates nothing
 * per message.
 */
public final class Executor implements Runnable, FragmentHandler
{
    private static final byte[] ZERO32 = new byte[32];

    private final Subscription orders;
    private final ExclusivePublication reports;
    private final SpinThenYield idle;
    private final SpinThenYield offerIdle;
    private final long timeoutNs;
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final NewOrderDecoder order = new NewOrderDecoder();
    private final ExecutionReportEncoder report = new ExecutionReportEncoder();
    private final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(512, 64));
    private final byte[] clOrdId = new byte[NewOrderDecoder.clOrdIdLength()];
    private final byte[] symbol = new byte[NewOrderDecoder.symbolLength()];
    private volatile boolean running = true;
    private long nextId;
    public volatile long filled;
    private final Thread thread;

    public Executor(
        final Subscription orders, final ExclusivePublication reports, final int spins, final long timeoutMs)
    {
        this.orders = orders;
        this.reports = reports;
        this.idle = new SpinThenYield(spins);
        this.offerIdle = new SpinThenYield(spins);
        this.timeoutNs = timeoutMs * 1_000_000L;
        this.thread = new Thread(this, "executor");
        this.thread.setDaemon(true);
    }

    public void start()
    {
        thread.start();
    }

    public void stop() throws InterruptedException
    {
        running = false;
        thread.join(5_000);
    }

    @Override
    public void run()
    {
        final Subscription orders = this.orders;
        final SpinThenYield idle = this.idle;
        while (running)
        {
            idle.idle(orders.poll(this, 16));
        }
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        headerDecoder.wrap(buffer, offset);
        if (headerDecoder.templateId() != NewOrderDecoder.TEMPLATE_ID)
        {
            Bench.fail("executor: unexpected SBE template " + headerDecoder.templateId());
        }
        final NewOrderDecoder o = order.wrap(
            buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(), headerDecoder.version());
        final long id = ++nextId;
        o.getClOrdId(clOrdId, 0);
        o.getSymbol(symbol, 0);
        final Decimal64Decoder px = o.price();
        final long pxM = px.mantissa();
        final byte pxE = px.exponent();
        final Decimal64Decoder qty = o.orderQty();
        final long qtyM = qty.mantissa();
        final byte qtyE = qty.exponent();

        final ExecutionReportEncoder r = report.wrapAndApplyHeader(out, 0, headerEncoder)
            .sessionId(o.sessionId())
            .orderId(id)
            .execId(id)
            .transactTime(System.currentTimeMillis() * 1_000_000L);
        r.price().mantissa(pxM).exponent(pxE);
        r.orderQty().mantissa(qtyM).exponent(qtyE);
        r.lastQty().mantissa(qtyM).exponent(qtyE);
        r.lastPx().mantissa(pxM).exponent(pxE);
        r.leavesQty().mantissa(0).exponent((byte)0);
        r.cumQty().mantissa(qtyM).exponent(qtyE);
        r.avgPx().mantissa(pxM).exponent(pxE);
        r.putClOrdId(clOrdId, 0)
            .putOrigClOrdId(ZERO32, 0)
            .putSymbol(symbol, 0)
            .side(o.side())
            .execType(ExecType.Trade)
            .ordStatus(OrdStatus.Filled)
            .ordRejReason(OrdRejReason.NULL_VAL)
            .putText(ZERO32, 0, 0);
        AeronIpc.offer(reports, out, MessageHeaderEncoder.ENCODED_LENGTH + r.encodedLength(), offerIdle, timeoutNs);
        filled++;
    }
}
