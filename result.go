// Package kisa is the domain of the service, shared by every other
// package: the result of a visit with the AI overview that a search
// results page shows (spec 2.4; result.go), and the failures that a
// request for one can meet (failure.go). It imports nothing of the
// service's own and talks to no server.
package kisa

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// Citation is one inline citation of an overview (spec 2.4).
type Citation struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Source  string `json:"source"`
	Favicon string `json:"favicon"`
	// Position is the citation's 1-based place in the answer's citations,
	// in order of first appearance (answer surfaces; 0 and absent
	// elsewhere).
	Position int `json:"position,omitempty"`
	LinkState
}

// Source is one website of the overview's side panel (spec 2.4).
type Source struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Source string `json:"source"`
	Icon   string `json:"icon"`
	// Position is the source's 1-based place in the list the page shows
	// (answer surfaces; 0 and absent elsewhere).
	Position int `json:"position,omitempty"`
	// Cited says whether an inline citation of the answer points at this
	// source (answer surfaces; absent elsewhere): retrieved and cited
	// are different things.
	Cited *bool `json:"cited,omitempty"`
	LinkState
}

// LinkState is what a citation or source shows beside its link: the
// date its card shows, and whether its URL is the target page.
type LinkState struct {
	// PublishedAt is the date the card shows (YYYY-MM-DD, or as shown
	// when the page gives no year), absent when it shows none.
	PublishedAt string `json:"publishedAt,omitempty"`
	// Resolved is set when the page links through the engine's opaque
	// redirect: true when URL is the target the visit learnt through it,
	// false when URL is the absolute redirect link itself. Absent for a
	// direct link.
	Resolved *bool `json:"resolved,omitempty"`
}

// Paragraph is one block of the overview with the citations standing in it.
type Paragraph struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
}

// Overview is what extraction reads from a results page: the
// AiOverviewEntity of spec 2.4 without its screenshots.
type Overview struct {
	HasOverview bool `json:"hasOverview"`
	// Complete is false when the overview was still streaming when the
	// page was read (KISA_OVERVIEW_WAIT passed first): the rest of the
	// fields hold what was there. It is true for a page without overview.
	Complete   bool        `json:"complete"`
	Text       string      `json:"text"`
	Citations  []Citation  `json:"citations"`
	Paragraphs []Paragraph `json:"paragraphs"`
	Sources    []Source    `json:"sources"`
}

// Screenshot names, in the order the worker takes them.
const (
	ShotInitial     = "initial"
	ShotAfterLoad   = "afterLoad"
	ShotAfterExpand = "afterExpand"
)

// ShotNames lists the screenshot names in the order they are taken.
var ShotNames = []string{ShotInitial, ShotAfterLoad, ShotAfterExpand}

// Result is what one browser visit produced: the overview and, when
// screenshots were asked for, the object keys of the three PNGs in the
// bucket (keyed by the Shot* names). URLs are presigned on every answer, so
// a URL is always valid for its full 24 hours, also from the cache.
type Result struct {
	Overview Overview `json:"overview"`
	// AIMode and Web are the readings of the other surfaces' pages
	// (surfaces.go); nil on an overview's result.
	AIMode *Answer     `json:"aiMode,omitempty"`
	Web    *WebResults `json:"web,omitempty"`
	// Answer is an AI assistant's reading (Surface.Assistant); nil on
	// the other surfaces' results.
	Answer      *Answer           `json:"answer,omitempty"`
	Screenshots map[string]string `json:"screenshots,omitempty"`
	// RawHTML is the object key of the page's HTML after expansion,
	// gzip-encoded; every visit stores it, so that a request for it is
	// answered from the cache like any other.
	RawHTML string    `json:"rawHtml,omitempty"`
	TakenAt time.Time `json:"takenAt"`
}

// The devices a visit can present itself as (the overview request's
// `device`): a desktop Chromium as it is, or a phone (see
// worker/browser/presence.go). The empty Device is DeviceDesktop.
const (
	DeviceDesktop = "desktop"
	DeviceMobile  = "mobile"
)

// Devices lists the devices in the order the API documents them.
var Devices = []string{DeviceDesktop, DeviceMobile}

// CheckDevice returns an error saying what is wrong with d as a request's
// `device` (one of Devices), nil when it is one. Every request that takes
// a device (the single-call endpoints, a monitor's targets) checks it here.
func CheckDevice(d string) error {
	if !slices.Contains(Devices, d) {
		return errors.New("must be one of: " + strings.Join(Devices, ", "))
	}
	return nil
}
