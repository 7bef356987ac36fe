package monitor

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Visibility groupings.
const (
	ByDay     = "day"
	ByCountry = "country"
)

// TopOthers is how many cited domains besides the watched ones a
// visibility report lists: those cited by the most targets over the
// whole period.
const TopOthers = 10

// Observation is one successful reading as visibility counts it.
type Observation struct {
	TargetID uuid.UUID
	Country  string
	TakenAt  time.Time
	Reading
}

// Visibility is the report: one group per day (UTC) or country.
type Visibility struct {
	GroupBy string  `json:"groupBy"`
	Groups  []Group `json:"groups"`
}

// Group is the visibility of one day or country: Targets read in it
// (a target's last reading there counts), the share of them with an
// overview, and each listed domain's figures.
type Group struct {
	Key           string             `json:"key"`
	Targets       int                `json:"targets"`
	OverviewShare float64            `json:"overviewShare"`
	Domains       []DomainVisibility `json:"domains"`
}

// DomainVisibility is one domain's figures in a group: the share of the
// group's targets whose overview cites it (sources or inline citations),
// and its mean 1-based position among the sources of the targets that
// list it there (nil when none do).
type DomainVisibility struct {
	Domain       string   `json:"domain"`
	Watched      bool     `json:"watched"`
	CitedShare   float64  `json:"citedShare"`
	MeanPosition *float64 `json:"meanPosition"`
}

// Aggregate computes visibility of obs grouped by groupBy (ByDay or
// ByCountry) for the watched domains and the TopOthers other domains.
// Groups come in key order.
func Aggregate(obs []Observation, watch []string, groupBy string) Visibility {
	groups := map[string]map[uuid.UUID]Observation{}
	for _, o := range obs {
		k := o.Country
		if groupBy == ByDay {
			k = o.TakenAt.UTC().Format(time.DateOnly)
		}
		g := groups[k]
		if g == nil {
			g = map[uuid.UUID]Observation{}
			groups[k] = g
		}
		if last, ok := g[o.TargetID]; !ok || o.TakenAt.After(last.TakenAt) {
			g[o.TargetID] = o
		}
	}
	listed := listedDomains(groups, watch)
	out := Visibility{GroupBy: groupBy, Groups: []Group{}}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		out.Groups = append(out.Groups, group(k, groups[k], listed, watch))
	}
	return out
}

// listedDomains is watch followed by the TopOthers domains cited by the
// most targets over all groups (ties by name).
func listedDomains(groups map[string]map[uuid.UUID]Observation, watch []string) []string {
	count := map[string]int{}
	for _, g := range groups {
		for _, o := range g {
			for d := range domainsOf(o.Reading) {
				count[d]++
			}
		}
	}
	for _, d := range watch {
		delete(count, d)
	}
	others := slices.Collect(maps.Keys(count))
	slices.SortFunc(others, func(a, b string) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b))
	})
	return append(slices.Clone(watch), others[:min(len(others), TopOthers)]...)
}

// domainsOf maps each registrable domain an overview cites to its first
// source position (0 when only an inline citation names it). Watched
// domains are matched with their subdomains by being registrable.
func domainsOf(r Reading) map[string]int {
	m := map[string]int{}
	if !r.HasOverview {
		return m
	}
	for i, s := range r.Sources {
		if d, ok := Registrable(Host(s.URL)); ok {
			if _, seen := m[d]; !seen || m[d] == 0 {
				m[d] = i + 1
			}
		}
	}
	for _, c := range r.Citations {
		if d, ok := Registrable(Host(c.URL)); ok {
			if _, seen := m[d]; !seen {
				m[d] = 0
			}
		}
	}
	return m
}

// citedDomains are the registrable domains r's sources and inline
// citations are on, in the order of their first position (those only
// cited inline last, by name).
func citedDomains(r Reading) []string {
	m := domainsOf(r)
	out := slices.Collect(maps.Keys(m))
	slices.SortFunc(out, func(a, b string) int {
		pa, pb := m[a], m[b]
		if pa == 0 {
			pa = 1 << 30
		}
		if pb == 0 {
			pb = 1 << 30
		}
		return cmp.Or(cmp.Compare(pa, pb), cmp.Compare(a, b))
	})
	return out
}

func group(key string, targets map[uuid.UUID]Observation, listed, watch []string) Group {
	g := Group{Key: key, Targets: len(targets), Domains: make([]DomainVisibility, 0, len(listed))}
	cites := map[string]int{}
	posSum, posN := map[string]int{}, map[string]int{}
	with := 0
	for _, o := range targets {
		if o.HasOverview {
			with++
		}
		for d, pos := range domainsOf(o.Reading) {
			cites[d]++
			if pos > 0 {
				posSum[d] += pos
				posN[d]++
			}
		}
	}
	g.OverviewShare = share(with, len(targets))
	for _, d := range listed {
		v := DomainVisibility{Domain: d, Watched: slices.Contains(watch, d), CitedShare: share(cites[d], len(targets))}
		if posN[d] > 0 {
			m := round3(float64(posSum[d]) / float64(posN[d]))
			v.MeanPosition = &m
		}
		g.Domains = append(g.Domains, v)
	}
	return g
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return round3(float64(n) / float64(of))
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
