package peregrine.peers.e2e;

import org.HdrHistogram.Histogram;

/**
 * The measured phase of a run, one order in flight: the round trips after the warm-up go into the
 * histogram; the wall time and what every JVM thread allocated are counted from the first measured
 * round trip to {@link #end}.
 */
public final class Measurement
{
    private final int warmup;
    private final int iters;
    /** Round trips (ns) of the measured phase. */
    public final Histogram histogram = Bench.newHistogram();
    private long allocStart = Bench.allocatedBytesAllThreads();
    private long start = System.nanoTime();
    /** Wall time of the measured phase (ns), once {@link #end} has run. */
    public long totalNs;
    /** Bytes allocated by every JVM thread during the measured phase, once {@link #end} has run. */
    public long allocBytes;
    /** The GC counts at the end. */
    public String gcAfter;

    public Measurement(final Bench b)
    {
        warmup = b.warmup;
        iters = b.iters;
    }

    /** Before round trip {@code i} (from 0): the first measured one starts the clock and the allocation count. */
    public void before(final int i)
    {
        if (i == warmup)
        {
            Bench.log("warm-up done (" + Bench.gcCounts() + "); measuring " + iters);
            Bench.snapshotAllocationByThread();
            allocStart = Bench.allocatedBytesAllThreads();
            start = System.nanoTime();
        }
    }

    /** After round trip {@code i}: its time (ns) is recorded if it was measured. */
    public void after(final int i, final long roundTripNs)
    {
        if (i >= warmup)
        {
            histogram.recordValue(roundTripNs);
        }
    }

    /** After the last round trip: the wall time, the allocations (also logged thread by thread), the GC counts. */
    public void end()
    {
        totalNs = System.nanoTime() - start;
        allocBytes = Bench.allocatedBytesAllThreads() - allocStart;
        Bench.logAllocationByThread(iters);
        gcAfter = Bench.gcCounts();
    }
}
