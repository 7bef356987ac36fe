package serpfixture

import (
	"net/url"
	"strings"
)

// link is one website the fixture cites: in chips, the side panel and the
// organic results.
type link struct {
	Title, Snippet, Site, URL string
}

// item is one list item: an optional bold lead, its text and the links
// (indexes into overview.Links) behind the chip at its end.
type item struct {
	Lead, Text string
	Cites      []int
}

// blockSpec is one block of an overview: a paragraph ("p"), a heading
// ("h") or a bulleted list ("ul") of Items. Cites are the links behind the
// chip at the end of a paragraph.
type blockSpec struct {
	Kind  string
	Text  string
	Cites []int
	Items []item
}

// overview is the content of one fixture overview. Links are the side
// panel's websites in order; the first sidePanelShown are visible at once.
type overview struct {
	Blocks []blockSpec
	Links  []link
	// Opaque links every website through the engine's /goto redirect;
	// Dates are the dates their cards show, by website ("" for none).
	Opaque bool
	Dates  []string
}

// sidePanelShown is how many side panel websites show before "Show all".
const sidePanelShown = 3

// words are the interface strings of the results page in one language.
type words struct {
	Lang, Heading, ShowMore, ShowMoreLabel, ShowAll, ShowAllLabel string
	Close, ChipLabel, OpensNewTab, SearchLabel, TitleSuffix       string
	Tabs                                                          []string
	About, Disclaimer                                             string
	// AIMode is the link to continue in AI Mode, Feedback the label of
	// the feedback control; both sit in the overview block, outside its
	// answer.
	AIMode, Feedback string
}

// wordsFor returns the interface strings for hl: German for "de" and its
// regional forms, those of Languages for theirs, English otherwise.
func wordsFor(hl string) words {
	if l, ok := languageOf(hl); ok {
		return l.words
	}
	if isGerman(hl) {
		return words{
			Lang: "de", Heading: "Übersicht mit KI", ShowMore: "Mehr anzeigen",
			ShowMoreLabel: "Mehr anzeigen: Übersicht mit KI", ShowAll: "Alle anzeigen",
			ShowAllLabel: "Alle zugehörigen Links anzeigen", Close: "Schließen",
			ChipLabel: "Ähnliche Links ansehen", OpensNewTab: ". Wird in neuem Tab geöffnet.",
			SearchLabel: "Suche", TitleSuffix: " - Google Suche",
			Tabs:       []string{"Alle", "Bilder", "Videos", "News", "Shopping", "Maps"},
			About:      "Ungefähr 1.240.000 Ergebnisse (0,41 Sekunden)",
			Disclaimer: "KI-Antworten können Fehler enthalten.",
			AIMode:     "Im KI-Modus weiter recherchieren", Feedback: "Feedback geben",
		}
	}
	return words{
		Lang: "en", Heading: "AI Overview", ShowMore: "Show more",
		ShowMoreLabel: "Show more AI Overview", ShowAll: "Show all",
		ShowAllLabel: "Show all related links", Close: "Close",
		ChipLabel: "View related links", OpensNewTab: ". Opens in new tab.",
		SearchLabel: "Search", TitleSuffix: " - Google Search",
		Tabs:       []string{"All", "Images", "Videos", "News", "Shopping", "Maps"},
		About:      "About 1,240,000 results (0.41 seconds)",
		Disclaimer: "AI responses may include mistakes.",
		AIMode:     "Dive deeper in AI Mode", Feedback: "Give feedback",
	}
}

// isGerman reports whether hl asks for German ("de", "de-DE", ...).
func isGerman(hl string) bool {
	hl = strings.ToLower(hl)
	return hl == "de" || strings.HasPrefix(hl, "de-") || strings.HasPrefix(hl, "de_")
}

// overviewFor returns the overview for a normalised query in language hl.
func overviewFor(query, hl string) overview {
	ov := contentFor(query, hl)
	if strings.Contains(query, OpaqueQuery) {
		ov = withOpaqueLinks(ov)
	}
	return ov
}

// contentFor is the overview of a normalised query in language hl before
// its links are made opaque.
func contentFor(query, hl string) overview {
	if l, ok := languageOf(hl); ok {
		return l.generic.overview(query, l.words.Lang)
	}
	if isGerman(hl) {
		if query == "warum ist der himmel blau" {
			return skyGerman()
		}
		return genericGerman(query)
	}
	if query == "why is the sky blue" {
		return skyEnglish()
	}
	return genericEnglish(query)
}

