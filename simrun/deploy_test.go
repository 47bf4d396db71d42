package simrun

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Kubernetes example's commands are commands simrun accepts: its
// Indexed Job's sweep (shard = completion index, of as many shards as the
// Job has completions) and its merge.
func TestKubernetesExampleCommands(t *testing.T) {
	type job struct {
		Spec struct {
			Completions int `yaml:"completions"`
			Template    struct {
				Spec struct {
					Containers []struct {
						Args []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	read := func(path string) (job, []string) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var j job
		require.NoError(t, yaml.Unmarshal(b, &j), path)
		require.NotEmpty(t, j.Spec.Template.Spec.Containers, path)
		cmd, _, _ := strings.Cut(j.Spec.Template.Spec.Containers[0].Args[0], ";")
		fields := strings.Fields(strings.ReplaceAll(cmd, "${JOB_COMPLETION_INDEX}", "0"))
		require.Equal(t, []string{"go", "run", "./cmd/simrun"}, fields[:3], path)
		return j, fields[3:]
	}
	j, args := read("../deploy/kubernetes/sweep-job.yaml")
	o, err := parseOptions(args, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, j.Spec.Completions, o.shardCount, "one shard per completion")
	assert.LessOrEqual(t, o.seeds/o.shardCount, MaxRuns, "a shard within MaxRuns")
	_, err = os.Stat("../" + o.scenario)
	assert.NoError(t, err, "the scenario exists")

	_, args = read("../deploy/kubernetes/merge-job.yaml")
	require.Equal(t, "merge", args[0])
}
