package raftelect

import (
	"testing"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// TestPayloadsNameTheirFields: every message's typed payload and its
// kind's trace field names agree, and decoding gives the payload back.
func TestPayloadsNameTheirFields(t *testing.T) {
	vr := voteReq{Term: 7, LastLogIndex: 11, LastLogTerm: 5}
	for _, k := range []sim.MsgKind{KindRequestVote, KindPreVote} {
		m := vr.message(k, 2)
		simtest.CheckPayload(t, m, vr)
		if voteReqOf(&m) != vr {
			t.Errorf("%s: decode %+v", k, voteReqOf(&m))
		}
	}
	vs := voteResp{Term: 7, VoteGranted: true}
	for _, k := range []sim.MsgKind{KindRequestVoteResp, KindPreVoteResp} {
		m := vs.message(k, 2)
		simtest.CheckPayload(t, m, vs)
		if voteRespOf(&m) != vs {
			t.Errorf("%s: decode %+v", k, voteRespOf(&m))
		}
	}
	simtest.CheckPayload(t, heartbeat{Term: 9}.message(1), heartbeat{Term: 9})
	hr := heartbeatResp{Term: 9, Success: true}
	m := hr.message(1)
	simtest.CheckPayload(t, m, hr)
	if heartbeatRespOf(&m) != hr {
		t.Errorf("AppendEntriesResp: decode %+v", heartbeatRespOf(&m))
	}
}
