// LeaderLatchClient is one candidate of a reality trial (package reality,
// docs/reality.md): an application that elects itself leader with the real
// Apache Curator LeaderLatch (Debian's libcurator-recipes-java 5.4) over a
// real ZooKeeper session, the way electsim's zookeeper model follows it
// (docs/algorithms/zookeeper.md, curator_version 5.4). It reports what it
// sees on its standard output, one line per report, stamped with the
// machine's monotonic clock (System.nanoTime is CLOCK_MONOTONIC on Linux,
// the clock the harness and the Go clients read):
//
//	<CLOCK_MONOTONIC ns> acquired|lost|acting
//
// acquired when LeaderLatchListener.isLeader runs, lost when notLeader runs,
// acting once every session timeout / 3 while hasLeadership() says true.
// The harness compiles it with javac against the Debian jars at test time.
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.PrintStream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionStateErrorPolicy;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class LeaderLatchClient {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true);

    // report writes one line at once: the harness reads lines as they come.
    private static synchronized void report(String what) {
        OUT.println(System.nanoTime() + " " + what);
        OUT.flush();
    }

    public static void main(String[] args) throws Exception {
        String connect = null, policy = "standard", id = "";
        int sessionMs = 60000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "-connect": connect = args[i + 1]; break;
                case "-session-timeout-ms": sessionMs = Integer.parseInt(args[i + 1]); break;
                case "-policy": policy = args[i + 1]; break;
                case "-id": id = args[i + 1]; break;
                default:
                    System.err.println("curator-client: unknown flag " + args[i]);
                    System.exit(2);
            }
        }
        if (connect == null) {
            System.err.println("curator-client: -connect is required");
            System.exit(2);
        }
        ConnectionStateErrorPolicy errorPolicy = policy.equals("session")
                ? new SessionConnectionStateErrorPolicy() : new StandardConnectionStateErrorPolicy();
        // Curator's README retry policy; the session timeout as the model's
        // session_timeout; everything else at Curator's defaults.
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionMs)
                .retryPolicy(new ExponentialBackoffRetry(1000, 3))
                .connectionStateErrorPolicy(errorPolicy)
                .build();
        client.start();
        LeaderLatch latch = new LeaderLatch(client, "/leader", id);
        latch.addListener(new LeaderLatchListener() {
            @Override public void isLeader() { report("acquired"); }
            @Override public void notLeader() { report("lost"); }
        });
        latch.start();
        long periodMs = Math.max(1, sessionMs / 3);
        while (true) {
            Thread.sleep(periodMs);
            if (latch.hasLeadership()) {
                report("acting");
            }
        }
    }
}
