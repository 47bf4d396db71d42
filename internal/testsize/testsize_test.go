package testsize

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPick(t *testing.T) {
	t.Setenv(Env, "")
	assert.Equal(t, 1, Pick(1, 2))
	t.Setenv(Env, "1")
	assert.Equal(t, 2, Pick(1, 2))
}
