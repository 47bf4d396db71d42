package scenario

import (
	"strconv"
	"strings"

	"github.com/electsim/electsim/faults"
)

// The schema of the faults grammar's canonical (mapping) forms: for each
// fault kind, and for a random nemesis, the keys of its mapping in the order
// the writer writes them, each with how to write its value from the parsed
// fault. The writer (faultYAML, nemesisYAML) is derived from it; the
// reader's keys are checked against it (TestFaultSchemaMatchesReader), so a
// fault field cannot be readable but unwritable. Shorthands the reader also
// accepts (partition: isolate with its keys beside it, pause: leader,
// store: failover) are written in their mapping form.

// field is one key of a mapping and how to write its value; write returns
// false when the field is unset (absent from the written mapping).
type field[T any] struct {
	key   string
	write func(sc *Scenario, v *T) (string, bool)
	// aliases are other keys the reader accepts for the same field.
	aliases []string
}

// kindSchema is one fault kind's mapping.
type kindSchema struct {
	kind   string
	fields []field[faults.Fault]
}

// target, durP, floatP, boolF and the like build fields from accessors.
func targetF[T any](key string, get func(*T) *faults.Target, aliases ...string) field[T] {
	return field[T]{key: key, aliases: aliases, write: func(sc *Scenario, v *T) (string, bool) {
		t := get(v)
		if t == nil || t.Kind == "" {
			return "", false
		}
		return sc.targetYAML(*t), true
	}}
}

func durP[T any](key string, get func(*T) *faults.DurRange) field[T] {
	return field[T]{key: key, write: func(_ *Scenario, v *T) (string, bool) {
		d := get(v)
		if d == nil {
			return "", false
		}
		return durRangeYAML(*d), true
	}}
}

func durV[T any](key string, get func(*T) faults.DurRange) field[T] {
	return field[T]{key: key, write: func(_ *Scenario, v *T) (string, bool) {
		d := get(v)
		if d == (faults.DurRange{}) {
			return "", false
		}
		return durRangeYAML(d), true
	}}
}

func floatP[T any](key string, get func(*T) *faults.FloatRange) field[T] {
	return field[T]{key: key, write: func(_ *Scenario, v *T) (string, bool) {
		r := get(v)
		if r == nil {
			return "", false
		}
		return floatRangeYAML(*r), true
	}}
}

func intP[T any](key string, get func(*T) *faults.IntRange) field[T] {
	return field[T]{key: key, write: func(_ *Scenario, v *T) (string, bool) {
		r := get(v)
		if r == nil {
			return "", false
		}
		return intRange(*r), true
	}}
}

func boolF[T any](key string, get func(*T) bool) field[T] {
	return field[T]{key: key, write: func(_ *Scenario, v *T) (string, bool) { return "true", get(v) }}
}

func textF[T any](key string, get func(*T) string) field[T] {
	return field[T]{key: key, write: func(_ *Scenario, v *T) (string, bool) {
		s := get(v)
		return s, s != ""
	}}
}

func listF[T any](key string, get func(sc *Scenario, v *T) []string) field[T] {
	return field[T]{key: key, write: func(sc *Scenario, v *T) (string, bool) {
		l := get(sc, v)
		return "[" + strings.Join(l, ", ") + "]", len(l) > 0
	}}
}

// writeFields writes v's set fields as "key: value" items, in schema order.
func writeFields[T any](sc *Scenario, v *T, fields []field[T]) []string {
	var out []string
	for _, f := range fields {
		if s, ok := f.write(sc, v); ok {
			out = append(out, f.key+": "+s)
		}
	}
	return out
}

// faultCommon are the keys every fault has beside its kind.
var faultCommon = []field[faults.Fault]{
	textF("name", func(f *faults.Fault) string { return quoteIf(f.Name) }),
	{key: "after", write: func(sc *Scenario, f *faults.Fault) (string, bool) {
		if f.After == nil {
			return "", false
		}
		return "{" + strings.Join(writeFields(sc, f.After, triggerFields), ", ") + "}", true
	}},
	{key: "delay", write: func(_ *Scenario, f *faults.Fault) (string, bool) {
		if f.After == nil || f.After.Delay == (faults.DurRange{}) {
			return "", false
		}
		return durRangeYAML(f.After.Delay), true
	}},
	{key: "at", write: func(_ *Scenario, f *faults.Fault) (string, bool) {
		// Without a trigger at is the firing time, written even at 0s.
		return durRangeYAML(f.At), f.After == nil || f.At != (faults.DurRange{})
	}},
	durP("for", func(f *faults.Fault) *faults.DurRange { return f.For }),
}

