package model

import "fmt"

// Hashes are the hex SHA-256 hashes of what defines a [Loop].
type Hashes struct {
	Prompt       string `json:"prompt_sha256"`        // the instructions (the prompt file's bytes)
	System       string `json:"system_sha256"`        // the system message sent: the instructions plus the result-schema hint
	Tools        string `json:"tools_sha256"`         // the tool definitions, canonical JSON, in order
	ResultSchema string `json:"result_schema_sha256"` // the result schema, canonical JSON; "" if none
}

func hashLoop(cfg LoopConfig, system string) (Hashes, error) {
	h := Hashes{Prompt: HashText([]byte(cfg.Instructions)), System: HashText([]byte(system))}
	var err error
	if h.Tools, err = HashTools(cfg.Tools); err != nil {
		return Hashes{}, err
	}
	if len(cfg.ResultSchema) > 0 {
		if h.ResultSchema, err = HashJSON(cfg.ResultSchema); err != nil {
			return Hashes{}, fmt.Errorf("hash result schema: %w", err)
		}
	}
	return h, nil
}

// Provenance says which model answered an agent, through which endpoint,
// with which definitions: for the manifest, the protocol lock and the
// report header. It never holds a secret.
type Provenance struct {
	Agent    string `json:"agent"`
	Endpoint string `json:"endpoint"` // the base URL without credentials, query or fragment
	Model    string `json:"model"`    // the model asked for
	// ReportedModels are the ids the endpoint reported, sorted (a
	// gateway may answer with a dated snapshot of the model asked for).
	ReportedModels []string `json:"reported_models"`
	Hashes
}

// NewProvenance returns the provenance of agent's loop l run through c.
// Take it after the run: it reads the models c has seen reported.
func NewProvenance(agent string, c *Client, l *Loop) Provenance {
	return Provenance{Agent: agent, Endpoint: c.Endpoint(), Model: c.Model(), ReportedModels: c.ReportedModels(), Hashes: l.Hashes()}
}
