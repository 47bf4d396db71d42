package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// Porcupine's visualization draws at most MaxAnnotations, then says how
// many it left out: a run with a pause every few milliseconds built one
// annotation per fault before (issue 29 point 3).
func TestAnnotationsCapped(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1)
	const pauses = MaxAnnotations + 100
	for i := int64(0); i < pauses; i++ {
		b.pause(2000+2*i, 1).resume(2001+2*i, 1)
	}
	b.end(2000 + 2*pauses + 10)
	r := Run(input(b))
	var buf bytes.Buffer
	require.NoError(t, r.Linearizability[0].Visualize(&buf))
	html := buf.String()
	// 2,100 pauses (this check draws no tenures): 100 left out.
	i := strings.Index(html, "more faults not annotated")
	require.Positive(t, i, "the note")
	assert.Equal(t, "100 more faults not annotated", html[strings.LastIndex(html[:i], "\"")+1:i+len("more faults not annotated")])
	assert.Contains(t, html, "n2 paused at t=2.000s")
}

// A story keeps at most MaxStoryFaults fault-driven records, and no
// changed-link lists; StoryDropped counts what it left out.
func TestStoryFaultRecordsCapped(t *testing.T) {
	k := New(Input{Names: threeName, Candidates: three, KeepStory: true})
	links := sim.CrossLinks([][]sim.NodeID{{0}, {1, 2}})
	k.Record(&sim.Record{At: at(1), Type: sim.RecFault, Node: sim.None, Peer: sim.None, Name: "net.partition", Fact: sim.FactLinksCut, Links: links})
	const extra = 7
	for i := int64(0); i < MaxStoryFaults-1+extra; i++ {
		typ := sim.RecPause
		if i%2 == 1 {
			typ = sim.RecResume
		}
		k.Record(&sim.Record{At: at(2 + i), Type: typ, Node: 1, Peer: sim.None})
	}
	k.Record(&sim.Record{At: at(MaxStoryFaults + 100), Type: sim.RecLead, Node: 0, Peer: sim.None, Epoch: 1, Token: 1})
	story := k.Story()
	require.Len(t, story, MaxStoryFaults+1, "the cap, and the leadership record past it")
	assert.Equal(t, extra, k.StoryDropped())
	assert.Nil(t, story[0].Links, "the story keeps no changed links")
	assert.Equal(t, sim.RecLead, story[len(story)-1].Type)
	k.Finish(nil)
}

// A story keeps at most MaxStoryRecords records that faults do not make
// (here: leadership changes), however long the run; StoryDropped counts
// the rest. Without the cap a run flapping every second for a simulated
// month kept all 5 million.
func TestStoryOtherRecordsCapped(t *testing.T) {
	k := New(Input{Names: threeName, Candidates: three, KeepStory: true})
	const extra = 9
	for i := int64(0); i < MaxStoryRecords+extra; i++ {
		if i%2 == 0 {
			k.Record(&sim.Record{At: at(1 + i), Type: sim.RecLead, Node: 0, Peer: sim.None, Epoch: i + 1, Token: i + 1})
		} else {
			k.Record(&sim.Record{At: at(1 + i), Type: sim.RecStepDown, Node: 0, Peer: sim.None})
		}
	}
	k.Record(&sim.Record{At: at(MaxStoryRecords + 100), Type: sim.RecPause, Node: 1, Peer: sim.None})
	story := k.Story()
	require.Len(t, story, MaxStoryRecords+1, "the cap, and a fault record (its own cap) past it")
	assert.Equal(t, extra, k.StoryDropped())
	assert.Equal(t, sim.RecPause, story[len(story)-1].Type)
	// No Finish: judging 50,000 tenures (porcupine over 100,000 lock
	// operations) is not what this test is about.
}