// triggerFields are the keys of after: {…}.
var triggerFields = []field[faults.Trigger]{
	textF("event", func(t *faults.Trigger) string { return t.Event }),
	textF("state", func(t *faults.Trigger) string { return t.State }),
	targetF("node", func(t *faults.Trigger) *faults.Target { return &t.Node }),
}

// nodeFaultFields are pause's, crash's, restart's and resign's keys.
func nodeFaultFields(get func(*faults.Fault) *faults.Target, wipe func(*faults.Fault) bool, grace func(*faults.Fault) *faults.DurRange) []field[faults.Fault] {
	fs := []field[faults.Fault]{targetF("target", get)}
	if wipe != nil {
		fs = append(fs, boolF("wipe_disk", wipe))
	}
	if grace != nil {
		fs = append(fs, durP("grace", grace))
	}
	return fs
}

// faultKinds' schemas, one per kind, in the grammar's order.
var faultSchema = []kindSchema{
	{"partition", []field[faults.Fault]{
		textF("shape", func(f *faults.Fault) string { return string(f.Partition.Shape) }),
		targetF("target", func(f *faults.Fault) *faults.Target { return f.Partition.Target }),
		targetF("to", func(f *faults.Fault) *faults.Target { return f.Partition.To }),
		listF("groups", func(sc *Scenario, f *faults.Fault) []string { return sc.groupsYAML(f.Partition.Groups) }),
		textF("services", func(f *faults.Fault) string { return string(f.Partition.Services) }),
	}},
	{"heal", nil},
	{"pause", nodeFaultFields(func(f *faults.Fault) *faults.Target { return &f.Pause.Target }, nil, nil)},
	{"crash", nodeFaultFields(func(f *faults.Fault) *faults.Target { return &f.Crash.Target }, func(f *faults.Fault) bool { return f.Crash.WipeDisk }, nil)},
	{"restart", nodeFaultFields(func(f *faults.Fault) *faults.Target { return &f.Restart.Target }, func(f *faults.Fault) bool { return f.Restart.WipeDisk }, nil)},
	{"resign", nodeFaultFields(func(f *faults.Fault) *faults.Target { return &f.Resign.Target }, nil, func(f *faults.Fault) *faults.DurRange { return f.Resign.Grace })},
	{"clock", []field[faults.Fault]{
		targetF("target", func(f *faults.Fault) *faults.Target { return &f.Clock.Target }, "node"),
		durP("offset", func(f *faults.Fault) *faults.DurRange { return f.Clock.Offset }),
		durP("step", func(f *faults.Fault) *faults.DurRange { return f.Clock.Step }),
		floatP("rate", func(f *faults.Fault) *faults.FloatRange { return f.Clock.Rate }),
		floatP("mono_rate", func(f *faults.Fault) *faults.FloatRange { return f.Clock.MonoRate }),
		floatP("wall_rate", func(f *faults.Fault) *faults.FloatRange { return f.Clock.WallRate }),
	}},
	{"link", []field[faults.Fault]{
		targetF("from", func(f *faults.Fault) *faults.Target { return f.Link.From }),
		targetF("to", func(f *faults.Fault) *faults.Target { return f.Link.To }),
		boolF("both_ways", func(f *faults.Fault) bool { return f.Link.BothWays }),
		{key: "latency", write: func(_ *Scenario, f *faults.Fault) (string, bool) {
			if f.Link.Latency == nil {
				return "", false
			}
			return distYAML(*f.Link.Latency), true
		}},
		floatP("drop", func(f *faults.Fault) *faults.FloatRange { return f.Link.Drop }),
		floatP("duplicate", func(f *faults.Fault) *faults.FloatRange { return f.Link.Duplicate }),
	}},
	{"disk", []field[faults.Fault]{
		targetF("target", func(f *faults.Fault) *faults.Target { return &f.Disk.Target }, "node"),
		{key: "fsync", write: func(_ *Scenario, f *faults.Fault) (string, bool) { return distYAML(f.Disk.Fsync), true }},
	}},
	{"store", []field[faults.Fault]{
		boolF("unavailable", func(f *faults.Fault) bool { return f.Store.Unavailable }),
		intP("lose_last_writes", func(f *faults.Fault) *faults.IntRange { return f.Store.LoseLastWrites }),
	}},
}

