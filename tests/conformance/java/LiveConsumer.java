// A long-running push consumer for the consumer/offset conformance tests, on the real Apache RocketMQ
// Java client (org.apache.rocketmq:rocketmq-client, the version tests/peers/harness.py resolves).
//
//   LiveConsumer <namesrv> <topic> <group> [producerGroup]
//
// With a producer group, a producer of that group runs in the same client instance, so the consumer's
// heartbeats announce it to every broker of the topic's route at once.
// With LIVE_CLIENT_REBALANCE=false (5.x clients only) the consumer asks the broker which queues to read and
// how (QUERY_ASSIGNMENT): pulling, or popping when setConsumeMode chose POP.
// With LIVE_CLIENT_ALLOCATE=all the consumer takes every queue of the topic whatever the other consumers of
// its group do: two such consumers make the duplicate assignment consumerStatus's rebalance check reports.
//
// stdout: one JSON object per line:
//   {"event":"started","clientId":"..."}             once the consumer runs
//   {"event":"msg","msgId":...,"queueId":...,...}     for EVERY delivery (a message delivered again after
//                                                       an offset reset is printed again)
//   {"event":"suspended"} / {"event":"resumed"}        after the matching command
// stdin: one command per line: "suspend" (stop pulling, stay connected), "resume", "quit"; end of input
// is "quit". Offsets are committed every second (persistConsumerOffsetInterval).

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

public final class LiveConsumer {

    private LiveConsumer() {
    }

    private static String json(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static synchronized void emit(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: LiveConsumer <namesrv> <topic> <group> [producerGroup]");
            System.exit(64);
        }
        String pid = ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
        String instance = "live-" + pid + "-" + System.nanoTime();
        DefaultMQProducer producer = null;
        if (args.length == 4) {
            producer = new DefaultMQProducer(args[3]);
            producer.setNamesrvAddr(args[0]);
            producer.setInstanceName(instance);
            producer.setVipChannelEnabled(false);
            producer.setClientIP("127.0.0.1");
            producer.start();
        }
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        consumer.setInstanceName(instance);
        consumer.setVipChannelEnabled(false);
        consumer.setClientIP("127.0.0.1");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPersistConsumerOffsetInterval(1000);
        if ("false".equals(System.getenv("LIVE_CLIENT_REBALANCE"))) {  // a 5.x method: called by name
            consumer.getClass().getMethod("setClientRebalance", boolean.class).invoke(consumer, false);
        }
        if ("all".equals(System.getenv("LIVE_CLIENT_ALLOCATE"))) {
            consumer.setAllocateMessageQueueStrategy(new AllocateMessageQueueStrategy() {
                @Override
                public List<MessageQueue> allocate(String group, String clientId, List<MessageQueue> all,
                    List<String> clientIds) {
                    return all;
                }

                @Override
                public String getName() {
                    return "ALL";
                }
            });
        }
        consumer.subscribe(args[1], "*");
        consumer.registerMessageListener(new MessageListenerConcurrently() {
            @Override
            public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> msgs, ConsumeConcurrentlyContext ctx) {
                for (MessageExt m : msgs) {
                    emit("{\"event\":\"msg\",\"msgId\":" + json(m.getMsgId())
                        + ",\"topic\":" + json(m.getTopic())
                        + ",\"brokerName\":" + json(m.getBrokerName())
                        + ",\"queueId\":" + m.getQueueId()
                        + ",\"queueOffset\":" + m.getQueueOffset()
                        + ",\"storeTimestamp\":" + m.getStoreTimestamp()
                        + ",\"reconsumeTimes\":" + m.getReconsumeTimes()
                        + ",\"body\":" + json(new String(m.getBody(), StandardCharsets.UTF_8)) + "}");
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            }
        });
        consumer.start();
        emit("{\"event\":\"started\",\"clientId\":" + json(consumer.buildMQClientId()) + "}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals("quit")) {
            if (line.trim().equals("suspend")) {
                consumer.suspend();
                emit("{\"event\":\"suspended\"}");
            } else if (line.trim().equals("resume")) {
                consumer.resume();
                emit("{\"event\":\"resumed\"}");
            }
        }
        final DefaultMQProducer started = producer;
        Thread stop = new Thread(() -> {
            consumer.shutdown();
            if (started != null) {
                started.shutdown();
            }
        }, "live-shutdown");
        stop.setDaemon(true);
        stop.start();
        stop.join(5000);
        System.exit(0);
    }
}