// skyEnglish is the overview of "why is the sky blue" in English.
func skyEnglish() overview {
	return overview{
		Blocks: []blockSpec{
			{Kind: "p", Cites: []int{0, 1, 3}, Text: "The sky is blue because of Rayleigh scattering: as sunlight passes through the atmosphere, its short blue wavelengths are scattered by nitrogen and oxygen molecules far more than its longer red wavelengths, so blue light reaches our eyes from every direction of the sky."},
			{Kind: "h", Text: "How it works:"},
			{Kind: "ul", Items: []item{
				{Lead: "Sunlight", Text: "White sunlight contains all colours, each with its own wavelength."},
				{Lead: "Scattering", Text: "Molecules much smaller than the wavelength scatter short wavelengths most strongly, in inverse proportion to the fourth power of the wavelength.", Cites: []int{1, 3}},
				{Lead: "Our eyes", Text: "Violet is scattered even more, but the Sun emits less of it and our eyes are more sensitive to blue, so the sky looks blue rather than violet.", Cites: []int{2, 4}},
			}},
			{Kind: "h", Text: "Why sunsets are red:"},
			{Kind: "p", Cites: []int{5, 0}, Text: "At sunrise and sunset, light travels through much more air, so most of the blue light is scattered away before it reaches you, leaving the reds and oranges."},
		},
		Links: []link{
			{"Why Is the Sky Blue? | NASA Space Place", "A clear cloudless day-time sky is blue because molecules in the air scatter blue light from the Sun more than they scatter red light...", "NASA Space Place", "https://spaceplace.nasa.gov/blue-sky/en/"},
			{"Rayleigh scattering - Wikipedia", "Rayleigh scattering is the scattering or deflection of light by particles much smaller than the wavelength of the radiation...", "Wikipedia", "https://en.wikipedia.org/wiki/Rayleigh_scattering"},
			{"Why is the sky blue? | Royal Museums Greenwich", "The sky is blue because of the way sunlight interacts with the gases in our atmosphere...", "Royal Museums Greenwich", "https://www.rmg.co.uk/stories/topics/why-sky-blue"},
			{"Blue Sky and Rayleigh Scattering - HyperPhysics", "The blue color of the sky is caused by the scattering of sunlight off the molecules of the atmosphere...", "HyperPhysics", "http://hyperphysics.phy-astr.gsu.edu/hbase/atmos/blusky.html"},
			{"Why is the Sky Blue? | National Weather Service", "The sunlight reaching our eyes has a high ratio of short, bluish wavelengths compared to medium and long wavelengths...", "National Weather Service (.gov)", "https://www.weather.gov/fgz/SkyBlue"},
			{"Why is the sky blue? - Met Office", "At sunset the light has to travel further through the atmosphere before it gets to you, so more of the blue is scattered away...", "Met Office", "https://www.metoffice.gov.uk/weather/learn-about/weather/optical-effects/why-is-the-sky-blue"},
		},
	}
}

// skyGerman is the overview of "warum ist der himmel blau" in German.
func skyGerman() overview {
	return overview{
		Blocks: []blockSpec{
			{Kind: "p", Cites: []int{0, 1}, Text: "Der Himmel ist blau, weil das Sonnenlicht an den Molekülen der Luft gestreut wird: Kurzwelliges blaues Licht wird dabei viel stärker abgelenkt als langwelliges rotes Licht (Rayleigh-Streuung), sodass uns aus allen Richtungen des Himmels blaues Licht erreicht."},
			{Kind: "h", Text: "So funktioniert es:"},
			{Kind: "ul", Items: []item{
				{Lead: "Sonnenlicht", Text: "Weißes Sonnenlicht enthält alle Farben des Spektrums."},
				{Lead: "Streuung", Text: "Stickstoff- und Sauerstoffmoleküle streuen kurze Wellenlängen besonders stark, umgekehrt proportional zur vierten Potenz der Wellenlänge.", Cites: []int{1, 4}},
				{Lead: "Unsere Augen", Text: "Violettes Licht wird noch stärker gestreut, doch unsere Augen sind für Blau empfindlicher, daher sehen wir den Himmel blau.", Cites: []int{3}},
			}},
			{Kind: "h", Text: "Warum das Abendrot rot ist:"},
			{Kind: "p", Cites: []int{2, 0}, Text: "Bei tiefem Sonnenstand ist der Weg des Lichts durch die Atmosphäre länger, sodass das blaue Licht größtenteils herausgestreut wird und vor allem rote und orange Töne übrig bleiben."},
		},
		Links: []link{
			{"Warum ist der Himmel blau? - Planet Wissen", "Das Licht der Sonne wird in der Atmosphäre an den Luftmolekülen gestreut, blaues Licht dabei am stärksten...", "Planet Wissen", "https://www.planet-wissen.de/natur/wetter/warum_ist_der_himmel_blau/"},
			{"Rayleigh-Streuung – Wikipedia", "Die Rayleigh-Streuung ist die elastische Streuung elektromagnetischer Wellen an Teilchen, deren Durchmesser klein im Vergleich zur Wellenlänge ist...", "Wikipedia", "https://de.wikipedia.org/wiki/Rayleigh-Streuung"},
			{"Warum ist der Himmel blau? | Deutscher Wetterdienst", "Morgens und abends muss das Sonnenlicht einen längeren Weg durch die Atmosphäre zurücklegen...", "Deutscher Wetterdienst", "https://www.dwd.de/DE/wetter/thema_des_tages/himmel_blau.html"},
			{"Warum ist der Himmel blau? - Spektrum der Wissenschaft", "Violettes Licht wird zwar noch stärker gestreut, doch unser Auge ist dafür weniger empfindlich...", "Spektrum der Wissenschaft", "https://www.spektrum.de/frage/warum-ist-der-himmel-blau/"},
			{"Himmelsblau und Abendrot - LEIFIphysik", "Die Intensität des Streulichts ist umgekehrt proportional zur vierten Potenz der Wellenlänge...", "LEIFIphysik", "https://www.leifiphysik.de/optik/lichtstreuung/himmelsblau-und-abendrot"},
		},
	}
}

