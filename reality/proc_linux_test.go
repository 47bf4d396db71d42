//go:build linux

package reality

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// procState is the process's state letter in /proc/PID/stat (R, S, T
// stopped, Z, …); the kernel sets it when the signal is delivered, which
// waitState waits for without a clock: it rereads the file until the state
// matches, for at most many reads.
func waitState(t *testing.T, pid int, want byte) {
	t.Helper()
	var got byte
	for range 200000 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		require.NoError(t, err)
		s := string(b)
		got = s[strings.LastIndexByte(s, ')')+2]
		if got == want || want == 'S' && got == 'R' {
			return
		}
	}
	t.Fatalf("process %d in state %c, want %c", pid, got, want)
}

func TestProcPauseResumeKill(t *testing.T) {
	var g Group
	defer g.Stop()
	p, err := g.Start("sleeper", t.TempDir(), []string{"sleep", "60"}, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 1, g.Live())

	require.NoError(t, p.Pause())
	waitState(t, p.Pid(), 'T') // SIGSTOP: stopped, runs nothing
	require.NoError(t, p.Resume())
	waitState(t, p.Pid(), 'S') // SIGCONT: back to sleeping

	require.NoError(t, p.Pause())
	waitState(t, p.Pid(), 'T')
	p.Kill() // a stopped process is killed and reaped too
	exited, err := p.Exited()
	require.True(t, exited)
	require.Error(t, err, "killed by SIGKILL")
	require.Equal(t, 0, g.Live())
}

func TestGroupStopStopsEveryProcessAndRefusesMore(t *testing.T) {
	var g Group
	dir := t.TempDir()
	var ps []*Proc
	for i := range 3 {
		p, err := g.Start(fmt.Sprint("p", i), dir, []string{"sleep", "60"}, nil, nil)
		require.NoError(t, err)
		ps = append(ps, p)
	}
	require.NoError(t, ps[1].Pause())
	require.Equal(t, 3, g.Live())
	g.Stop()
	for _, p := range ps {
		exited, _ := p.Exited()
		require.True(t, exited, p.Name)
	}
	_, err := g.Start("late", dir, []string{"sleep", "60"}, nil, nil)
	require.ErrorIs(t, err, errStopped, "a stopped trial starts nothing more (a SIGINT during a start)")
	g.Stop() // twice is fine
}

func TestGroupStartReportsAMissingBinary(t *testing.T) {
	var g Group
	defer g.Stop()
	_, err := g.Start("ghost", t.TempDir(), []string{"/nonexistent/electsim-no-such-server"}, nil, nil)
	require.ErrorContains(t, err, "ghost")
}
