package monitor

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/storage"
)

// Brand aggregate groupings (groupBy, several at once).
var BrandGroupings = []string{"surface", "country", "device", "language", "day"}

// BrandReport is GET .../brands: per group, each brand's figures.
type BrandReport struct {
	GroupBy []string     `json:"groupBy"`
	Groups  []BrandGroup `json:"groups"`
}

// BrandGroup is one group of readings: its value of each grouping
// (e.g. {"surface":"ai-mode","day":"2026-11-27"}) and its brands.
type BrandGroup struct {
	Key    map[string]string `json:"key"`
	Brands []BrandAggregate  `json:"brands"`
}

// BrandAggregate is one brand's figures over a group's readings measured
// against a version of the brands that held it (see docs/monitors.md for
// the formulas):
//
//   - Readings: readings measured; Answers: those of an answer surface
//     (not web search), which alone can name a brand;
//   - MentionRate: answers naming it / Answers;
//   - CitationRate: readings citing it (an organic result, in a web
//     search) / Readings;
//   - ShareOfVoice: its mentions / all the group's brands' mentions;
//   - AverageFirstMentionRank: the mean of its first-mention rank over
//     the answers naming it;
//   - AverageCitationPosition: the mean of its first citation position
//     (in a web search, its best organic rank) over the readings citing
//     it.
//
// Each rate has its 95% Wilson interval; a rate or mean over nothing is
// null.
type BrandAggregate struct {
	Name                    string    `json:"name"`
	Own                     bool      `json:"own"`
	Readings                int       `json:"readings"`
	Answers                 int       `json:"answers"`
	Mentions                int       `json:"mentions"`
	MentionRate             *float64  `json:"mentionRate"`
	MentionRateInterval     *Interval `json:"mentionRateInterval"`
	CitationRate            *float64  `json:"citationRate"`
	CitationRateInterval    *Interval `json:"citationRateInterval"`
	ShareOfVoice            *float64  `json:"shareOfVoice"`
	ShareOfVoiceInterval    *Interval `json:"shareOfVoiceInterval"`
	AverageFirstMentionRank *float64  `json:"averageFirstMentionRank"`
	AverageCitationPosition *float64  `json:"averageCitationPosition"`

	mentioned, ranked, rankSum, cited, positionSum int
}

// BrandDayGrace is how long after a UTC day ends its readings are summed
// once into the daily roll-up that Brands reads (storage.BrandAggregates),
// rather than summed again on every request: longer than a reading's
// visit, so that a day is rarely summed before its last reading lands
// (one that lands later has its day summed again).
const BrandDayGrace = time.Hour

// Brands reports the brand visibility of one of account's monitors in sp,
// grouped by the groupings given (BrandGroupings, in any number), summed
// in PostgreSQL. Errors: ErrNotFound, Unavailable.
func (s *Service) Brands(ctx context.Context, account, id uuid.UUID, sp Span, groupBy []string) (BrandReport, error) {
	m, err := s.db.Monitor(ctx, account, id)
	if err != nil {
		return BrandReport{}, unavailable(err)
	}
	sp = s.span(sp)
	versions, err := s.brandVersions(ctx, m)
	if err != nil {
		return BrandReport{}, err
	}
	most := 0
	for _, bs := range versions {
		most = max(most, len(bs))
	}
	rows, err := s.db.BrandAggregates(ctx, id, sp.From, sp.To, groupBy, most, s.now().Add(-BrandDayGrace))
	if err != nil {
		return BrandReport{}, unavailable(err)
	}
	current, err := brandsOf(m.Brands)
	if err != nil {
		return BrandReport{}, err
	}
	return brandReport(rows, versions, current, groupBy), nil
}

// brandReport merges the sums of each brand (by name, across versions)
// per group and computes the figures. Groups come in key order; brands
// in the current brands' order, then former brands by name.
func brandReport(rows []storage.BrandAggregate, versions map[int][]Brand, current []Brand, groupBy []string) BrandReport {
	order := map[string]int{}
	for i, b := range current {
		order[foldKey(b.Name)] = i
	}
	groups := map[string]map[string]*BrandAggregate{}
	keys := map[string][]string{}
	for _, r := range rows {
		bs := versions[r.Version]
		if r.Brand < 0 || r.Brand >= len(bs) {
			continue
		}
		b := bs[r.Brand]
		gk := strings.Join(r.Key, "\x00")
		if groups[gk] == nil {
			groups[gk], keys[gk] = map[string]*BrandAggregate{}, r.Key
		}
		a := groups[gk][foldKey(b.Name)]
		if a == nil {
			a = &BrandAggregate{Name: b.Name, Own: b.Own}
			groups[gk][foldKey(b.Name)] = a
		}
		if i, ok := order[foldKey(b.Name)]; ok {
			a.Name, a.Own = current[i].Name, current[i].Own
		}
		a.Readings += r.Readings
		a.Answers += r.Answers
		a.Mentions += r.Mentions
		a.mentioned += r.Mentioned
		a.ranked += r.Ranked
		a.rankSum += r.RankSum
		a.cited += r.Cited
		a.positionSum += r.PositionSum
	}
	out := BrandReport{GroupBy: slices.Clone(groupBy), Groups: []BrandGroup{}}
	for _, gk := range slices.Sorted(maps.Keys(groups)) {
		g := BrandGroup{Key: map[string]string{}, Brands: []BrandAggregate{}}
		for i, d := range groupBy {
			g.Key[d] = keys[gk][i]
		}
		voice := 0
		for _, a := range groups[gk] {
			voice += a.Mentions
		}
		for _, a := range groups[gk] {
			g.Brands = append(g.Brands, a.figures(voice))
		}
		slices.SortFunc(g.Brands, func(a, b BrandAggregate) int {
			ia, oka := order[foldKey(a.Name)]
			ib, okb := order[foldKey(b.Name)]
			if !oka {
				ia = len(order)
			}
			if !okb {
				ib = len(order)
			}
			return cmp.Or(cmp.Compare(ia, ib), cmp.Compare(a.Name, b.Name))
		})
		out.Groups = append(out.Groups, g)
	}
	return out
}

