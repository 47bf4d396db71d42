package reality

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// zkJars are the Debian jars the ZooKeeper server and the Curator client
// run from (each jar's manifest Class-Path names the rest: guava,
// zookeeper-jute, netty, …), by the Debian package that ships each.
var zkJars = []struct{ path, pkg string }{
	{"/usr/share/java/zookeeper.jar", "zookeeper"},
	{"/usr/share/java/curator-recipes.jar", "libcurator-recipes-java"},
	{"/usr/share/java/slf4j-nop.jar", "libslf4j-java"},
}

// curatorClientSource is the Java client (reality/cmd/curator-client), built
// with javac against the jars when a check starts.
//
//go:embed cmd/curator-client/LeaderLatchClient.java
var curatorClientSource []byte

// zkAdapter runs standalone ZooKeeper servers (Debian's zookeeper, 3.8) and
// the Curator LeaderLatch client (Debian's libcurator-recipes-java, 5.4),
// compiled from curatorClientSource with the machine's JDK.
type zkAdapter struct{}

func (zkAdapter) Package() string { return "zookeeper" }

// Binary is the JVM: ZooKeeper has no executable of its own (Debian's
// scripts start java on its jar).
func (zkAdapter) Binary() string { return "java" }

// Client names the Java client's source; BuildClient builds it.
func (zkAdapter) Client() string { return "reality/cmd/curator-client/LeaderLatchClient.java" }

// Missing names the first real part not installed: the JDK's javac, then
// each jar by its Debian package.
func (zkAdapter) Missing() *MissingError {
	if _, err := exec.LookPath("javac"); err != nil {
		return &MissingError{Binary: "javac", Package: "openjdk-17-jdk-headless"}
	}
	for _, j := range zkJars {
		if _, err := os.Stat(j.path); err != nil {
			return &MissingError{Binary: j.path, Package: j.pkg}
		}
	}
	return nil
}

// BuildClient compiles the client next to bin and writes bin, a script
// that execs the JVM on it: the JVM replaces the shell, so the harness's
// SIGSTOP and SIGKILL reach the JVM itself.
func (zkAdapter) BuildClient(ctx context.Context, bin string) error {
	dir := bin + ".classes"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(dir, "LeaderLatchClient.java")
	if err := os.WriteFile(src, curatorClientSource, 0o644); err != nil {
		return err
	}
	cp := "/usr/share/java/curator-recipes.jar"
	if out, err := exec.CommandContext(ctx, "javac", "-cp", cp, "-d", dir, src).CombinedOutput(); err != nil {
		return fmt.Errorf("compiling the Curator client with javac: %v\n%s", err, out)
	}
	// A small serial-GC JVM: three clients and a server share two cores.
	script := fmt.Sprintf("#!/bin/sh\nexec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx128m -cp '%s:%s:/usr/share/java/slf4j-nop.jar' LeaderLatchClient \"$@\"\n", dir, cp)
	return os.WriteFile(bin, []byte(script), 0o755)
}

// MaxParallelTrials is 2: a trial runs four JVMs (the server and three
// clients), and with three trials at once on a two-core machine loaded by
// other work the JVMs lagged: the successor led 0.6 s later on average
// than on a quieter machine (docs/reality.md, zk-gc-pause), which is the
// machine's measure, not ZooKeeper's.
func (zkAdapter) MaxParallelTrials() int { return 2 }

// StartServers starts a standalone server per server asked for (the
// stories use one: the model's ensemble is one logical service node), with
// the story's tickTime.
func (zkAdapter) StartServers(g *Group, dir string, st *Story) ([]string, error) {
	var addrs []string
	for i := range st.Stores {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("zookeeper%d", i+1)
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(sub, "data"), 0o755); err != nil {
			return nil, err
		}
		cfg := fmt.Sprintf("tickTime=%d\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=ruok\n",
			st.TickTime.Milliseconds(), filepath.Join(sub, "data"), port)
		if err := os.WriteFile(filepath.Join(sub, "zoo.cfg"), []byte(cfg), 0o644); err != nil {
			return nil, err
		}
		logf, err := os.Create(filepath.Join(sub, "zookeeper.log"))
		if err != nil {
			return nil, err
		}
		argv := []string{"java", "-XX:+UseSerialGC", "-Xmx256m", "-cp", "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-nop.jar",
			"org.apache.zookeeper.server.ZooKeeperServerMain", filepath.Join(sub, "zoo.cfg")}
		p, err := g.Start(name, sub, argv, logf, logf)
		if err != nil {
			logf.Close()
			return nil, err
		}
		go func() { <-p.Done(); logf.Close() }()
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if err := waitZK(p, addr); err != nil {
			return nil, err
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// waitZK waits until the server answers ruok with imok (at most 30 s: a
// JVM starts slowly on a busy machine).
func waitZK(p *Proc, addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before answering: %v", p.Name, err)
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, werr := c.Write([]byte("ruok"))
			line, rerr := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if werr == nil && (rerr == nil || line != "") && strings.HasPrefix(line, "imok") {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer ruok at %s within 30s", p.Name, addr)
}

func (zkAdapter) ClientArgs(st *Story, addrs []string) []string {
	return []string{"-connect", strings.Join(addrs, ","), "-session-timeout-ms", strconv.FormatInt(st.TTL.Milliseconds(), 10),
		"-policy", st.Policy}
}
