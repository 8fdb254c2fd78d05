import java.lang.reflect.Method;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/** Prints one line per broker setting of Apache RocketMQ: key, type, whether UPDATE_BROKER_CONFIG can set it
 * (MixAll.properties2Object calls a setter only for these parameter types), and the default GET_BROKER_CONFIG
 * reports (MixAll.object2Properties; absent for a null default). Read by tests/realrmq/broker_config_table.py. */
public class BrokerConfigTable {
    private static final Set<String> SETTABLE =
        Set.of("int", "Integer", "long", "Long", "double", "Double", "boolean", "Boolean", "float", "Float", "String");

    public static void main(String[] args) {
        Object[] configs = {
            new org.apache.rocketmq.common.BrokerConfig(),
            new org.apache.rocketmq.remoting.netty.NettyServerConfig(),
            new org.apache.rocketmq.remoting.netty.NettyClientConfig(),
            new org.apache.rocketmq.store.config.MessageStoreConfig(),
        };
        Map<String, String> lines = new TreeMap<>();
        for (Object config : configs) {
            Properties reported = org.apache.rocketmq.common.MixAll.object2Properties(config);
            Map<String, String> types = new TreeMap<>();
            for (Method m : config.getClass().getMethods()) {
                String name = m.getName();
                if (name.startsWith("set") && name.length() > 3 && m.getParameterCount() == 1) {
                    String key = name.substring(3, 4).toLowerCase() + name.substring(4);
                    String type = m.getParameterTypes()[0].getSimpleName();
                    String before = types.getOrDefault(key, "-");
                    if (!SETTABLE.contains(before) || type.equals("String") && SETTABLE.contains(type)) {
                        types.put(key, type);  // of overloads, the one taking text takes any value an update sends
                    }
                }
            }
            for (String key : reported.stringPropertyNames()) {
                types.putIfAbsent(key, "-");
            }
            for (Map.Entry<String, String> e : types.entrySet()) {
                String key = e.getKey();
                String type = e.getValue();
                String value = reported.getProperty(key);
                if (value == null && !SETTABLE.contains(type)) {
                    continue;  // neither reported nor settable
                }
                String line = "CONFIG\t" + key + "\t" + type + "\t" + SETTABLE.contains(type) + "\t"
                    + (value == null ? "" : "=" + value);
                lines.putIfAbsent(key, line);
            }
        }
        lines.values().forEach(System.out::println);
    }
}
