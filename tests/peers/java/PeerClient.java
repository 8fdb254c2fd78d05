// Peer client for conformance tests: drives the real Apache RocketMQ Java client
// (org.apache.rocketmq:rocketmq-client 4.9.8, remoting protocol) against a name server.
//
// Usage (see tests/peers/README.md; normally started through tests/peers/harness.py):
//   produce      <namesrv> <topic> <count>
//   produce-auto <namesrv> <topic> <count>    (topic need not exist: broker auto-creates it via TBW102)
//   consume      <namesrv> <topic> <group> <count> <timeoutSec>
//   <namesrv> "-": none, the client asks the address server (-Drocketmq.namesrv.domain)
//
// stdout carries only JSON lines, one per message.  Diagnostics go to stderr; the client's own
// log goes to files under -Drocketmq.client.logRoot (set by the harness).
//
// Optional environment (same contract for all peers; see harness.py):
//   PEER_BODY_PREFIX  body/key prefix for produce (default "peer-java-<pid>-<millis>")
//   PEER_TAGS         tag for produce (default "TagA")
//   PEER_GROUP        producer group for produce (default "PG_PEER_JAVA")

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.ReadOffsetType;
import org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

public final class PeerClient {

    private PeerClient() {
    }

    private static String pid() {
        String n = ManagementFactory.getRuntimeMXBean().getName();
        int at = n.indexOf('@');
        return at > 0 ? n.substring(0, at) : n;
    }

    private static String opt(String env, String dflt) {
        String v = System.getenv(env);
        return v == null || v.isEmpty() ? dflt : v;
    }

    /** PEER_TRACE=1: message trace on (to RMQ_SYS_TRACE_TOPIC, or PEER_TRACE_TOPIC). */
    private static boolean trace() {
        return "1".equals(opt("PEER_TRACE", "0"));
    }

    private static String instanceName(String role) {
        return "peer-java-" + role + "-" + pid() + "-" + System.nanoTime();
    }

    static String q(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2);
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    private static synchronized void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    private static void err(String msg) {
        System.err.println("[peer-java] " + msg);
        System.err.flush();
    }

