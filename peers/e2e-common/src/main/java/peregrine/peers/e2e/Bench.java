package peregrine.peers.e2e;

import org.HdrHistogram.Histogram;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/** Arguments, bounded waits, the round-trip histogram and the one JSON line. */
public final class Bench
{
    public int warmup = 10_000;
    public int iters = 100_000;
    public int spins = SpinThenYield.DEFAULT_SPINS;
    public String threading = null; // engine default when null
    /** Idle strategy of the media driver's agents: "backoff" (Aeron's default) or "spin-yield". */
    public String driverIdle = "backoff";
    public long timeoutMs = 60_000;

    /** Warm-up plus measured round trips. */
    public int total()
    {
        return warmup + iters;
    }

    /** {@link #timeoutMs} in nanoseconds. */
    public long timeoutNs()
    {
        return timeoutMs * 1_000_000L;
    }

    public static Bench parse(final String[] args)
    {
        final Bench b = new Bench();
        for (int i = 0; i < args.length; i++)
        {
            final String a = args[i];
            final String v = (i + 1 < args.length) ? args[i + 1] : null;
            switch (a)
            {
                case "--warmup": b.warmup = Integer.parseInt(need(a, v)); i++; break;
                case "--iters": b.iters = Integer.parseInt(need(a, v)); i++; break;
                case "--spins": b.spins = Integer.parseInt(need(a, v)); i++; break;
                case "--threading": b.threading = need(a, v).toUpperCase(Locale.ROOT); i++; break;
                case "--driver-idle":
                    b.driverIdle = need(a, v);
                    i++;
                    if (!b.driverIdle.equals("backoff") && !b.driverIdle.equals("spin-yield"))
                    {
                        fail("--driver-idle is backoff or spin-yield");
                    }
                    break;
                case "--timeout-ms": b.timeoutMs = Long.parseLong(need(a, v)); i++; break;
                default:
                    // Unknown options (--dict PATH, --cases LIST, ...) are ignored with their value,
                    // so the common runner can call every harness the same way.
                    if (a.startsWith("--") && v != null && !v.startsWith("--"))
                    {
                        i++;
                    }
                    log("ignoring argument " + a);
            }
        }
        if (b.iters <= 0 || b.warmup < 0)
        {
            fail("--iters must be > 0 and --warmup >= 0");
        }
        return b;
    }

    private static String need(final String name, final String v)
    {
        if (v == null)
        {
            fail(name + " needs a value");
        }
        return v;
    }

    public static void log(final String msg)
    {
        System.err.println("[e2e] " + msg);
    }

    private static final java.util.List<String> CLEANUP = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Directories (Aeron, Artio logs) deleted, best effort, when the run fails. */
    public static void deleteOnFailure(final String dir)
    {
        CLEANUP.add(dir);
    }

    /** A harness's engine shutdown, which may throw. */
    @FunctionalInterface
    public interface Shutdown
    {
        void run() throws Exception;
    }

