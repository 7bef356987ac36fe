package monitor

import (
	"encoding/json"
	"strconv"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
)

// brandDetail is one brand's stored detail: citation positions and the
// byte range of its first mention's sentence in the reading's text.
type brandDetail struct {
	C []int   `json:"c,omitempty"`
	P *[2]int `json:"p,omitempty"`
}

// storedFigures is fs as storage keeps them for version of the brands:
// arrays for the aggregates, the rest in the detail of the brands that
// have any.
func storedFigures(fs []BrandFigures, version int) (storage.BrandFigures, error) {
	out := storage.BrandFigures{Version: &version, Mentions: make(storage.IntList, len(fs)),
		Ranks: make(storage.IntList, len(fs)), Cited: make(storage.IntList, len(fs))}
	detail := map[string]brandDetail{}
	for i, f := range fs {
		out.Mentions[i] = f.Mentions
		if f.FirstMentionRank != nil {
			out.Ranks[i] = *f.FirstMentionRank
		}
		var d brandDetail
		if len(f.CitationPositions) > 0 {
			out.Cited[i] = f.CitationPositions[0]
			d.C = f.CitationPositions
		}
		if f.Passage != nil {
			p := f.PassageAt
			d.P = &p
		}
		if d.C != nil || d.P != nil {
			detail[strconv.Itoa(i)] = d
		}
	}
	b, err := json.Marshal(detail)
	if err != nil {
		return out, kisa.Fail(kisa.Internal, "", err)
	}
	out.Detail = b
	return out, nil
}

// figuresOf reads the stored figures of a reading whose text is text,
// measured against brands (the version it names); nil when it was not
// measured.
func figuresOf(st storage.BrandFigures, brands []Brand, text string) ([]BrandFigures, error) {
	if st.Version == nil {
		return nil, nil
	}
	detail := map[string]brandDetail{}
	if len(st.Detail) > 0 {
		if err := json.Unmarshal(st.Detail, &detail); err != nil {
			return nil, kisa.Fail(kisa.Internal, "", err)
		}
	}
	out := make([]BrandFigures, 0, len(brands))
	for i, b := range brands {
		f := BrandFigures{Name: b.Name, Own: b.Own, CitationPositions: []int{}}
		if i < len(st.Mentions) {
			f.Mentions = st.Mentions[i]
			f.Mentioned = f.Mentions > 0
		}
		if i < len(st.Ranks) && st.Ranks[i] > 0 {
			r := st.Ranks[i]
			f.FirstMentionRank = &r
		}
		if d, ok := detail[strconv.Itoa(i)]; ok {
			if d.C != nil {
				f.CitationPositions = d.C
			}
			if d.P != nil {
				f.PassageAt = *d.P
				f.Passage = passageOf(text, f.PassageAt)
			}
		}
		f.Cited = len(f.CitationPositions) > 0
		out = append(out, f)
	}
	return out, nil
}
