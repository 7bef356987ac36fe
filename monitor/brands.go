package monitor

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a monitor's brands (watch.brands).
const (
	MaxBrands       = 20
	MaxBrandAliases = 10
	MaxBrandDomains = 10
	MaxBrandChars   = 100
)

// Brand is one brand a monitor measures in every answer: its name and
// aliases (matched as whole words or phrases, see Measure), the registrable
// domains whose citations are its own, and whether it is the account's
// own brand (Own) or a competitor's.
type Brand struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases"`
	Domains []string `json:"domains"`
	Own     bool     `json:"own"`
}

// names is the brand's name followed by its aliases.
func (b Brand) names() []string { return append([]string{b.Name}, b.Aliases...) }

// normalBrands validates and normalises a monitor's brands: names and
// aliases trimmed (an alias that folds like the name or another alias is
// dropped), domains registrable and lower-cased, at least one own brand.
// A name or alias of one brand that folds like another brand's is a
// problem at the later one's path.
func normalBrands(bs []Brand, p problems) []Brand {
	if len(bs) > MaxBrands {
		p.add("watch.brands", fmt.Sprintf("must hold at most %d brands", MaxBrands))
		return bs
	}
	out := make([]Brand, 0, len(bs))
	owner := map[string]int{} // folded name or alias -> brand index
	own := false
	for i, b := range bs {
		at := func(f string) string { return fmt.Sprintf("watch.brands[%d].%s", i, f) }
		b.Name = strings.Join(strings.Fields(b.Name), " ")
		checkBrandName(b.Name, at("name"), p)
		if len(b.Aliases) > MaxBrandAliases {
			p.add(at("aliases"), fmt.Sprintf("must hold at most %d aliases", MaxBrandAliases))
		}
		aliases := []string{}
		seen := map[string]bool{foldKey(b.Name): true}
		for j, a := range b.Aliases {
			a = strings.Join(strings.Fields(a), " ")
			if !checkBrandName(a, fmt.Sprintf("%s[%d]", at("aliases"), j), p) || seen[foldKey(a)] {
				continue
			}
			seen[foldKey(a)] = true
			aliases = append(aliases, a)
		}
		b.Aliases = aliases
		for k := range seen {
			if j, ok := owner[k]; ok && k != "" {
				p.add(at("name"), fmt.Sprintf("a name or alias repeats one of watch.brands[%d]", j))
			}
			owner[k] = i
		}
		if len(b.Domains) > MaxBrandDomains {
			p.add(at("domains"), fmt.Sprintf("must hold at most %d domains", MaxBrandDomains))
		}
		b.Domains = registrableList(b.Domains, at("domains"), p)
		own = own || b.Own
		out = append(out, b)
	}
	if len(out) > 0 && !own {
		p.add("watch.brands", "must mark at least one brand as the account's own (\"own\": true)")
	}
	return out
}

// checkBrandName adds the problem of a brand's name or alias at path;
// false when it has one.
func checkBrandName(s, path string, p problems) bool {
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		p.add(path, "must not be empty")
	case n > MaxBrandChars:
		p.add(path, fmt.Sprintf("must be at most %d characters, got %d", MaxBrandChars, n))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		p.add(path, "must not contain control characters")
	case foldKey(s) == "" || !slices.ContainsFunc([]rune(foldKey(s)), isWordRune):
		p.add(path, "must contain a letter or a digit")
	default:
		return true
	}
	return false
}

// foldKey is s folded as Match folds text (case, accents, width).
func foldKey(s string) string { return string(fold(s).runes) }

// registrableList normalises a list of registrable domains at path
// (watch.domains' rules), dropping repeats.
func registrableList(ds []string, path string, p problems) []string {
	out := []string{}
	seen := map[string]bool{}
	for i, d := range ds {
		reg, ok := Registrable(d)
		if !ok || reg != strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".") {
			p.add(fmt.Sprintf("%s[%d]", path, i), "must be a registrable domain, e.g. example.com (its subdomains match too)")
			continue
		}
		if !seen[reg] {
			seen[reg] = true
			out = append(out, reg)
		}
	}
	return out
}
