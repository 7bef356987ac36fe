package monitor

import (
	"maps"
	"slices"
	"strings"
)

// InvalidError is a request the use case refuses: each field path maps to
// what is wrong with it. The API answers it 422 with those fields.
type InvalidError struct {
	Fields map[string]string
}

// Error lists the fields and their problems, for logs.
func (e *InvalidError) Error() string {
	var b strings.Builder
	b.WriteString("invalid monitor:")
	for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
		b.WriteString(" " + k + " " + e.Fields[k] + ";")
	}
	return b.String()
}

func fieldErr(field, msg string) *InvalidError {
	return &InvalidError{Fields: map[string]string{field: msg}}
}

// problems gathers field problems; err is nil when there are none.
type problems map[string]string

func (p problems) add(field, msg string) {
	if _, ok := p[field]; !ok {
		p[field] = msg
	}
}

// merge adds the fields of err when it is an *InvalidError.
func (p problems) merge(err error) {
	if e, ok := err.(*InvalidError); ok {
		for k, v := range e.Fields {
			p.add(k, v)
		}
	}
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &InvalidError{Fields: p}
}