    /**
     * After the JSON line: shuts down within a bounded time. A slow or stuck engine shutdown
     * (the results are already out) only logs a warning, removes the directories and exits 0.
     */
    public static void finishAfterReport(final Shutdown shutdown)
    {
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                Thread.sleep(30_000);
                log("WARNING: engine shutdown still running after 30 s; exiting anyway");
                deleteDirs();
                Runtime.getRuntime().halt(0);
            }
            catch (final InterruptedException ignore)
            {
            }
        }, "shutdown-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        final long t0 = System.nanoTime();
        try
        {
            shutdown.run();
        }
        catch (final Throwable t)
        {
            log("WARNING: shutdown failed: " + t);
        }
        log("shut down in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        deleteDirs();
        Runtime.getRuntime().halt(0);
    }

    private static void deleteDirs()
    {
        for (final String dir : CLEANUP)
        {
            try
            {
                org.agrona.IoUtil.delete(new java.io.File(dir), true);
            }
            catch (final Throwable ignore)
            {
            }
        }
    }

    public static void fail(final String msg)
    {
        System.err.println("[e2e] ERROR: " + msg);
        System.err.flush();
        deleteDirs();
        Runtime.getRuntime().halt(1);
    }

    /** Fails the run (exit 1) once the deadline (System.nanoTime) has passed. */
    public static void checkDeadline(final long deadlineNs, final String what)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            fail("timed out waiting for " + what);
        }
    }

    /** As above, with a number appended to the message only on failure (no allocation while waiting). */
    public static void checkDeadline(final long deadlineNs, final String what, final long n)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            fail("timed out waiting for " + what + n);
        }
    }

    /** A free TCP port on the loopback address (the OS picks it; nothing listens on it yet). */
    public static int freeLoopbackPort() throws java.io.IOException
    {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    /**
     * After the run: fails it (exit 1) unless the venue, the gateway (both ways) and the executor
     * each saw every one of the {@code total} orders; otherwise says so, with the GC counts.
     */
    public static void checkCounts(
        final long venueFills, final long gatewayOrders, final long executorFilled, final long gatewayReports,
        final int total, final String gcAfter)
    {
        if (venueFills != total || executorFilled != total || gatewayOrders != total || gatewayReports != total)
        {
            fail("counts differ: venue fills " + venueFills + ", gateway orders " + gatewayOrders +
                ", executor fills " + executorFilled + ", gateway reports " + gatewayReports + ", expected " + total);
        }
        log("all " + total + " round trips completed, every ClOrdID echoed; GC so far: " + gcAfter);
    }

    public static Histogram newHistogram()
    {
        // 1 ns .. 100 s, 3 significant digits.
        return new Histogram(1, 100_000_000_000L, 3);
    }

    public static String jvmSettings()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("JDK ").append(System.getProperty("java.version")).append(", JVM args [");
        sb.append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        sb.append("], GC [");
        boolean first = true;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            sb.append(first ? "" : ", ").append(gc.getName());
            first = false;
        }
        sb.append(']');
        return sb.toString();
    }

    /** Bytes allocated so far by every live JVM thread (engine, driver and harness threads alike). */
    public static long allocatedBytesAllThreads()
    {
        final java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!(mx instanceof com.sun.management.ThreadMXBean))
        {
            return -1;
        }
        final com.sun.management.ThreadMXBean smx = (com.sun.management.ThreadMXBean)mx;
        long sum = 0;
        for (final long b : smx.getThreadAllocatedBytes(mx.getAllThreadIds()))
        {
            sum += Math.max(0, b);
        }
        return sum;
    }

    private static long[] snapIds = new long[0];
    private static long[] snapBytes = new long[0];

    /** Remembers every thread's allocated bytes, for {@link #logAllocationByThread}. */
    public static void snapshotAllocationByThread()
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        snapIds = mx.getAllThreadIds();
        snapBytes = mx.getThreadAllocatedBytes(snapIds);
    }

    /** Logs (stderr) the bytes per round trip each thread allocated since the snapshot. */
    public static void logAllocationByThread(final int iters)
    {
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long[] now = mx.getThreadAllocatedBytes(snapIds);
        final StringBuilder sb = new StringBuilder("allocation per round trip by thread:");
        for (int i = 0; i < snapIds.length; i++)
        {
            final long d = now[i] - snapBytes[i];
            if (d > iters / 10)
            {
                final java.lang.management.ThreadInfo info = mx.getThreadInfo(snapIds[i]);
                sb.append(String.format(Locale.ROOT, " [%s %.1f B]",
                    info == null ? "?" : info.getThreadName(), (double)d / iters));
            }
        }
        log(sb.toString());
    }

    public static String gcCounts()
    {
        long n = 0;
        long ms = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            n += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        return n + " collections, " + ms + " ms";
    }

    private static String us(final long ns)
    {
        return String.format(Locale.ROOT, "%.3f", ns / 1000.0);
    }

    private static String jsonEscape(final String s)
    {
        final StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20)
                    {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
            }
        }
        return sb.toString();
    }

    /** The single stdout line. {@code totalNs}: wall time of the measured loop. */
    public static void report(
        final String engine, final int iters, final int warmup, final Histogram h, final long totalNs,
        final long allocBytes, final String settings)
    {
        final double meanUs = totalNs / 1000.0 / iters;
        final double tput = iters * 1e9 / totalNs;
        final String line = "{\"engine\":\"" + engine + "\",\"case\":\"round_trip\",\"unit\":\"us\"" +
            ",\"iters\":" + iters +
            ",\"min\":" + us(h.getMinValue()) +
            ",\"p50\":" + us(h.getValueAtPercentile(50)) +
            ",\"mean\":" + String.format(Locale.ROOT, "%.3f", meanUs) +
            ",\"p90\":" + us(h.getValueAtPercentile(90)) +
            ",\"p99\":" + us(h.getValueAtPercentile(99)) +
            ",\"p999\":" + us(h.getValueAtPercentile(99.9)) +
            ",\"max\":" + us(h.getMaxValue()) +
            ",\"throughput_per_s\":" + Math.round(tput) +
            ",\"warmup\":" + warmup +
            ",\"jvm_alloc_bytes_per_op\":" + String.format(Locale.ROOT, "%.1f", (double)allocBytes / iters) +
            ",\"settings\":\"" + jsonEscape(settings) + "\"}";
        System.out.println(line);
        System.out.flush();
    }
}
