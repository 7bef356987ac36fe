package overview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/kisa-dev/kisa/storage"
)

// renderedMax bounds the rendered answers kept; past it, stale ones go.
const renderedMax = 10000

// renderedReuse is how long a rendered answer is handed out again. Its
// screenshot URLs had at least URLTTL+storage.URLReuse left when it was
// rendered, so they still have URLTTL when it is last handed out.
const renderedReuse = storage.URLReuse

// renderings keeps the encoded `results` of recent cache hits, so that a
// hit on the same cached bytes with the same selection costs neither a
// decode, nor presigning, nor an encode.
type renderings struct {
	now func() time.Time

	mu      sync.Mutex
	entries map[string]rendering
}

// rendering is one encoded `results`, for the cached bytes it came from.
type rendering struct {
	src     []byte
	results json.RawMessage
	at      time.Time
}

func newRenderings(now func() time.Time) *renderings {
	return &renderings{now: now, entries: map[string]rendering{}}
}

// renderKey names a cache key with one field selection (and rawHtml,
// which is not part of the cache key).
func renderKey(key string, req Request) string {
	return fmt.Sprintf("%s\x00%t\x00%#v", key, req.RawHTML, req.Fields)
}

// get returns the rendering of src under rk, when it is recent.
func (r *renderings) get(rk string, src []byte) (json.RawMessage, bool) {
	r.mu.Lock()
	e, ok := r.entries[rk]
	r.mu.Unlock()
	if !ok || r.now().Sub(e.at) >= renderedReuse || !bytes.Equal(e.src, src) {
		return nil, false
	}
	return e.results, true
}

// put keeps results, rendered from src, under rk.
func (r *renderings) put(rk string, src []byte, results json.RawMessage) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.entries) >= renderedMax {
		for k, e := range r.entries {
			if now.Sub(e.at) >= renderedReuse {
				delete(r.entries, k)
			}
		}
	}
	if len(r.entries) < renderedMax {
		r.entries[rk] = rendering{src: src, results: results, at: now}
	}
}

// encodeResults encodes results as the API writes JSON (no HTML escaping).
func encodeResults(results map[string]any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
