package statbucket;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;

/**
 * Runs mongo-java-server as a child process of statbucket (DESIGN.md §6).
 *
 * Args: [--port N] (default 0 = any free port) [--host H] (default 127.0.0.1)
 *       [--h2 FILE] (persistent H2 MVStore file; in-memory backend otherwise)
 *       [--exit-on-stdin-close] (shut down when the parent's stdin pipe closes,
 *       so a parent that dies without cleaning up leaves no orphan JVM).
 *
 * Protocol with the parent: after binding, exactly one line "LISTENING <port>"
 * on stdout; everything else (logs, errors) goes to stderr. SIGTERM closes the
 * server, which also closes (and so commits) the H2 store.
 */
public final class MongoJavaServerLauncher {

    public static void main(String[] args) throws InterruptedException {
        // slf4j-simple reads these on first use; keep stdout for the protocol line.
        setDefault("org.slf4j.simpleLogger.logFile", "System.err");
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", "info");
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");

        int port = 0;
        String host = "127.0.0.1";
        String h2File = null;
        boolean exitOnStdinClose = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--exit-on-stdin-close")) {
                exitOnStdinClose = true;
                continue;
            }
            if (i + 1 >= args.length) {
                fail("missing value for " + a);
            }
            switch (a) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--host" -> host = args[++i];
                case "--h2" -> h2File = args[++i];
                default -> fail("unknown argument " + a);
            }
        }

        MongoBackend backend;
        if (h2File != null) {
            File parent = new File(h2File).getAbsoluteFile().getParentFile();
            if (parent != null) {
                parent.mkdirs();
            }
            backend = new H2Backend(h2File);
        } else {
            backend = new MemoryBackend();
        }

        MongoServer server = new MongoServer(backend);
        try {
            server.bind(host, port);
        } catch (RuntimeException e) {
            backend.close(); // release the H2 file lock before exiting
            fail("cannot bind " + host + ":" + port + ": " + e);
        }

        // Runs on SIGTERM/SIGINT and normal exit; shutdown() also closes the backend.
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown, "mongo-java-server-shutdown"));

        PrintStream out = System.out;
        out.println("LISTENING " + server.getLocalAddress().getPort());
        out.flush();

        if (exitOnStdinClose) {
            Thread watchdog = new Thread(() -> {
                try {
                    while (System.in.read() != -1) {
                        // the parent never writes; anything it does is ignored
                    }
                } catch (IOException ignored) {
                    // a broken pipe means the parent is gone too
                }
                System.err.println("mongo-java-server-launcher: stdin closed, shutting down");
                System.exit(0); // runs the shutdown hook
            }, "stdin-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }

        // Netty's threads may be daemons; keep the JVM up until it is signalled.
        Thread.currentThread().join();
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static void fail(String message) {
        System.err.println("mongo-java-server-launcher: " + message);
        System.exit(2);
    }
}
