package reality

import (
	"fmt"
	"sort"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// World is a trial's cast as the checker sees it: Candidates client
// processes (NodeIDs 0..Candidates-1, named n1, n2, …) and Stores servers
// (the NodeIDs after them, named store, store2, … as in a simulated lease
// scenario).
type World struct {
	Candidates int
	Stores     int
}

// Names are the display names by NodeID.
func (w World) Names() []string {
	names := make([]string, 0, w.Candidates+w.Stores)
	for i := 0; i < w.Candidates; i++ {
		names = append(names, fmt.Sprintf("n%d", i+1))
	}
	for i := 0; i < w.Stores; i++ {
		if i == 0 {
			names = append(names, "store")
		} else {
			names = append(names, fmt.Sprintf("store%d", i+1))
		}
	}
	return names
}

// Convert turns a trial's reports into electsim trace records, on the true
// time axis the simulation uses: 0 at start (the monotonic reading when the
// trial began), the run ending at end. Every node starts at 0. A client's
// Acquired while it does not lead is a tenure (RecLead, epochs numbered in
// acquisition order: Redis hands no epoch, the harness counts
// acquisitions as the simulated store's revision does); Lost ends it
// (RecStepDown); a crash ends it as the engine does (RecStepDown with
// sim.FactCrashed, then RecCrash); a restart is RecStart with A=1; pauses
// are RecPause and RecResume; a cut and its heal are network RecFaults
// (sim.FactLinksCut, sim.FactLinksRestored) on the links both ways between
// the client and every store, as the engine writes a partition. Extended
// and Acting carry no record: the
// checker judges tenures, not renewals. Reports are taken in time order
// (equal times in the order given); one before start is clamped to 0.
func Convert(w World, reports []Report, start, end time.Duration) []sim.Record {
	rs := append([]Report(nil), reports...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Mono < rs[j].Mono })
	out := make([]sim.Record, 0, len(rs)+w.Candidates+w.Stores+1)
	for id := 0; id < w.Candidates+w.Stores; id++ {
		out = append(out, sim.Record{Type: sim.RecStart, Node: sim.NodeID(id)})
	}
	leading := make([]int64, w.Candidates) // the epoch a candidate leads in, 0: none
	var epoch int64
	last := sim.Time(0)
	for _, r := range rs {
		if r.Node < 0 || r.Node >= w.Candidates {
			continue
		}
		at := max(sim.Time(r.Mono-start), 0)
		at = max(at, last) // never back in time: the checker reads records in order
		last = at
		rec := sim.Record{At: at, Node: sim.NodeID(r.Node), Mono: time.Duration(at)}
		switch r.What {
		case Acquired:
			if leading[r.Node] != 0 {
				continue
			}
			epoch++
			leading[r.Node] = epoch
			rec.Type, rec.Epoch = sim.RecLead, epoch
		case Lost:
			if leading[r.Node] == 0 {
				continue
			}
			rec.Type, rec.Epoch, rec.Detail = sim.RecStepDown, leading[r.Node], "lock lost"
			leading[r.Node] = 0
		case Paused:
			rec.Type = sim.RecPause
		case Resumed:
			rec.Type = sim.RecResume
		case Crashed:
			if leading[r.Node] != 0 {
				sd := rec
				sd.Type, sd.Epoch, sd.Detail, sd.Fact = sim.RecStepDown, leading[r.Node], "crash", sim.FactCrashed
				out = append(out, sd)
				leading[r.Node] = 0
			}
			rec.Type = sim.RecCrash
		case Restarted:
			rec.Type, rec.A = sim.RecStart, 1
		case Cut, Healed:
			rec.Type, rec.Node, rec.Name, rec.Fact = sim.RecFault, sim.None, "partition", sim.FactLinksCut
			if r.What == Healed {
				rec.Name, rec.Fact = "heal", sim.FactLinksRestored
			}
			rec.Detail = fmt.Sprintf("n%d cut off the servers", r.Node+1)
			for k := 0; k < w.Stores; k++ {
				s := sim.NodeID(w.Candidates + k)
				rec.Links = append(rec.Links, sim.Link{From: sim.NodeID(r.Node), To: s}, sim.Link{From: s, To: sim.NodeID(r.Node)})
			}
		default:
			continue
		}
		out = append(out, rec)
	}
	endAt := max(sim.Time(end-start), last)
	out = append(out, sim.Record{At: endAt, Type: sim.RecEnd, Node: sim.None, Detail: "trial ended"})
	return out
}

// Input is the checker's input for a converted trial: the candidates, the
// store(s) as the lease store (a node is recognised as leader from its
// RecLead on, as for a simulated lease), and no resource (the clients
// write nowhere: findings are about tenures).
func (w World) Input(records []sim.Record) checker.Input {
	in := checker.Input{Records: records, Names: w.Names(), KeepStory: true}
	for i := 0; i < w.Candidates; i++ {
		in.Candidates = append(in.Candidates, sim.NodeID(i))
	}
	for i := 0; i < w.Stores; i++ {
		in.LeaseStore = append(in.LeaseStore, sim.NodeID(w.Candidates+i))
	}
	return in
}