// nemesisFields are random: {…}'s keys.
var nemesisFields = []field[faults.Nemesis]{
	listF("kinds", func(_ *Scenario, n *faults.Nemesis) []string { return n.Kinds }),
	listF("weights", func(_ *Scenario, n *faults.Nemesis) []string {
		ws := make([]string, len(n.Weights))
		for i, x := range n.Weights {
			ws[i] = strconv.Itoa(x)
		}
		return ws
	}),
	boolF("swarm", func(n *faults.Nemesis) bool { return n.Swarm }),
	durV("start", func(n *faults.Nemesis) faults.DurRange { return n.Start }),
	durV("until", func(n *faults.Nemesis) faults.DurRange { return n.Until }),
	durV("every", func(n *faults.Nemesis) faults.DurRange { return n.Every }),
	durV("for", func(n *faults.Nemesis) faults.DurRange { return n.For }),
	listF("targets", func(sc *Scenario, n *faults.Nemesis) []string {
		ts := make([]string, len(n.Targets))
		for i, t := range n.Targets {
			ts[i] = sc.targetYAML(t)
		}
		return ts
	}),
	listF("shapes", func(_ *Scenario, n *faults.Nemesis) []string {
		ss := make([]string, len(n.Shapes))
		for i, s := range n.Shapes {
			ss[i] = string(s)
		}
		return ss
	}),
	floatP("clock_rate", func(n *faults.Nemesis) *faults.FloatRange { return n.ClockRate }),
	durP("clock_offset", func(n *faults.Nemesis) *faults.DurRange { return n.ClockOffset }),
	durP("link_latency", func(n *faults.Nemesis) *faults.DurRange { return n.LinkLatency }),
	floatP("link_drop", func(n *faults.Nemesis) *faults.FloatRange { return n.LinkDrop }),
	durP("fsync_latency", func(n *faults.Nemesis) *faults.DurRange { return n.FsyncLatency }),
	intP("lose_last_writes", func(n *faults.Nemesis) *faults.IntRange { return n.LoseLastWrites }),
}

// kindOf returns the schema of the kind f is, and its name.
func kindOf(f *faults.Fault) (kindSchema, bool) {
	var kind string
	switch {
	case f.Partition != nil:
		kind = "partition"
	case f.Heal != nil:
		kind = "heal"
	case f.Pause != nil:
		kind = "pause"
	case f.Crash != nil:
		kind = "crash"
	case f.Restart != nil:
		kind = "restart"
	case f.Resign != nil:
		kind = "resign"
	case f.Clock != nil:
		kind = "clock"
	case f.Link != nil:
		kind = "link"
	case f.Disk != nil:
		kind = "disk"
	case f.Store != nil:
		kind = "store"
	}
	for _, k := range faultSchema {
		if k.kind == kind {
			return k, true
		}
	}
	return kindSchema{}, false
}

// faultYAML writes one fault as a flow mapping, from the schema.
func (sc *Scenario) faultYAML(f faults.Fault) string {
	parts := writeFields(sc, &f, faultCommon)
	if k, ok := kindOf(&f); ok {
		if k.kind == "heal" {
			parts = append(parts, "heal: true")
		} else {
			parts = append(parts, k.kind+": {"+strings.Join(writeFields(sc, &f, k.fields), ", ")+"}")
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// nemesisYAML writes a random nemesis, from the schema.
func (sc *Scenario) nemesisYAML(n faults.Nemesis) string {
	return "{random: {" + strings.Join(writeFields(sc, &n, nemesisFields), ", ") + "}}"
}

// groupsYAML writes a partition's groups: each a list of targets (a target
// naming several nodes joins its group's list).
func (sc *Scenario) groupsYAML(groups [][]faults.Target) []string {
	gs := make([]string, len(groups))
	for i, g := range groups {
		var ts []string
		for _, t := range g {
			if t.Kind == faults.TargetNode {
				for _, id := range t.Nodes {
					ts = append(ts, sc.refName(id))
				}
				continue
			}
			ts = append(ts, sc.targetYAML(t))
		}
		gs[i] = "[" + strings.Join(ts, ", ") + "]"
	}
	return gs
}

// quoteIf quotes a non-empty name for YAML.
func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return quote(s)
}
