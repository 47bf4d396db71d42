package checker

import (
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/sim"
)

// owners is a persistent map: every version answers like a plain map of
// the owners added up to it, lists them in (job, slot) order, and adding to
// a version never changes it; equal is set equality.
func TestOwnersIsAPersistentMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type key struct {
			job  int
			slot int64
		}
		n := rapid.IntRange(0, 200).Draw(t, "n")
		var versions []owners
		var models []map[key]slotOwner
		cur, model := owners{}, map[key]slotOwner{}
		for i := 0; i < n; i++ {
			k := key{rapid.IntRange(0, 3).Draw(t, "job"), int64(rapid.IntRange(0, 50).Draw(t, "slot"))}
			if _, ok := model[k]; ok {
				continue
			}
			o := slotOwner{job: k.job, slot: k.slot, node: sim.NodeID(i % 5), run: int64(i)}
			versions, models = append(versions, cur), append(models, model)
			next := map[key]slotOwner{}
			for kk, v := range model {
				next[kk] = v
			}
			next[k] = o
			cur, model = cur.with(o), next
		}
		versions, models = append(versions, cur), append(models, model)
		for v, m := range models {
			got := versions[v]
			if got.size != len(m) {
				t.Fatalf("version %d: size %d, want %d", v, got.size, len(m))
			}
			for k, o := range m {
				if f, ok := got.find(k.job, k.slot); !ok || f != o {
					t.Fatalf("version %d: find %v = %v %v, want %v", v, k, f, ok, o)
				}
			}
			if _, ok := got.find(99, 0); ok {
				t.Fatalf("found an absent slot")
			}
			var list []slotOwner
			got.each(func(o slotOwner) bool { list = append(list, o); return true })
			if !sort.SliceIsSorted(list, func(i, j int) bool {
				return ownerLess(list[i].job, list[i].slot, list[j].job, list[j].slot)
			}) || len(list) != len(m) {
				t.Fatalf("version %d: each is not the sorted entries: %v", v, list)
			}
		}
		// The same owners added in another order are equal; one more is not.
		rebuilt := owners{}
		for _, o := range models[len(models)-1] {
			rebuilt = rebuilt.with(o)
		}
		if !rebuilt.equal(cur) || !cur.equal(rebuilt) {
			t.Fatalf("same owners, not equal")
		}
		if more := cur.with(slotOwner{job: 7, slot: 1}); more.equal(cur) {
			t.Fatalf("different owners, equal")
		}
	})
}
