package peregrine.peers;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Shared support of the QuickFIX/J peer harnesses: argument parsing, the timing method,
 * statistics and JSON output. Same method as the C++ harnesses and our Rust side:
 *
 * <ul>
 *   <li>warm-up: {@code warmup} untimed operations (discarded; JIT warm-up);
 *   <li>mean: one batch of {@code iters} operations timed as a whole, wall time / iters;
 *   <li>latency: a second loop of {@code iters} operations each timed with System.nanoTime,
 *       minus the calibrated median cost of an empty nanoTime pair (clamped at 0);
 *       min/p50/p90/p99/p99.9/max from the sorted, preallocated sample array (nearest rank:
 *       value at index ceil(q*n)-1);
 *   <li>throughput_per_s = 1e9 / mean.
 * </ul>
 */
final class Harness {
  private Harness() {}

  /** One timed operation. */
  interface Op {
    void run() throws Exception;
  }

  static final char SOH = '\u0001';

  /** Folded results of every operation; printed to stderr at exit so nothing is dead code. */
  static long sink;

  static void sink(long v) {
    sink = sink * 31 + v;
  }

  static void sink(String s) {
    sink = sink * 31 + s.length() + (s.isEmpty() ? 0 : s.charAt(0));
  }

  static final class Args {
    List<String> cases = new ArrayList<>();
    long iters;
    long warmup;
    String dict;
  }

  static Args parse(String[] argv, List<String> all, long defIters, long defWarmup, String prog) {
    Args a = new Args();
    a.iters = defIters;
    a.warmup = defWarmup;
    for (int i = 0; i < argv.length; i++) {
      String k = argv[i];
      if (k.equals("--help") || k.equals("-h")) {
        usage(prog, all);
        System.exit(0);
      }
      if (i + 1 >= argv.length) {
        System.err.println("missing value for " + k);
        usage(prog, all);
        System.exit(2);
      }
      String v = argv[++i];
      switch (k) {
        case "--cases":
          for (String c : v.split(",")) {
            if (!c.isEmpty()) a.cases.add(c);
          }
          break;
        case "--iters":
          a.iters = Long.parseLong(v);
          break;
        case "--warmup":
          a.warmup = Long.parseLong(v);
          break;
        case "--dict":
          a.dict = v;
          break;
        default:
          System.err.println("unknown argument " + k);
          usage(prog, all);
          System.exit(2);
      }
    }
    if (a.cases.isEmpty()) a.cases.addAll(all);
    for (String c : a.cases) {
      if (!all.contains(c)) {
        System.err.println("unknown case " + c);
        usage(prog, all);
        System.exit(2);
      }
    }
    if (a.dict == null) {
      System.err.println("--dict PATH (FIX44.xml) is required");
      usage(prog, all);
      System.exit(2);
    }
    if (a.iters < 1) a.iters = 1;
    if (a.iters > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("iters too large");
    return a;
  }

  static void usage(String prog, List<String> all) {
    System.err.println("usage: java -cp ... " + prog
        + " --dict PATH/FIX44.xml [--cases a,b,c] [--iters N] [--warmup N]");
    System.err.println("cases: " + String.join(" ", all));
  }

  /** Median cost of an empty System.nanoTime pair, in ns (also warms nanoTime itself). */
  static long calibrateTimerOverhead() {
    int n = 200_000;
    long[] s = new long[n];
    for (int r = 0; r < 3; r++) {
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        long t1 = System.nanoTime();
        s[i] = t1 - t0;
      }
    }
    Arrays.sort(s);
    return s[n / 2];
  }

  static final class Result {
    double mean;
    long min, p50, p90, p99, p999, max;
  }

  static long pct(long[] sorted, int n, double q) {
    long idx = (long) Math.ceil(q * n);
    if (idx < 1) idx = 1;
    if (idx > n) idx = n;
    return sorted[(int) idx - 1];
  }

  /** Warm-up, timed batch, per-operation loop; {@code samples} is preallocated by the caller. */
  static Result measure(Op op, long warmup, long iters, long overhead, long[] samples)
      throws Exception {
    for (long i = 0; i < warmup; i++) op.run();
    Result r = new Result();
    long t0 = System.nanoTime();
    for (long i = 0; i < iters; i++) op.run();
    long t1 = System.nanoTime();
    r.mean = (double) (t1 - t0) / (double) iters;
    int n = (int) iters;
    for (int i = 0; i < n; i++) {
      long a = System.nanoTime();
      op.run();
      long b = System.nanoTime();
      long d = (b - a) - overhead;
      samples[i] = d < 0 ? 0 : d;
    }
    Arrays.sort(samples, 0, n);
    r.min = samples[0];
    r.p50 = pct(samples, n, 0.50);
    r.p90 = pct(samples, n, 0.90);
    r.p99 = pct(samples, n, 0.99);
    r.p999 = pct(samples, n, 0.999);
    r.max = samples[n - 1];
    return r;
  }

