// Backlog producer and push-consumer drain for bench/bench_server.py's "drain" part (Apache
// rocketmq-client 4.9.8, remoting protocol).
//
// Usage:
//   DrainBench produce <namesrv> <topic> <count> <bodyBytes> <threads> <batch>
//       sends <count> messages as batches of <batch> (DefaultMQProducer.send(Collection), sync) from
//       <threads> threads sharing one producer: the batch-send rate, measured as a side result.
//   DrainBench drain <namesrv> <topic> <group> <count> <timeoutSec>
//       a DefaultMQPushConsumer (a new group, CONSUME_FROM_FIRST_OFFSET, default threads and pull
//       batch size) counts deliveries until <count> have arrived or <timeoutSec> has passed.
//
// stdout: JSON lines only. drain: {"event":"measuring"} right before the consumer starts,
// {"event":"measured"} when the count is reached (or the time is up), then {"event":"result",...}.
// produce: {"event":"measuring"} right before the first send, {"event":"measured"} when the last batch is
// acknowledged, then {"event":"result",...}. Exit 0, or 2 when the client could not start.

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;

public final class DrainBench {

    private DrainBench() {
    }

    static void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 7 && args[0].equals("produce")) {
            produce(args[1], args[2], Long.parseLong(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                Integer.parseInt(args[6]));
        } else if (args.length == 6 && args[0].equals("drain")) {
            drain(args[1], args[2], args[3], Long.parseLong(args[4]), Double.parseDouble(args[5]));
        } else {
            System.err.println("usage: DrainBench produce <namesrv> <topic> <count> <bodyBytes> <threads> <batch>"
                + " | drain <namesrv> <topic> <group> <count> <timeoutSec>");
            System.exit(64);
        }
        System.exit(0);
    }

    static void produce(String namesrv, String topic, long count, int bodyBytes, int threads, int batch)
        throws Exception {
        DefaultMQProducer p = new DefaultMQProducer("PG_DRAIN_BENCH");
        p.setNamesrvAddr(namesrv);
        p.setInstanceName("drain-bench-" + ProcessHandle.current().pid());
        p.setClientIP("127.0.0.1");
        p.setVipChannelEnabled(false);
        p.setSendMsgTimeout(30000);
        try {
            p.start();
        } catch (Exception e) {
            System.err.println("[drain-bench] producer start failed: " + e);
            System.exit(2);
        }
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'x');
        AtomicLong left = new AtomicLong(count);
        AtomicLong sent = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        emit("{\"event\":\"measuring\"}");
        long t0 = System.nanoTime();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                while (true) {
                    long n = Math.min(batch, left.getAndAdd(-batch));
                    if (n <= 0) {
                        return;
                    }
                    List<Message> msgs = new ArrayList<>((int) n);
                    for (int i = 0; i < n; i++) {
                        msgs.add(new Message(topic, "TagA", body));
                    }
                    try {
                        p.send(msgs);
                        sent.addAndGet(n);
                    } catch (Exception e) {
                        if (errors.incrementAndGet() == 1) {
                            System.err.println("[drain-bench] send failed: " + e);
                        }
                        left.addAndGet(n); // sent again by whoever comes next
                        if (errors.get() > 1000) {
                            return;
                        }
                    }
                }
            }, "drain-bench-produce-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        emit("{\"event\":\"measured\"}");
        p.shutdown();
        emit("{\"event\":\"result\",\"sent\":" + sent.get() + ",\"errors\":" + errors.get() + ",\"seconds\":"
            + String.format(Locale.ROOT, "%.2f", seconds) + ",\"msgsPerSec\":"
            + String.format(Locale.ROOT, "%.1f", sent.get() / seconds) + "}");
    }

    static void drain(String namesrv, String topic, String group, long count, double timeoutSec) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("drain-bench-" + ProcessHandle.current().pid());
        c.setClientIP("127.0.0.1");
        c.setVipChannelEnabled(false);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        AtomicLong received = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            if (received.addAndGet(msgs.size()) >= count) {
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        emit("{\"event\":\"measuring\"}");
        long t0 = System.nanoTime();
        try {
            c.start();
        } catch (Exception e) {
            System.err.println("[drain-bench] consumer start failed: " + e);
            System.exit(2);
        }
        boolean complete = done.await((long) (timeoutSec * 1000), TimeUnit.MILLISECONDS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        long got = received.get();
        emit("{\"event\":\"measured\"}");
        c.shutdown();
        emit("{\"event\":\"result\",\"received\":" + got + ",\"complete\":" + complete + ",\"seconds\":"
            + String.format(Locale.ROOT, "%.3f", seconds) + ",\"msgsPerSec\":"
            + String.format(Locale.ROOT, "%.1f", got / seconds) + "}");
    }
}
