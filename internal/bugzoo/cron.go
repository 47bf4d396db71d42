package bugzoo

// cronBugs are the variants of the cron layer's fenced resource.
func cronBugs() []Bug {
	return []Bug{
		{
			Name: "zoo-cron-fence-amnesia", Base: "lease", Catches: "stale_write",
			Summary:  "the fenced resource keeps its highest-token table in memory: after its own restart it accepts a deposed leader's old token",
			Citation: "Kleppmann, \"How to do distributed locking\" (2016), fencing tokens: the storage must reject any token lower than one it has already processed; DDIA ch. 8 \"Fencing tokens\"; cron/contract.go (the resource's fencing state is durable)",
			Scenario: "cron-fence-amnesia.yaml",
			prepare:  func(p Planter) { p.ForgetFencingOnRestart() },
		},
		{
			Name: "zoo-cron-fence-by-row", Base: "lease", Catches: "stale_write",
			Summary:  "the fenced resource compares a write's token with its own slot's highest token (a per-row conditional update), not with the highest the job has seen",
			Citation: "Kleppmann, \"How to do distributed locking\" (2016): the storage checks each write against the highest token it has processed, so a deposed client's write is refused wherever it lands; DDIA ch. 8 \"Fencing tokens\"; hale-lang/hale#740 (mutation table: \"the token not compared, name only: the restarted holder's old token still commits\")",
			Scenario: "cron-fence-by-row.yaml",
			prepare:  func(p Planter) { p.FenceByRow() },
		},
		{
			Name: "zoo-cron-idempotency-per-client", Base: "lease", Catches: "double_execution",
			Summary:  "the fenced resource's idempotency key includes the writing client, so a slot written by two leaders is applied twice",
			Citation: "Stripe API docs, \"Idempotent requests\" (the client generates the key: two clients that each make one up send two different requests) and the Quartz misfire discussion in docs/cron.md; the slot, not the request, must be the key (Kleppmann, DDIA ch. 11 \"Exactly-once\", idempotence keyed on the operation)",
			Scenario: "cron-idempotency-per-client.yaml",
			prepare:  func(p Planter) { p.IdempotencyPerClient() },
		},
		{
			Name: "zoo-cron-lose-one-slot-in-four", Base: "lease", Catches: "missed_slots",
			Summary:  "the fenced resource acknowledges every write of one slot in four and keeps none of them: the slot is missed with no fault",
			Citation: "Jepsen analyses of acknowledged writes lost (e.g. \"Jepsen: MongoDB stale reads\", 2015: w=1 writes acknowledged and later rolled back); the cron contract's missed_slots promise (docs/cron.md, \"Missed slots\"): a slot is applied by its deadline unless a fault on its own nodes intervenes",
			Scenario: "cron-lose-one-slot.yaml",
			prepare:  func(p Planter) { p.LoseOneSlotIn(4) },
		},
	}
}
