package modelcore

import (
	"context"
	"sync/atomic"

	"github.com/baton-lab/baton/model"
)

// Use counts the model calls of the turns played under one context: the
// answers the endpoint made, those a cache served, and their tokens. It is
// safe for concurrent use; a nil *Use counts nothing.
type Use struct {
	made, served                   atomic.Int64
	promptTokens, completionTokens atomic.Int64
}

// UseCounts is a snapshot of a [Use].
type UseCounts struct {
	Made             int64 `json:"made"`   // answers fetched from the endpoint
	Served           int64 `json:"served"` // answers served from a cache
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Add returns u plus v.
func (u UseCounts) Add(v UseCounts) UseCounts {
	return UseCounts{u.Made + v.Made, u.Served + v.Served, u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens}
}

// Calls returns the answers made and served.
func (u UseCounts) Calls() int64 { return u.Made + u.Served }

// Minus returns u less v.
func (u UseCounts) Minus(v UseCounts) UseCounts {
	return UseCounts{u.Made - v.Made, u.Served - v.Served, u.PromptTokens - v.PromptTokens, u.CompletionTokens - v.CompletionTokens}
}

// AsServed returns u with every answer counted as served: what a second
// execution of the same turns costs, every answer now in the cache.
func (u UseCounts) AsServed() UseCounts {
	return UseCounts{Served: u.Calls(), PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

type useKey struct{}

// WithUse returns ctx carrying u: every model core playing a turn under it
// counts its calls there.
func WithUse(ctx context.Context, u *Use) context.Context { return context.WithValue(ctx, useKey{}, u) }

func useFrom(ctx context.Context) *Use {
	u, _ := ctx.Value(useKey{}).(*Use)
	return u
}

func (u *Use) add(resp model.Response) {
	if u == nil {
		return
	}
	if resp.Cached {
		u.served.Add(1)
	} else {
		u.made.Add(1)
	}
	u.promptTokens.Add(resp.Usage.PromptTokens)
	u.completionTokens.Add(resp.Usage.CompletionTokens)
}

// Add counts c.
func (u *Use) Add(c UseCounts) {
	if u == nil {
		return
	}
	u.made.Add(c.Made)
	u.served.Add(c.Served)
	u.promptTokens.Add(c.PromptTokens)
	u.completionTokens.Add(c.CompletionTokens)
}

// Counts returns what u has counted.
func (u *Use) Counts() UseCounts {
	if u == nil {
		return UseCounts{}
	}
	return UseCounts{u.made.Load(), u.served.Load(), u.promptTokens.Load(), u.completionTokens.Load()}
}
