package bugzoo

import (
	"time"

	"github.com/electsim/electsim/registry"
)

// misread is a run's values with some read wrongly: the configuration
// bug of a library that parses or forwards a setting incorrectly. Only the
// nodes see the misread values; the contract is still judged on what the
// scenario set (Register keeps the real Contract function, which the
// scenario calls with the real values).
type misread struct {
	registry.Values
	strings   map[string]string
	durations map[string]time.Duration
}

func (m misread) Has(k string) bool {
	if _, ok := m.strings[k]; ok {
		return true
	}
	if _, ok := m.durations[k]; ok {
		return true
	}
	return m.Values.Has(k)
}

func (m misread) String(k string) string {
	if s, ok := m.strings[k]; ok {
		return s
	}
	return m.Values.String(k)
}

func (m misread) Duration(k string) time.Duration {
	if d, ok := m.durations[k]; ok {
		return d
	}
	return m.Values.Duration(k)
}
