// Synchronous-send load generator for bench/bench_server.py: N threads of one JVM, each with its
// own DefaultMQProducer (Apache rocketmq-client 4.9.8, remoting protocol), sending fixed-size
// messages with producer.send(msg) (sync) to one topic for a warm-up and then a measured window.
//
// Usage: SendBench <namesrv> <topic> <threads> <warmupSec> <durationSec> <bodyBytes> <shared|per-thread>
//   shared      one producer (one client instance, one connection per broker) used by every thread
//   per-thread  one producer per thread (own client instance and connection)
//
// stdout: JSON lines only: {"event":"measuring"} when the warm-up ends, {"event":"measured"} when
// the window closes, then {"event":"result",...}. Counts and latencies cover sends that started
// and finished inside the window. Exit 0, or 2 when the producers could not start.

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

public final class SendBench {

    private SendBench() {
    }

    /** Latencies in microseconds, grown as needed (one per thread, no sharing). */
    static final class Samples {
        long[] v = new long[1 << 16];
        int n;

        void add(long micros) {
            if (n == v.length) {
                v = Arrays.copyOf(v, n * 2);
            }
            v[n++] = micros;
        }
    }

    static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    static void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    static DefaultMQProducer producer(String namesrv, int index) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("PG_SEND_BENCH");
        p.setNamesrvAddr(namesrv);
        p.setInstanceName("send-bench-" + ProcessHandle.current().pid() + "-" + index);
        p.setClientIP("127.0.0.1");
        p.setVipChannelEnabled(false);
        p.setSendMsgTimeout(10000);
        p.start();
        return p;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: SendBench <namesrv> <topic> <threads> <warmupSec> <durationSec> <bodyBytes> "
                + "<shared|per-thread>");
            System.exit(64);
        }
        String namesrv = args[0];
        String topic = args[1];
        int threads = Integer.parseInt(args[2]);
        long warmupNs = (long) (Double.parseDouble(args[3]) * 1e9);
        long durationNs = (long) (Double.parseDouble(args[4]) * 1e9);
        byte[] body = new byte[Integer.parseInt(args[5])];
        Arrays.fill(body, (byte) 'x');
        boolean shared = args[6].equals("shared");

        DefaultMQProducer[] producers = new DefaultMQProducer[shared ? 1 : threads];
        try {
            for (int i = 0; i < producers.length; i++) {
                producers[i] = producer(namesrv, i);
            }
        } catch (Exception e) {
            System.err.println("[send-bench] producer start failed: " + e);
            System.exit(2);
        }

        Samples[] samples = new Samples[threads];
        AtomicLong errors = new AtomicLong();
        AtomicLong warmupSends = new AtomicLong();
        String[] firstError = new String[1];
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            final DefaultMQProducer p = producers[shared ? 0 : t];
            samples[t] = new Samples();
            workers[t] = new Thread(() -> {
                Samples s = samples[id];
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long begin = window[0];
                long end = window[1];
                while (true) {
                    long t0 = System.nanoTime();
                    if (t0 >= end) {
                        break;
                    }
                    Message msg = new Message(topic, "TagA", body);
                    boolean ok;
                    try {
                        SendResult r = p.send(msg);
                        ok = r.getSendStatus() == SendStatus.SEND_OK;
                        if (!ok) {
                            synchronized (firstError) {
                                if (firstError[0] == null) {
                                    firstError[0] = r.getSendStatus().toString();
                                }
                            }
                        }
                    } catch (Exception e) {
                        ok = false;
                        synchronized (firstError) {
                            if (firstError[0] == null) {
                                firstError[0] = e.toString();
                            }
                        }
                    }
                    long t1 = System.nanoTime();
                    if (!ok) {
                        errors.incrementAndGet();
                    } else if (t0 >= begin && t1 <= end) {
                        s.add((t1 - t0) / 1000);
                    } else if (t1 < begin) {
                        warmupSends.incrementAndGet();
                    }
                }
            }, "send-bench-" + t);
            workers[t].start();
        }

        long start = System.nanoTime();
        window[0] = start + warmupNs;
        window[1] = window[0] + durationNs;
        go.countDown();
        sleepUntil(window[0]);
        long cpu0 = cpuNanos();
        emit("{\"event\":\"measuring\"}");
        sleepUntil(window[1]);
        long cpu1 = cpuNanos();
        emit("{\"event\":\"measured\"}");
        for (Thread w : workers) {
            w.join(60000);
        }

        int total = 0;
        for (Samples s : samples) {
            total += s.n;
        }
        long[] all = new long[total];
        int pos = 0;
        for (Samples s : samples) {
            System.arraycopy(s.v, 0, all, pos, s.n);
            pos += s.n;
        }
        Arrays.sort(all);
        double seconds = durationNs / 1e9;
        String err = firstError[0] == null ? "null" : quote(firstError[0]);
        emit("{\"event\":\"result\",\"threads\":" + threads + ",\"producers\":" + producers.length
            + ",\"bodyBytes\":" + body.length + ",\"seconds\":" + seconds + ",\"sent\":" + total
            + ",\"warmupSent\":" + warmupSends.get() + ",\"errors\":" + errors.get()
            + ",\"msgsPerSec\":" + String.format(Locale.ROOT, "%.1f", total / seconds)
            + ",\"p50Ms\":" + ms(pct(all, 0.50)) + ",\"p90Ms\":" + ms(pct(all, 0.90))
            + ",\"p99Ms\":" + ms(pct(all, 0.99)) + ",\"p999Ms\":" + ms(pct(all, 0.999))
            + ",\"maxMs\":" + ms(total == 0 ? -1 : all[total - 1])
            + ",\"clientCpuSec\":" + (cpu0 < 0 ? -1 : String.format(Locale.ROOT, "%.3f", (cpu1 - cpu0) / 1e9))
            + ",\"firstError\":" + err + "}");
        for (DefaultMQProducer p : producers) {
            p.shutdown();
        }
        System.exit(0);
    }

    static void sleepUntil(long deadline) throws InterruptedException {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }

    static long pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    static String ms(long micros) {
        return micros < 0 ? "null" : String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(' ');
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