// genericEnglish is the stand-in overview of any other English query.
func genericEnglish(q string) overview {
	return overview{
		Blocks: []blockSpec{
			{Kind: "p", Cites: []int{0, 1}, Text: "“" + q + "” is answered by the kisa fixture search server with this stand-in overview, so that the worker can be tested without a real search engine."},
			{Kind: "h", Text: "What this page offers:"},
			{Kind: "ul", Items: []item{
				{Lead: "Streaming", Text: "The overview appears after a short delay and grows in several steps."},
				{Lead: "Citations", Text: "Chips in the text list their links in hidden JSON comments, as on the real page.", Cites: []int{1, 2}},
				{Lead: "Sources", Text: "The side panel shows three websites at first and lists the others on request.", Cites: []int{3, 4}},
			}},
			{Kind: "p", Cites: []int{0}, Text: "Search for “why is the sky blue” for a written example, or “why are frogs green” for a real captured page."},
		},
		Links: searchLinks(q, "en"),
	}
}

// genericGerman is the stand-in overview of any other German query.
func genericGerman(q string) overview {
	return overview{
		Blocks: []blockSpec{
			{Kind: "p", Cites: []int{0, 1}, Text: "„" + q + "“ beantwortet der Fixture-Suchserver von kisa mit dieser Platzhalter-Übersicht, damit sich der Worker ohne echte Suchmaschine testen lässt."},
			{Kind: "h", Text: "Was diese Seite bietet:"},
			{Kind: "ul", Items: []item{
				{Lead: "Streaming", Text: "Die Übersicht erscheint nach einer kurzen Verzögerung und wächst in mehreren Schritten."},
				{Lead: "Quellenangaben", Text: "Chips im Text führen ihre Links in versteckten JSON-Kommentaren auf, wie auf der echten Seite.", Cites: []int{1, 2}},
				{Lead: "Quellen", Text: "Die Seitenleiste zeigt zunächst drei Websites und die übrigen auf Wunsch.", Cites: []int{3, 4}},
			}},
			{Kind: "p", Cites: []int{0}, Text: "Suchen Sie nach „warum ist der himmel blau“ für ein ausformuliertes Beispiel."},
		},
		Links: searchLinks(q, "de"),
	}
}

// searchLinks are the websites of a stand-in overview: search pages of
// well-known sites for the query.
func searchLinks(q, lang string) []link {
	e := url.QueryEscape(q)
	wiki := "https://" + lang + ".wikipedia.org/w/index.php?search=" + e
	return []link{
		{q + " - Wikipedia", "Search results for " + q + " in the free encyclopedia.", "Wikipedia", wiki},
		{q + " | Britannica", "Articles, images and videos about " + q + ".", "Britannica", "https://www.britannica.com/search?query=" + e},
		{q + " - Khan Academy", "Free lessons about " + q + ".", "Khan Academy", "https://www.khanacademy.org/search?page_search_query=" + e},
		{q + " : r/explainlikeimfive", "Discussions about " + q + ".", "Reddit", "https://www.reddit.com/search/?q=" + e},
		{q + " - YouTube", "Videos about " + q + ".", "YouTube", "https://www.youtube.com/results?search_query=" + e},
	}
}