    private static void usage() {
        err("usage: produce|produce-auto <namesrv> <topic> <count>\n"
            + "       consume <namesrv> <topic> <group> <count> <timeoutSec>");
        System.exit(64);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            usage();
        }
        String mode = args[0];
        int rc;
        if ((mode.equals("produce") || mode.equals("produce-auto")) && args.length == 4) {
            rc = produce(args[1], args[2], Integer.parseInt(args[3]));
        } else if (mode.equals("consume") && args.length == 6) {
            rc = consume(args[1], args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]));
        } else {
            usage();
            return;
        }
        // Client threads (netty, timers) are non-daemon in places: exit explicitly.
        System.exit(rc);
    }

    /** "-": no address, so the client asks the address server (-Drocketmq.namesrv.domain). */
    static void useNamesrv(org.apache.rocketmq.client.ClientConfig client, String namesrv) {
        // Route and other client API requests wait 3 s by default, and the first one of a JVM also loads and
        // compiles the classes that decode its answer: on a loaded 2-core CI machine a consumer's start once
        // failed on that timeout (IllegalStateException from updateTopicRouteInfoFromNameServer).
        client.setMqClientApiTimeout(15000);
        if (!namesrv.equals("-")) {
            client.setNamesrvAddr(namesrv);
        }
    }

    static int produce(String namesrv, String topic, int count) {
        String prefix = opt("PEER_BODY_PREFIX", "peer-java-" + pid() + "-" + System.currentTimeMillis());
        String tags = opt("PEER_TAGS", "TagA");
        DefaultMQProducer producer = trace()
            ? new DefaultMQProducer(opt("PEER_GROUP", "PG_PEER_JAVA"), true, opt("PEER_TRACE_TOPIC", null))
            : new DefaultMQProducer(opt("PEER_GROUP", "PG_PEER_JAVA"));
        useNamesrv(producer, namesrv);
        producer.setInstanceName(instanceName("p"));
        producer.setVipChannelEnabled(false);
        producer.setClientIP("127.0.0.1");
        producer.setSendMsgTimeout(10000);
        producer.setRetryTimesWhenSendFailed(2);
        int rc = 0;
        try {
            producer.start();
            for (int i = 0; i < count; i++) {
                String body = prefix + "-" + i;
                String keys = prefix + "-k" + i;
                Message msg = new Message(topic, tags, keys, body.getBytes(StandardCharsets.UTF_8));
                SendResult r;
                try {
                    r = producer.send(msg);
                } catch (Exception e) {
                    err("send #" + i + " failed: " + e);
                    rc = 2;
                    break;
                }
                emit("{\"msgId\":" + q(r.getMsgId())
                    + ",\"offsetMsgId\":" + q(r.getOffsetMsgId())
                    + ",\"queueId\":" + r.getMessageQueue().getQueueId()
                    + ",\"brokerName\":" + q(r.getMessageQueue().getBrokerName())
                    + ",\"queueOffset\":" + r.getQueueOffset()
                    + ",\"status\":" + q(r.getSendStatus().name())
                    + ",\"topic\":" + q(topic)
                    + ",\"body\":" + q(body)
                    + ",\"keys\":" + q(keys)
                    + ",\"tags\":" + q(tags) + "}");
                if (r.getSendStatus() != SendStatus.SEND_OK) {
                    err("send #" + i + " status " + r.getSendStatus());
                    rc = 3;
                }
            }
        } catch (Exception e) {
            err("producer failed: " + e);
            rc = 2;
        } finally {
            try {
                if (trace()) {
                    // The trace dispatcher sends in the background and its shutdown drops what is still
                    // queued (4.9.8 waits at most 500 ms): linger as a long-lived producer would.
                    Thread.sleep(2000);
                }
                producer.shutdown();
            } catch (Exception e) {
                err("producer shutdown: " + e);
            }
        }
        return rc;
    }

    static int consume(String namesrv, String topic, String group, int count, int timeoutSec) throws Exception {
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final CountDownLatch done = new CountDownLatch(count);
        // per queue, the offset after the last message received: what the group must have committed at the end
        final ConcurrentHashMap<MessageQueue, Long> ends = new ConcurrentHashMap<>();
        DefaultMQPushConsumer consumer = trace()
            ? new DefaultMQPushConsumer(group, true, opt("PEER_TRACE_TOPIC", null))
            : new DefaultMQPushConsumer(group);
        // PEER_FAIL=1: every delivery fails (RECONSUME_LATER) and is reported, so the broker retries the
        // message through its delay levels and, after PEER_MAX_RECONSUME retries, dead-letters it; count
        // is then the number of deliveries to wait for. Shutdown waits for the last send-back.
        final boolean fail = "1".equals(opt("PEER_FAIL", "0"));
        if (!opt("PEER_MAX_RECONSUME", "").isEmpty()) {
            consumer.setMaxReconsumeTimes(Integer.parseInt(opt("PEER_MAX_RECONSUME", "")));
        }
        // The listener counts a message before it returns and its offset moves: shutdown waits for the
        // running listeners, so the offsets it persists include the last message (and, with PEER_FAIL,
        // the last send-back).
        consumer.setAwaitTerminationMillisWhenShutdown(4000);
        useNamesrv(consumer, namesrv);
        consumer.setInstanceName(instanceName("c"));
        consumer.setVipChannelEnabled(false);
        consumer.setClientIP("127.0.0.1");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener(new MessageListenerConcurrently() {
            @Override
            public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext ctx) {
                for (MessageExt m : msgs) {
                    String id = m.getMsgId();
                    if (!seen.add(fail ? id + "#" + m.getReconsumeTimes() : id)) {
                        continue;
                    }
                    emit("{\"msgId\":" + q(id)
                        + ",\"offsetMsgId\":" + q(m instanceof MessageClientExt ? ((MessageClientExt) m).getOffsetMsgId() : null)
                        + ",\"queueId\":" + m.getQueueId()
                        + ",\"brokerName\":" + q(m.getBrokerName())
                        + ",\"queueOffset\":" + m.getQueueOffset()
                        + ",\"topic\":" + q(m.getTopic())
                        + ",\"body\":" + q(new String(m.getBody(), StandardCharsets.UTF_8))
                        + ",\"keys\":" + q(m.getKeys())
                        + ",\"tags\":" + q(m.getTags())
                        + ",\"reconsumeTimes\":" + m.getReconsumeTimes() + "}");
                    ends.merge(new MessageQueue(m.getTopic(), m.getBrokerName(), m.getQueueId()),
                        m.getQueueOffset() + 1, Math::max);
                    done.countDown();
                }
                return fail ? ConsumeConcurrentlyStatus.RECONSUME_LATER : ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }
        });
        int rc;
        try {
            consumer.start();
            if (done.await(timeoutSec, TimeUnit.SECONDS)) {
                rc = 0;
            } else {
                err("timeout after " + timeoutSec + "s: received " + seen.size() + " of " + count);
                rc = 4;
            }
        } catch (Exception e) {
            err("consumer failed: " + e);
            rc = 2;
        }
        if (trace()) {
            Thread.sleep(2000); // the consumption's trace is sent after the listener returns (see produce)
        }
        if (rc == 0 && !fail) {
            rc = commitEnds(consumer, ends);
        }
        // Shutdown persists offsets and unregisters; bound it so a sick broker cannot hang us.
        Thread t = new Thread(consumer::shutdown, "peer-shutdown");
        t.setDaemon(true);
        t.start();
        t.join(fail ? 9000 : 5000);
        return rc;
    }

    /** Commits each queue's end offset with a request that waits for the broker's answer, once the consumer's own
     *  offset table has reached it (the listener counts a message before it returns and its offset moves).
     *  Shutdown persists offsets too, but with oneway requests sent as the connection closes, which a broker
     *  under load may never read: a group's lag then stays at 1 for a message that was consumed. */
    static int commitEnds(DefaultMQPushConsumer consumer, Map<MessageQueue, Long> ends) throws InterruptedException {
        OffsetStore store = consumer.getOffsetStore();
        long deadline = System.currentTimeMillis() + 30_000;
        for (Map.Entry<MessageQueue, Long> e : ends.entrySet()) {
            while (store.readOffset(e.getKey(), ReadOffsetType.READ_FROM_MEMORY) < e.getValue()) {
                if (System.currentTimeMillis() > deadline) {
                    err("the consumer's offset of " + e.getKey() + " never reached " + e.getValue());
                    return 5;
                }
                Thread.sleep(20);
            }
            try {
                ((RemoteBrokerOffsetStore) store).updateConsumeOffsetToBroker(e.getKey(), e.getValue(), false);
            } catch (Exception ex) {
                err("committing " + e.getKey() + " at " + e.getValue() + " failed: " + ex);
                return 5;
            }
        }
        return 0;
    }
}
