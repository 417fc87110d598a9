package peregrine.peers.e2e;

import org.agrona.concurrent.IdleStrategy;

/**
 * The idle strategy of every thread in the trading-topology benchmark, for every engine:
 * poll without waiting {@code spins} times (with {@link Thread#onSpinWait()}), then
 * {@link Thread#yield()} between polls until work arrives. It never parks: a parked thread costs a
 * cross-core wake-up (~35 µs on these machines), while yield lets the other spinning threads of
 * a 2-core machine run. Same semantics and default (100 spins) as Peregrine's {@code SpinThenYield}.
 */
public final class SpinThenYield implements IdleStrategy
{
    public static final int DEFAULT_SPINS = 100;

    private final int maxSpins;
    private int spins;

    public SpinThenYield(final int maxSpins)
    {
        this.maxSpins = maxSpins;
    }

    public SpinThenYield()
    {
        this(DEFAULT_SPINS);
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            spins = 0;
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (spins < maxSpins)
        {
            spins++;
            Thread.onSpinWait();
        }
        else
        {
            Thread.yield();
        }
    }

    @Override
    public void reset()
    {
        spins = 0;
    }

    @Override
    public String alias()
    {
        return "spin-then-yield";
    }

    public String describe()
    {
        return "SpinThenYield(spins=" + maxSpins + ", then Thread.yield; never parks)";
    }
}
