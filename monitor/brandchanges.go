package monitor

import (
	"context"
	"math"

	"github.com/kisa-dev/kisa/storage"
)

// Brand change event kinds, between a target's consecutive readings (or,
// for a target read in samples, its consecutive runs).
const (
	BrandMentioned   = "brand.mentioned"
	BrandDropped     = "brand.dropped"
	BrandRankChanged = "brand.rankChanged"
	BrandCited       = "brand.cited"
	BrandUncited     = "brand.uncited"
)

// CompareBrands returns the brand change events from prev to cur (each a
// reading's figures; brands are the same when their names fold alike,
// and a brand not in prev has no event): named or no longer named (with
// its rank, to or from), its rank changed, cited or no longer cited (with
// its first citation position). The order is cur's brands, and for each
// its mention events before its citation events.
func CompareBrands(prev, cur []BrandFigures) []Change {
	before := map[string]BrandFigures{}
	for _, f := range prev {
		before[foldKey(f.Name)] = f
	}
	var out []Change
	for _, f := range cur {
		p, ok := before[foldKey(f.Name)]
		if !ok {
			continue
		}
		switch {
		case f.Mentioned && !p.Mentioned:
			out = append(out, Change{Kind: BrandMentioned, Brand: f.Name, To: deref0(f.FirstMentionRank)})
		case !f.Mentioned && p.Mentioned:
			out = append(out, Change{Kind: BrandDropped, Brand: f.Name, From: deref0(p.FirstMentionRank)})
		case f.Mentioned && deref0(f.FirstMentionRank) != deref0(p.FirstMentionRank):
			out = append(out, Change{Kind: BrandRankChanged, Brand: f.Name, From: deref0(p.FirstMentionRank), To: deref0(f.FirstMentionRank)})
		}
		switch {
		case f.Cited && !p.Cited:
			out = append(out, Change{Kind: BrandCited, Brand: f.Name, Position: f.CitationPositions[0]})
		case !f.Cited && p.Cited:
			out = append(out, Change{Kind: BrandUncited, Brand: f.Name, From: p.CitationPositions[0]})
		}
	}
	return out
}

func deref0(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// Interval is a proportion's 95% confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Wilson is the Wilson score interval at 95% of k successes in n trials
// (nil when n is 0): center (p + z²/2n) / (1 + z²/n), half-width
// z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²), with p = k/n and z = 1.96.
// Its bounds are rounded to 4 decimals.
func Wilson(k, n int) *Interval {
	if n <= 0 {
		return nil
	}
	p, nn, z2 := float64(k)/float64(n), float64(n), z95*z95
	d := 1 + z2/nn
	c := (p + z2/(2*nn)) / d
	h := z95 / d * math.Sqrt(p*(1-p)/nn+z2/(4*nn*nn))
	return &Interval{Low: round4(max(c-h, 0)), High: round4(min(c+h, 1))}
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// CompareSampleRates returns the brand change events from one run's
// samples of a target (prev) to the next run's (cur), each a list of
// readings' figures: a brand is mentioned (dropped) when its mention rate
// over cur rises above (falls below) the Wilson interval of its rate
// over prev, and cited (uncited) likewise for its citation rate, so that
// the noise between samples is no event. Rank changes are not reported
// between samples.
func CompareSampleRates(prev, cur [][]BrandFigures) []Change {
	type tally struct{ n, mentioned, cited int }
	count := func(runs [][]BrandFigures) (map[string]*tally, []string) {
		m := map[string]*tally{}
		var order []string
		for _, fs := range runs {
			for _, f := range fs {
				k := foldKey(f.Name)
				t, ok := m[k]
				if !ok {
					t = &tally{}
					m[k] = t
					order = append(order, f.Name)
				}
				t.n++
				if f.Mentioned {
					t.mentioned++
				}
				if f.Cited {
					t.cited++
				}
			}
		}
		return m, order
	}
	before, _ := count(prev)
	after, names := count(cur)
	var out []Change
	for _, name := range names {
		p, ok := before[foldKey(name)]
		a := after[foldKey(name)]
		if !ok || p.n == 0 || a.n == 0 {
			continue
		}
		for _, k := range []struct {
			up, down string
			was, is  int
		}{{BrandMentioned, BrandDropped, p.mentioned, a.mentioned}, {BrandCited, BrandUncited, p.cited, a.cited}} {
			iv, rate := Wilson(k.was, p.n), round4(float64(k.is)/float64(a.n))
			switch {
			case rate > iv.High:
				out = append(out, Change{Kind: k.up, Brand: name, Rate: &rate, Previous: iv})
			case rate < iv.Low:
				out = append(out, Change{Kind: k.down, Brand: name, Rate: &rate, Previous: iv})
			}
		}
	}
	return out
}

// sampleChanges compares the samples of reading r's run for its target
// with those of the target's previous run, once none of them is pending,
// and stores the brand change events on r (once per run and target,
// whichever sample ends last).
func (s *Service) sampleChanges(ctx context.Context, r storage.MonitorReading, m storage.Monitor, t storage.MonitorTarget) error {
	cur, pending, err := s.db.RunTargetReadings(ctx, r.RunID, r.TargetID)
	if err != nil || pending > 0 {
		return err
	}
	prev, err := s.db.PreviousRunReadings(ctx, r.TargetID, r.RunID)
	if err != nil || len(prev) == 0 {
		return err
	}
	figs := func(rs []storage.MonitorReading) ([][]BrandFigures, error) {
		var out [][]BrandFigures
		for _, x := range rs {
			f, err := s.storedBrandFigures(ctx, m, x)
			if err != nil {
				return nil, err
			}
			if f != nil {
				out = append(out, f)
			}
		}
		return out, nil
	}
	a, err := figs(prev)
	if err != nil {
		return err
	}
	b, err := figs(cur)
	if err != nil {
		return err
	}
	news, err := newChanges(CompareSampleRates(a, b))
	if err != nil || len(news) == 0 {
		return err
	}
	return s.db.AddRunTargetChanges(ctx, r, news)
}
