// Package model is baton's access to language models: an OpenAI-compatible
// chat-completions client, a response cache that makes model runs
// reproducible, a bounded tool-calling loop that turns a model into an
// agent core, a scripted server that plays a model for tests and demos,
// and the redaction every path that shows endpoint text goes through. It
// knows no mission: a kernel core wraps a [Loop] around its tool box.
//
// # Client
//
// [NewClient] validates a [Config] and returns a [Client] for one
// endpoint. At most Config.Concurrency requests are in flight; 408, 429,
// 5xx, timeouts and network errors are retried with exponential back-off
// (github.com/cenkalti/backoff/v4), each wait spread by ±Config.Jitter from
// a source seeded with Config.JitterSeed and never shorter than the
// answer's Retry-After (seconds or an HTTP-date). Every attempt has
// Config.RequestTimeout, which must be shorter than the retry budget
// Config.MaxElapsed, and no attempt runs past the budget. Errors are
// [*Error]s wrapping [ErrUnreachable], [ErrTimeout], [ErrRateLimited],
// [ErrServer], [ErrModelNotFound], [ErrAuth], [ErrRejected],
// [ErrBadResponse] or the context's error; a cancelled context stops a
// request at once, in flight or between attempts.
//
// # Secrets
//
// A [Redactor] removes the API key (and any password or query value of the
// base URL) from text: whole or cut after more than [MaxVisible]
// characters, raw or JSON-, HTML-, URL- or base64-encoded. The client
// redacts every response body before it decodes or shortens it, so no
// error, transcript, cache entry or report can carry the key; callers
// redact what they print with [Client.Redactor] all the same.
//
// # Loop
//
// [NewLoop] compiles a [LoopConfig] (instructions, tools with the JSON
// Schemas of their arguments, the result's JSON Schema, max steps, max
// repairs, temperature); [Loop.Run] runs it on one input for one sample
// index. The system message is the instructions followed, unless
// OmitResultSchema, by a fixed sentence and the result schema's canonical
// JSON; the user message is the input's JSON text. Each model call is a
// step. A tool call is checked — a known tool, arguments that are a JSON
// object passing the tool's schema — before the caller's [ToolFunc] is
// called with the canonical arguments; its result (or {"error": ...})
// goes back as the tool message. A final answer is JSON, alone or alone
// in one ``` fence, passing the result schema. Every mistake of the model
// is an [AgentError] of a kind in [AllAgentErrorKinds], recorded in the
// [Outcome]; with MaxRepairs > 0 the first MaxRepairs mistakes are fed
// back for the model to correct. The Outcome holds the result, the
// transcript and the tokens of every step — no latency, no cache flag in
// its JSON — so a run answered from the cache is the same byte for byte.
//
// # Sample index and seed
//
// [Loop.Run] sends the trial's sample index as the request's "seed" field
// (Request.Seed) and keys the cache by it (Request.Sample, never sent). A
// [Player] of the [Server] reads the sample from req.Seed.
//
// # Cache
//
// A [Cache] is a [Chatter] in front of another. Its key ([RequestKey]) is
// the hex SHA-256 of "baton-model-cache/1\n", the decimal sample index,
// "\n" and the canonical JSON ([Canonical]: sorted keys, no insignificant
// white space, one spelling per number) of the request body: model,
// messages, tools, tool_choice, temperature, max_tokens and seed. Not the
// endpoint's URL: the same model behind another URL shares answers.
//
// A [DirStore] keeps the entry of key K in DIR/K[:2]/K.json (a run keeps
// its own in the run folder's model-cache/). An entry is one line of
// canonical JSON:
//
//	{"format":"baton-model-cache/1","key":"<K>","model":"<model asked>","response":{
//	  "content":"...","finish_reason":"...","model":"<model id reported>",
//	  "tool_calls":[{"arguments":"<text>","id":"...","name":"..."}],
//	  "usage":{"completion_tokens":N,"prompt_tokens":N}},"sample":N}
//
// Entries are written to a temporary file and hard-linked into place, so
// the first of several writers (goroutines or processes) wins and a
// reader never sees half an entry. Stores are searched in order, a hit in
// a later (shared) store is copied into the earlier ones, and a new answer
// goes from the last store to the first, each keeping the answer the
// wider one kept. A [Store] is two calls, Get and Add-if-absent, which a
// NATS key-value bucket provides as Get and Create. An offline cache
// ([CacheOptions].Offline, or no next Chatter) answers a miss with a
// [*MissError] instead of calling the endpoint. [Cache.Stats] counts
// answers made and served, and their tokens.
//
// # Server
//
// [NewServer] serves [Player]s by model name as an OpenAI-compatible
// endpoint (POST /v1/chat/completions, GET /v1/models); [Listen] refuses
// any address but a loopback one. [Script] and [Echo] are test players.
// `baton model serve` runs it.
//
// # Provenance
//
// [Loop.Hashes] and [NewProvenance] give the hashes of the prompt, system
// message, tool definitions and result schema, the model asked for, the
// model ids reported and the endpoint without credentials ([StripURL]).
package model
