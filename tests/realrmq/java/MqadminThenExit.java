// Runs Java mqadmin (MQAdminStartup) and exits as soon as its command has returned. Without this the JVM
// stays up after every command until the Netty client's event loops end their 2-s graceful-shutdown quiet
// period; the conformance suite runs Java mqadmin hundreds of times. A command that exits by itself
// (System.exit on bad arguments) still does; an exception still ends the run as it did.

import java.lang.reflect.InvocationTargetException;

public final class MqadminThenExit {

    private MqadminThenExit() {
    }

    public static void main(String[] args) throws Throwable {
        try {
            Class.forName("org.apache.rocketmq.tools.command.MQAdminStartup")
                .getMethod("main", String[].class)
                .invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        System.out.flush();
        System.err.flush();
        System.exit(0);
    }
}
