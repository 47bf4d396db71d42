package reports

// Token is where a group's fencing token came from (AlgoSummary.Token).
type Token struct {
	// Source is the algorithm's token setting: "none" (the leaders wrote
	// with token 0) or the value the application read ("czxid",
	// "lock_index", "fence", …).
	Source string `json:"source"`
	// AppAddition: the token is an application addition, not the
	// library's: the application read it itself.
	AppAddition bool `json:"app_addition"`
	// Cost is what reading it cost the leader, for people ("one exists()
	// round trip to the ensemble … before the leader acts").
	Cost string `json:"cost,omitempty"`
	// FencesNothing: the resource fenced by token (cron.policy fencing)
	// but the leaders wrote with none, so it could reject no write as
	// stale (an -algo run of a fenced scenario under such an algorithm
	// with its defaults; a scenario file is refused instead).
	FencesNothing bool `json:"fences_nothing,omitempty"`
}
