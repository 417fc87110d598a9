package peregrine.peers.e2e;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.DirectBuffer;

/**
 * The embedded Aeron media driver and the two IPC streams between gateway and executor:
 * {@code aeron:ipc} stream 1001 (orders, gateway to executor) and 1002 (execution reports back).
 * For IPC the driver is not on the message path (publisher and subscriber share the log buffer), so
 * by default its agents keep Aeron's own idle strategy (BackoffIdleStrategy: spin, yield, then park
 * up to 1 ms), as Peregrine's topology does ({@code DriverIdle::Backoff}); {@code spin-yield} gives
 * them the same {@link SpinThenYield} as the application threads instead.
 */
public final class AeronIpc implements AutoCloseable
{
    public static final String CHANNEL = "aeron:ipc";
    public static final int ORDERS_STREAM = 1001;
    public static final int REPORTS_STREAM = 1002;

    public final MediaDriver driver;
    public final Aeron aeron;
    public final String dir;
    public final ThreadingMode threadingMode;

    private AeronIpc(final MediaDriver driver, final Aeron aeron, final ThreadingMode mode)
    {
        this.driver = driver;
        this.aeron = aeron;
        this.dir = driver.aeronDirectoryName();
        this.threadingMode = mode;
    }

    public static MediaDriver.Context driverContext(
        final String dir, final ThreadingMode mode, final int spins, final boolean spinYield)
    {
        final MediaDriver.Context c = new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(mode)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true);
        if (!spinYield)
        {
            return c;
        }
        return c
            .conductorIdleStrategy(new SpinThenYield(spins))
            .senderIdleStrategy(new SpinThenYield(spins))
            .receiverIdleStrategy(new SpinThenYield(spins))
            .sharedNetworkIdleStrategy(new SpinThenYield(spins))
            .sharedIdleStrategy(new SpinThenYield(spins));
    }

    /** Launches the driver (directory under /dev/shm) and connects one client to it. */
    public static String describeDriverIdle(final String driverIdle, final int spins)
    {
        return "spin-yield".equals(driverIdle) ? new SpinThenYield(spins).describe() :
            "Aeron default BackoffIdleStrategy (spin, yield, park up to 1 ms; the driver is off the IPC message path)";
    }

    /** The threading mode {@code --threading} asks for (its name), DEDICATED when not given. */
    public static ThreadingMode threadingMode(final String threading)
    {
        return threading == null ? ThreadingMode.DEDICATED : ThreadingMode.valueOf(threading);
    }

    public static AeronIpc launch(final String name, final ThreadingMode mode, final int spins, final String driverIdle)
    {
        final String dir = "/dev/shm/" + name + "-" + ProcessHandle.current().pid();
        Bench.deleteOnFailure(dir);
        final MediaDriver driver = MediaDriver.launchEmbedded(
            driverContext(dir, mode, spins, "spin-yield".equals(driverIdle)));
        final Aeron aeron = Aeron.connect(new Aeron.Context()
            .aeronDirectoryName(driver.aeronDirectoryName())
            .idleStrategy(new SpinThenYield(spins)));
        return new AeronIpc(driver, aeron, mode);
    }

    public ExclusivePublication publication(final int stream)
    {
        return aeron.addExclusivePublication(CHANNEL, stream);
    }

    public Subscription subscription(final int stream)
    {
        return aeron.addSubscription(CHANNEL, stream);
    }

    /** Both streams of the topology, gateway to executor and back. */
    public static final class Streams
    {
        /** Orders: the gateway publishes, the executor subscribes. */
        public final ExclusivePublication ordersPub;
        public final Subscription ordersSub;
        /** Execution reports: the executor publishes, the gateway subscribes. */
        public final ExclusivePublication reportsPub;
        public final Subscription reportsSub;

        private Streams(
            final ExclusivePublication ordersPub, final Subscription ordersSub,
            final ExclusivePublication reportsPub, final Subscription reportsSub)
        {
            this.ordersPub = ordersPub;
            this.ordersSub = ordersSub;
            this.reportsPub = reportsPub;
            this.reportsSub = reportsSub;
        }
    }

    /** Adds both streams' publications and subscriptions and waits (bounded) until both are connected. */
    public Streams streams(final long timeoutMs)
    {
        final ExclusivePublication ordersPub = publication(ORDERS_STREAM);
        final Subscription ordersSub = subscription(ORDERS_STREAM);
        final ExclusivePublication reportsPub = publication(REPORTS_STREAM);
        final Subscription reportsSub = subscription(REPORTS_STREAM);
        awaitConnected(ordersPub, timeoutMs);
        awaitConnected(reportsPub, timeoutMs);
        return new Streams(ordersPub, ordersSub, reportsPub, reportsSub);
    }

    /** Waits (bounded) until the publication has a subscriber. */
    public static void awaitConnected(final ExclusivePublication pub, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!pub.isConnected())
        {
            Bench.checkDeadline(deadline, "Aeron publication on stream " + pub.streamId() + " to connect");
            Thread.yield();
        }
    }

    /** offer with retry on back pressure; fails the run on a closed publication or after the deadline. */
    public static void offer(
        final ExclusivePublication pub, final DirectBuffer buf, final int len, final SpinThenYield idle,
        final long timeoutNs)
    {
        long deadline = 0;
        idle.reset();
        while (true)
        {
            final long r = pub.offer(buf, 0, len);
            if (r > 0)
            {
                return;
            }
            if (r == io.aeron.Publication.CLOSED || r == io.aeron.Publication.MAX_POSITION_EXCEEDED)
            {
                Bench.fail("Aeron publication on stream " + pub.streamId() + " failed: " + r);
            }
            if (deadline == 0)
            {
                deadline = System.nanoTime() + timeoutNs;
            }
            Bench.checkDeadline(deadline, "Aeron offer (back pressure) on stream ", pub.streamId());
            idle.idle();
        }
    }

    @Override
    public void close()
    {
        aeron.close();
        driver.close();
    }
}
