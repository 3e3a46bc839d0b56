package deliver

// TEMPORARY until wt-envelope lands its Phase API.
type Phase string

const (
	PhaseTriggering  Phase = "triggering"
	PhaseAwaitingAck Phase = "awaiting_ack"
	PhaseDone        Phase = "done"
)
