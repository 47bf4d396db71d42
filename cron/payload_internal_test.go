package cron

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/sim/simtest"
)

// TestPayloadsNameTheirFields: every cron message's payload lands in the
// slots its kind names after its fields, and decodes back.
func TestPayloadsNameTheirFields(t *testing.T) {
	w := writeReq{Token: 3, Slot: 1_000, JobStep: packJobStep(2, 1), Run: 77}
	m := w.message(9, nil)
	simtest.CheckPayload(t, m, w)
	assert.Equal(t, w, writeReqOf(&m))
	wr := writeResp{Token: 3, Slot: 1_000, JobStep: packJobStep(2, 1), Run: 77, Accepted: true}
	simtest.CheckPayload(t, wr.message(1), wr)

	c := claimReq{Token: 3, Slot: 1_000, Job: 2, Run: 77}
	m = c.message(9, nil)
	simtest.CheckPayload(t, m, c)
	assert.Equal(t, c, claimReqOf(&m))
	cr := claimResp{Token: 3, Slot: 1_000, Job: 2, Run: 77, Won: true}
	m = cr.message(1)
	simtest.CheckPayload(t, m, cr)
	assert.Equal(t, cr, claimRespOf(&m))

	q := query{Tenure: 4, FromSlot: 500, Job: 2, ToSlot: 1_500}
	for _, k := range []sim.MsgKind{KindQuery, KindQueryResp} {
		m = q.message(k, 9, nil)
		simtest.CheckPayload(t, m, q)
		assert.Equal(t, q, queryOf(&m), "%s", k)
	}
}
