package simtest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/electsim/electsim/sim"
)

// CheckPayload checks that an algorithm's typed message payload and its
// kind's sim.Fields agree: payload is a struct of int64 and bool fields
// with distinct values (so each can be told apart), and m is its message
// encoding. Every payload field must land in the message slot (Term,
// Index, A, B or Flag) that the kind names after it (the field's name in
// snake_case: LastLogTerm → last_log_term), and every slot the kind names
// must hold a payload field. So a trace's field names are the payload's,
// and no algorithm documents a generic A or B.
func CheckPayload(t testing.TB, m sim.Message, payload any) {
	t.Helper()
	for _, p := range PayloadProblems(m, payload) {
		t.Error(p)
	}
}

// PayloadProblems lists what CheckPayload reports, one line each.
func PayloadProblems(m sim.Message, payload any) []string {
	var out []string
	f := m.Kind.Fields()
	slots := map[string]any{} // trace name → the value in that slot
	for _, s := range []struct {
		name string
		v    any
	}{{f.Term, m.Term}, {f.Index, m.Index}, {f.A, m.A}, {f.B, m.B}, {f.Flag, m.Flag}} {
		if s.name != "" {
			slots[s.name] = s.v
		}
	}
	v := reflect.ValueOf(payload)
	if v.Kind() != reflect.Struct {
		return []string{fmt.Sprintf("CheckPayload: %T is not a struct", payload)}
	}
	seen := map[string]bool{}
	for i := 0; i < v.NumField(); i++ {
		name := snake(v.Type().Field(i).Name)
		seen[name] = true
		got, ok := slots[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: payload field %s (%q) has no slot of that name in the kind's fields %+v", m.Kind, v.Type().Field(i).Name, name, f))
			continue
		}
		var want any = v.Field(i).Interface()
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			want = fv.Int() // sim.NodeID and friends ride as int64
		}
		if got != want {
			out = append(out, fmt.Sprintf("%s: payload field %s = %v, but slot %q holds %v", m.Kind, v.Type().Field(i).Name, want, name, got))
		}
	}
	for name := range slots {
		if !seen[name] {
			out = append(out, fmt.Sprintf("%s: the kind names a slot %q that no payload field fills", m.Kind, name))
		}
	}
	sort.Strings(out) // map order must not leak into the report
	return out
}

// snake turns a Go field name into snake_case: LastLogTerm → last_log_term.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 && !unicode.IsUpper(rune(s[i-1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
