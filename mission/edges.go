package mission

// edgeNames holds "from->to" for every pair of the reference agents, so
// that writing an edge in the hot path does not allocate.
var edgeNames = func() (t [4][4]string) {
	for i, a := range AllAgents {
		for j, b := range AllAgents {
			t[i][j] = string(a) + "->" + string(b)
		}
	}
	return t
}()

func agentIdx(a Agent) int {
	switch a {
	case Intake:
		return 0
	case Action:
		return 1
	case Boundary:
		return 2
	case Monitor:
		return 3
	}
	return -1
}

// knownEdgeName returns the precomputed name of an edge between reference
// agents.
func knownEdgeName(e Edge) (string, bool) {
	i, j := agentIdx(e.From), agentIdx(e.To)
	if i < 0 || j < 0 {
		return "", false
	}
	return edgeNames[i][j], true
}

// redeliverKinds are the dice decision kinds of transport redeliveries:
// "redeliver:" + edge.
var redeliverKinds = func() (t [4][4]string) {
	for i := range edgeNames {
		for j := range edgeNames[i] {
			t[i][j] = "redeliver:" + edgeNames[i][j]
		}
	}
	return t
}()

func redeliverKind(e Edge) string {
	i, j := agentIdx(e.From), agentIdx(e.To)
	if i < 0 || j < 0 {
		return "redeliver:" + e.String()
	}
	return redeliverKinds[i][j]
}