// figures computes a's rates and means; voice is every brand's mentions
// in its group.
func (a BrandAggregate) figures(voice int) BrandAggregate {
	a.MentionRate, a.MentionRateInterval = rate(a.mentioned, a.Answers), Wilson(a.mentioned, a.Answers)
	a.CitationRate, a.CitationRateInterval = rate(a.cited, a.Readings), Wilson(a.cited, a.Readings)
	a.ShareOfVoice, a.ShareOfVoiceInterval = rate(a.Mentions, voice), Wilson(a.Mentions, voice)
	a.AverageFirstMentionRank = rate(a.rankSum, a.ranked)
	a.AverageCitationPosition = rate(a.positionSum, a.cited)
	return a
}

// rate is k/n rounded to 4 decimals, nil when n is 0.
func rate(k, n int) *float64 {
	if n == 0 {
		return nil
	}
	r := round4(float64(k) / float64(n))
	return &r
}

// SourceReport is GET .../sources: the domains the answers cite most.
type SourceReport struct {
	// Answers are the readings with an answer in the period, in all
	// and per surface.
	Answers          int            `json:"answers"`
	AnswersBySurface map[string]int `json:"answersBySurface"`
	Domains          []SourceDomain `json:"domains"`
}

// SourceDomain is one cited registrable domain: the answers citing it
// (sources or inline citations; a web search's organic results), their
// share of all answers, whose domain it is (SourceOwn, SourceCompetitor,
// or SourceOther) and the same per surface.
type SourceDomain struct {
	Domain    string                   `json:"domain"`
	Brand     *string                  `json:"brand"`
	Kind      string                   `json:"kind"`
	Answers   int                      `json:"answers"`
	Share     float64                  `json:"share"`
	BySurface map[string]SurfaceSource `json:"bySurface"`
}

// SurfaceSource is a domain's answers and share on one surface.
type SurfaceSource struct {
	Answers int     `json:"answers"`
	Share   float64 `json:"share"`
}

// Kinds of a cited domain.
const (
	SourceOwn        = "own"
	SourceCompetitor = "competitor"
	SourceOther      = "other"
)

// Sources bounds.
const (
	DefaultSources = 50
	MaxSources     = 500
)

// Sources reports the limit domains cited by the most answers of one of
// account's monitors in sp, counted in PostgreSQL. Errors: ErrNotFound,
// Unavailable.
func (s *Service) Sources(ctx context.Context, account, id uuid.UUID, sp Span, limit int) (SourceReport, error) {
	m, err := s.db.Monitor(ctx, account, id)
	if err != nil {
		return SourceReport{}, unavailable(err)
	}
	brands, err := brandsOf(m.Brands)
	if err != nil {
		return SourceReport{}, err
	}
	sp = s.span(sp)
	rows, totals, err := s.db.SourceCounts(ctx, id, sp.From, sp.To, limit)
	if err != nil {
		return SourceReport{}, unavailable(err)
	}
	out := SourceReport{AnswersBySurface: totals, Domains: []SourceDomain{}}
	for _, n := range totals {
		out.Answers += n
	}
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.Domain]
		if !ok {
			i = len(out.Domains)
			at[r.Domain] = i
			d := SourceDomain{Domain: r.Domain, Kind: SourceOther, BySurface: map[string]SurfaceSource{}}
			for _, b := range brands {
				if MatchDomain("https://"+r.Domain+"/", b.Domains) != "" {
					d.Brand, d.Kind = &b.Name, map[bool]string{true: SourceOwn, false: SourceCompetitor}[b.Own]
					break
				}
			}
			out.Domains = append(out.Domains, d)
		}
		d := &out.Domains[i]
		d.Answers += r.Answers
		d.BySurface[r.Surface] = SurfaceSource{Answers: r.Answers, Share: share4(r.Answers, totals[r.Surface])}
	}
	for i := range out.Domains {
		out.Domains[i].Share = share4(out.Domains[i].Answers, out.Answers)
	}
	return out, nil
}

func share4(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return round4(float64(k) / float64(n))
}
