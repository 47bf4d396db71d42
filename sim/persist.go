package sim

// Persist implements Env. The write completes after the node's fsync latency
// (writes are serial: one starts when the previous completes). Until it does,
// messages the node sends wait in the process, and a crash loses the write and
// those messages.
func (n *nodeState) Persist(data []byte) {
	s := n.s
	if len(data) > s.cfg.MaxPersist {
		contract("%s persisted %d bytes, more than the %d a write may hold (sim.Config.MaxPersist)", n.name, len(data), s.cfg.MaxPersist)
	}
	lat := n.fsync.Sample(&n.diskRng)
	start := s.now
	if k := len(n.pending); k > 0 && n.pending[k-1].doneAt > start {
		start = n.pending[k-1].doneAt
	}
	done := start.Add(lat)
	r := n.stamp(RecPersist)
	r.A, r.B = int64(len(data)), int64(done)
	s.emit()
	if done == s.now && len(n.pending) == 0 {
		n.durable = append(n.durable[:0], data...)
		n.hasDisk = true
		r := n.stamp(RecPersistDone)
		r.A = int64(len(data))
		s.emit()
		return
	}
	var buf []byte
	if k := len(n.spare); k > 0 {
		buf = n.spare[k-1][:0]
		n.spare = n.spare[:k-1]
	}
	n.pending = append(n.pending, pendingWrite{doneAt: done, data: append(buf, data...)})
	n.barrier = done
	s.push(done, evPersistDone, int16(n.id), int32(n.inc))
}

// persistDone makes the oldest pending write durable.
func (s *Sim) persistDone(e *event) {
	n := s.nodes[e.node]
	if uint32(e.ref) != n.inc || len(n.pending) == 0 {
		s.stats.Stale++ // lost in a crash
		return
	}
	w := n.pending[0]
	copy(n.pending, n.pending[1:])
	n.pending = n.pending[:len(n.pending)-1]
	n.spare = append(n.spare, n.durable)
	n.durable = w.data
	n.hasDisk = true
	s.stats.Events++
	r := n.stamp(RecPersistDone)
	r.A = int64(len(w.data))
	s.emit()
}
