package cron

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Why renders a decision from the typed fields alone, so the checker's
// stories never read the resource's Detail text.
func TestLogEntryWhy(t *testing.T) {
	assert.Equal(t, "accepted", (&LogEntry{Reason: ReasonAccepted, Accepted: true}).Why())
	assert.Equal(t, "stale_token, highest accepted token 4", (&LogEntry{Reason: ReasonStale, Against: 4}).Why())
	assert.Equal(t, "stale_token", (&LogEntry{Reason: ReasonStale}).Why(), "comparison unknown")
	assert.Equal(t, "claim_lost, slot claimed by token 7", (&LogEntry{Reason: ReasonClaimLost, Against: 7}).Why())
	assert.Equal(t, "claim_lost, slot not claimed", (&LogEntry{Reason: ReasonClaimLost}).Why())
	assert.Equal(t, "duplicate, step already applied", (&LogEntry{Reason: ReasonDuplicate}).Why())
}
