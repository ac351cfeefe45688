package experiment

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/baton-lab/baton/internal/xxh64"
	"github.com/baton-lab/baton/mission"
)

// The trace hash is the same, byte for byte, as the one stores were
// written with (TraceHashAlgorithm "xxh64-compact-1"): real traces of
// both missions, every build of their default protocols (mutants, with
// the protocols' faults and slips), integrated runs and core runs, encode
// as the first compact encoder wrote them (frozen below), whether
// appended, streamed into a digest, or taken from a copy of the events
// whose raw JSON the encoder must check; their JSON Lines are encoding/
// json's; and runHashes gives the run hash of that encoding and the end
// state.
func TestTraceHashSameEncoding(t *testing.T) {
	// Made-up events first: invalid UTF-8 and white space where real
	// traces have none, in every field, repeated and alternating.
	var made mission.Trace
	for i, s := range []string{"a", "a", "b\xff", "b\xff", "", "a", "\xe2\x82", "é€ x", "é€ x"} {
		made.Events = append(made.Events, mission.Event{Seq: i * 40, At: int64(i) * -70, Kind: mission.EventKind(s), Agent: mission.Agent(s),
			Item: s, Decision: s, Choice: s, TokensIn: 1 << i, Tool: s, Args: json.RawMessage("{ \"a\" : [1, 2],\n\t\"b\":\"x  y\" }"),
			Output: json.RawMessage(`[1,"x y",null]`), Error: s, Key: s, Effect: s, Edge: s, Raw: s, Parsed: json.RawMessage(s),
			To: []mission.Agent{mission.Agent(s), "b"}, Reason: s})
	}
	if got, want := made.AppendCompact(nil), frozenAppendCompact(nil, &made); !bytes.Equal(got, want) {
		t.Fatalf("made-up events: AppendCompact differs from the frozen encoding:\n got %q\nwant %q", got, want)
	}
	made.Events = made.Events[:len(made.Events)-1]
	for i := range made.Events {
		made.Events[i].Args, made.Events[i].Parsed = nil, nil // not JSON
	}
	if got, err := made.MarshalJSONL(); err != nil || !bytes.Equal(got, stdJSONL(t, &made)) {
		t.Fatalf("made-up events: JSON Lines differ from encoding/json's (%v): %q", err, got)
	}
	traces, runs := 0, 0
	for _, protocol := range []string{"name: x\n", "name: x\nmission:\n  name: triage\n"} {
		pl := trialsPlan(t, protocol) // the default protocol: every mutant, faults and slips
		var scratch []byte
		check := func(what string, tr *mission.Trace) {
			t.Helper()
			traces++
			want := frozenAppendCompact(nil, tr)
			if got := tr.AppendCompact(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: AppendCompact differs from the frozen encoding:\n got %q\nwant %q", what, got, want)
			}
			if got := (&mission.Trace{Events: tr.Events}).AppendCompact(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: AppendCompact of a copy differs from the frozen encoding", what)
			}
			wantJSONL := stdJSONL(t, tr)
			if got, err := tr.MarshalJSONL(); err != nil || !bytes.Equal(got, wantJSONL) {
				t.Fatalf("%s: JSON Lines differ from encoding/json's (%v):\n got %q\nwant %q", what, err, got, wantJSONL)
			}
			var d xxh64.Digest
			d.Reset()
			scratch = tr.WriteCompact(&d, scratch)
			if d.Sum64() != xxh64.Sum64(want) || d.Len() != len(want) {
				t.Fatalf("%s: WriteCompact hashes %d bytes to %#x, the frozen encoding %d bytes to %#x", what, d.Len(), d.Sum64(), len(want), xxh64.Sum64(want))
			}
		}
		for bi := range pl.builds {
			for si := bi % 3; si < len(pl.scenarios); si += 3 {
				for trial := 1; trial <= 2; trial++ {
					seed := TrialSeed(pl.seed, pl.scenarios[si].ID, trial)
					r := runOf(t, pl, bi, si, -1, seed)
					check(pl.builds[bi].Info.ID+"/"+pl.scenarios[si].ID, r.run.Trace)
					memo := newUnitMemo(true)
					h, _, err := runHashes(r.run.Trace, r.run.End, memo)
					if err != nil {
						t.Fatal(err)
					}
					if want := frozenRunHash(t, r.run); h != want {
						t.Fatalf("%s/%s: run hash %s, frozen %s", pl.builds[bi].Info.ID, pl.scenarios[si].ID, h, want)
					}
					if got, want := memo.kept[integratedKey(r.run.Trace)].sha, hash64(frozenAppendCompact(nil, r.run.Trace)); got != want {
						t.Fatalf("trace hash %s kept, frozen %s", got, want)
					}
					runs++
					for k := range pl.goldenOf(bi, si) {
						check("core", runOf(t, pl, bi, si, k, seed).core.Trace)
					}
				}
			}
		}
	}
	if traces < 1000 || runs < 200 {
		t.Fatalf("only %d traces and %d runs checked", traces, runs)
	}
	t.Logf("%d traces, %d run hashes", traces, runs)
}