  /** A case to run: the timed operation and the settings it is reported with. */
  static final class Case {
    final Op op;
    final String settings;

    Case(Op op, String settings) {
      this.op = op;
      this.settings = settings;
    }
  }

  /** The case of each name the harness was asked for. */
  interface Cases {
    Case of(String name) throws Exception;
  }

  /**
   * Runs the selected cases in turn: calibrates the timer, measures each case (see
   * {@link #measure}) and prints its JSON line with {@code settings + common}; the sink last.
   */
  static void runCases(String engine, Args args, String common, Cases cases) throws Exception {
    final long overhead = calibrateTimerOverhead();
    System.err.println("timer overhead (median empty nanoTime pair): " + overhead + " ns");
    final long[] samples = new long[(int) args.iters];
    for (String c : args.cases) {
      System.err.println("running " + c + ": warmup " + args.warmup + ", iters " + args.iters);
      Case k = cases.of(c);
      Result r = measure(k.op, args.warmup, args.iters, overhead, samples);
      printJson(engine, c, args.iters, args.warmup, overhead, r, k.settings + common);
    }
    System.err.println("sink: " + sink);
  }

  static String jvmSettings() {
    return "JVM " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
        + " args " + ManagementFactory.getRuntimeMXBean().getInputArguments()
        + ", GC " + gcNames()
        + ", System.nanoTime per-op timing";
  }

  private static String gcNames() {
    StringBuilder sb = new StringBuilder();
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (sb.length() > 0) sb.append('+');
      sb.append(gc.getName());
    }
    return sb.toString();
  }

  static String jsonEscape(String s) {
    StringBuilder o = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': o.append("\\\""); break;
        case '\\': o.append("\\\\"); break;
        case '\n': o.append("\\n"); break;
        case '\t': o.append("\\t"); break;
        default:
          if (c < 0x20) o.append(String.format("\\u%04x", (int) c));
          else o.append(c);
      }
    }
    return o.toString();
  }

  static void printJson(String engine, String caseName, long iters, long warmup, long overhead,
      Result r, String settings) {
    String line = String.format(java.util.Locale.ROOT,
        "{\"engine\":\"%s\",\"case\":\"%s\",\"iters\":%d,\"mean\":%.1f,\"min\":%d,\"p50\":%d,"
            + "\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d,\"throughput_per_s\":%.0f,"
            + "\"warmup\":%d,\"timer_overhead_ns\":%d,\"settings\":\"%s\"}",
        engine, caseName, iters, r.mean, r.min, r.p50, r.p90, r.p99, r.p999, r.max,
        r.mean > 0 ? 1e9 / r.mean : 0.0, warmup, overhead, jsonEscape(settings));
    System.out.println(line);
    System.out.flush();
  }

  // ---- FIX helpers (harness side, run once at startup) ------------------------------------

  /** Frames "35=..|..." body fields ('|' = SOH) with BodyLength(9) and CheckSum(10). */
  static String frame(String begin, String bodyPipes) {
    String body = bodyPipes.replace('|', SOH);
    String m = "8=" + begin + SOH + "9=" + body.length() + SOH + body;
    int sum = 0;
    for (byte b : m.getBytes(StandardCharsets.ISO_8859_1)) sum += b & 0xff;
    return m + "10=" + String.format("%03d", sum % 256) + SOH;
  }

  static String pipes(String s) {
    return s.replace(SOH, '|');
  }

  /**
   * Same bytes, or the same field set with 8/9/35 leading and 10 last (an engine that imposes
   * its own field order); prints both to stderr when the order differs.
   */
  static boolean sameMessage(String produced, String reference, String what) {
    if (produced.equals(reference)) return true;
    String[] a = produced.split(String.valueOf(SOH));
    String[] b = reference.split(String.valueOf(SOH));
    boolean ok = a.length == b.length && a.length >= 4 && a[0].equals(b[0]) && a[1].equals(b[1])
        && a[2].equals(b[2]) && a[a.length - 1].equals(b[b.length - 1]);
    Arrays.sort(a);
    Arrays.sort(b);
    ok = ok && Arrays.equals(a, b);
    System.err.println("[" + what + "] engine field order differs from the reference:\n  produced:  "
        + pipes(produced) + "\n  reference: " + pipes(reference) + "\n  same field set: "
        + (ok ? "yes" : "NO"));
    return ok;
  }

  static void fail(String why) {
    System.err.println("FATAL: " + why);
    System.exit(1);
  }
}