// stdJSONL is a trace's JSON Lines through encoding/json.
func stdJSONL(tb testing.TB, tr *mission.Trace) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range tr.Events {
		if err := enc.Encode(&tr.Events[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// frozenRunHash is runHashes' run hash as first written: XXH64 of the
// trace's frozen compact encoding, 'S', the records' length and JSON, and
// the call log.
func frozenRunHash(tb testing.TB, run *mission.Run) string {
	records := []byte("{}")
	if run.End.Records != nil {
		var err error
		if records, err = run.End.Records.AppendJSON(nil); err != nil {
			tb.Fatal(err)
		}
	}
	b := frozenAppendCompact(nil, run.Trace)
	b = binary.AppendUvarint(append(b, 'S'), uint64(len(records)))
	return hash64(appendCompactLog(append(b, records...), run.End.Log))
}

// frozenAppendCompact is mission.Trace.AppendCompact as stores with
// TraceHashAlgorithm were written: do not change it.
func frozenAppendCompact(b []byte, t *mission.Trace) []byte {
	var wire string
	for i := range t.Events {
		e := &t.Events[i]
		b = append(b, 'E')
		b = binary.AppendVarint(b, int64(e.Seq))
		b = binary.AppendVarint(b, e.At)
		b = frozenString(b, string(e.Kind))
		b = frozenString(b, string(e.Agent))
		b = frozenString(b, e.Item)
		b = frozenString(b, e.Decision)
		b = frozenString(b, e.Choice)
		b = binary.AppendVarint(b, int64(e.TokensIn))
		b = binary.AppendVarint(b, int64(e.TokensOut))
		b = frozenString(b, e.Tool)
		b = frozenRaw(b, e.Args)
		b = frozenRaw(b, e.Output)
		b = frozenString(b, e.Error)
		b = frozenString(b, e.Key)
		b = binary.AppendVarint(b, int64(e.Attempt))
		b = frozenString(b, e.Effect)
		b = frozenString(b, e.Edge)
		if e.Raw != "" && e.Raw == wire {
			b = append(binary.AppendUvarint(b, uint64(len(e.Raw))), e.Raw...)
		} else {
			b = frozenString(b, e.Raw)
			if utf8.ValidString(e.Raw) {
				wire = e.Raw
			}
		}
		b = frozenRaw(b, e.Parsed)
		b = binary.AppendUvarint(b, uint64(len(e.To)))
		for _, a := range e.To {
			b = frozenString(b, string(a))
		}
		b = frozenString(b, e.Reason)
	}
	return b
}

// frozenString is a string's length and bytes, each byte of invalid
// UTF-8 as U+FFFD (what converting to runes makes of it).
func frozenString(b []byte, s string) []byte {
	if s == "" {
		return append(b, 0)
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func frozenRaw(b []byte, raw []byte) []byte {
	if len(raw) > 0 {
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil {
			raw = c.Bytes()
		}
	}
	return append(binary.AppendUvarint(b, uint64(len(raw))), raw...)
}

// A kept trace's line of traces/<build>.jsonl is what it was first written
// as: the id through json.Marshal, the JSON Lines joined with commas, line
// ends and empty lines dropped.
func TestAppendTraceLineSame(t *testing.T) {
	frozen := func(id string, trace []byte) []byte {
		q, _ := json.Marshal(id)
		dst := append([]byte(`{"item":`), q...)
		dst = append(dst, `,"trace":[`...)
		first := true
		for l := range bytes.Lines(trace) {
			if l = bytes.TrimRight(l, "\r\n"); len(l) > 0 {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = append(dst, l...)
			}
		}
		return append(dst, "]}\n"...)
	}
	for _, id := range []string{"clean/A/S01/1", "m<&>\"\u2028/é/\xff/3"} {
		for _, trace := range []string{"", "\n", `{"seq":1}`, "{\"seq\":1}\n{\"seq\":2}\n", "a\r\n\r\n\nb\r\r\n\rc\n\r", "x\ry\n"} {
			prefix := []byte("kept ")
			if got, want := appendTraceLine(prefix, id, []byte(trace)), frozen(id, []byte(trace)); !bytes.Equal(got[len(prefix):], want) || !bytes.HasPrefix(got, prefix) {
				t.Errorf("appendTraceLine(%q, %q) = %q, want %q", id, trace, got, want)
			}
		}
	}
}
