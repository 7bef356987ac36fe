// Package serpfixture is a stand-in for the search engine, for tests and
// the offline demo: an http.Handler serving results pages with the same
// markup hooks as the real one (see worker/serp/selectors.go), so that the
// worker's browser code meets what it meets in the wild.
//
// Routes:
//
//	GET  /search?q=&hl=&gl=[&final=1]  results page (see the rules below)
//	GET  /search?udm=50[&q=&hl=&gl=][&final=1&fu=...]  AI Mode (below)
//	GET  /aimode/turn?q=&hl=&n=        JSON of a follow-up turn, for AI Mode's follow-up box
//	GET  /sorry/index?continue=        the captured CAPTCHA page, status 429
//	GET  /consent?continue=&gl=&hl=    the consent interstitial
//	POST /save                         records consent in the SOCS cookie, 303 to continue
//	GET  /__visits[?q=]                visit and consent counters as JSON
//	PUT  /__variants                   {"query", "variant"}: replace a query's answer (Server.SetVariant)
//	GET  /healthz                      200 "ok"
//	GET  /                             a search box
//
// Rules of /search, applied to the query lower-cased with its white space
// collapsed (NormaliseQuery), in this order:
//
//   - empty query: 302 to /.
//   - a request that claims to be Chrome but looks automated (a headless
//     user agent or brand; on https or loopback hosts, where Chromium
//     sends them, client hints missing or disagreeing with the user
//     agent): 302 to /sorry/index, counted as a visit, unless
//     Options.AllowAutomated. Generated results pages also check, in their
//     first script, what the page reads (navigator.webdriver must be
//     false, userAgentData must agree with the user agent,
//     navigator.platform and touch with the hints) and go to /sorry/index
//     otherwise (see presence.go).
//   - Options.Consent on and no SOCS cookie: 302 to
//     /consent?continue=<this URL>&gl=&hl=; not a visit. The consent page
//     has the real page's two forms posting to /save: "Reject all"
//     (hidden set_eom=true) and "Accept all" (set_sc=true, set_aps=true,
//     set_eom=false), each with hidden gl, hl and continue; German for
//     hl=de ("Bevor Sie zu Google weitergehen", "Alle ablehnen",
//     "Alle akzeptieren").
//   - a query with a variant (Server.SetVariant, PUT /__variants): its
//     overview, no overview or the CAPTCHA, instead of the rules below.
//   - contains "captcha": 302 to /sorry/index?continue=<this URL>.
//   - exactly "why are frogs green" (RealPageQuery): the real captured,
//     already expanded page, served as is whatever hl says.
//   - exactly "mobile app development" (Real2025PageQuery): the real
//     captured page of the 2025 generation, collapsed, served as is.
//   - "captured page NAME" (CapturedQuery): the page NAME of package
//     captured as saved, to any device (404 for no such page).
//   - exactly "google" or "hotels" (RealWebQueries): a real captured
//     desktop results page of 2023 without an AI overview, served as is;
//     to a phone, the same query's real phone page (RealPhoneWebQueries).
//   - contains "stalled stream", "unknown markup", "searching
//     placeholder" or "generate button" (StalledQuery...): an overview
//     that stops streaming half-way, one in markup no generation knows,
//     and placeholders that never fill.
//   - contains "no overview", or is one of "facebook login", "youtube",
//     "weather", "wetter": a results page without an overview.
//   - contains "hostile overview" (HostileQuery) and Options.HostileTarget
//     is set: the results page with an overview, which also tries to reach
//     that host in every way a page can (see HostileQuery).
//   - anything else: a results page with an overview, in German when hl
//     is "de" (or "de-XX"); in Portuguese, French, Spanish, Italian,
//     Dutch, Polish, Japanese, Chinese, Arabic or Hebrew for theirs (with
//     that language's real interface strings, languages.go); else in
//     English. "why is the sky blue" (en)
//     and "warum ist der himmel blau" (de) have written overviews; other
//     queries get a stand-in overview naming the query.
//
// AI Mode (aimode.go): without a query, the start page with its prompt
// box (a textarea; Enter asks); in a country of AIModeUnavailable (FR)
// the notice "AI Mode isn't available in your country" (French for
// hl=fr); else the conversation with the query's turn, whose answer
// streams in over Options.OverviewDelay (aria-busy and a "Generating..."
// status line until whole, then its feedback buttons), with citation chips, a side panel of sources
// with "Show all", a link beyond its sources, and the follow-up box: a
// prompt asked there appends a turn that streams the same way.
// ?final=1 (and fu= for each follow-up) serves the finished state, as
// FinalAIModePage. Queries with "captcha", StalledQuery and UnknownQuery
// behave as on the results page. An AI Mode page with a query counts as a
// visit of that query.
//
// Every results page has its organic results among the modules that are
// not organic results (organic.go): a top and a bottom ad, "People also
// ask", videos and a local pack, the organic list and the headed modules
// in one wrapper below #rso (as on the pages of 2026), organic links
// through the redirect /url?q=<target>&sa=U.
//
// A phone's request (Sec-CH-UA-Mobile ?1 or a phone's user agent) gets a
// generated page laid out for a phone (mobile.go), its results in the
// phone's markup (titles are div[role=heading] inside the link). A uule parameter is
// decoded (package geo) and kept with the request's headers for
// Server.Seen; PresenceQuery's page reports both, and what its script
// reads about the browser.
//
// Every /search request that serves a results page or the CAPTCHA
// redirect counts as one visit of its query (Server.Visits).
//
// An overview page behaves like the real one in a browser: the block
// first shows an empty "loading" state (with Options.Generating, for that
// long and with the engine's "Generating" status in its heading); after
// 40% of Options.OverviewDelay a script appends the answer block by block,
// then the side panel, until the delay has passed (with Options.Pause, in
// bursts with silences of that length); then the collapsed "Show more"
// control appears (aria-expanded="false") and the block is marked
// data-loaded. The query parameters delay, generating and pause override
// these options for one page (Stream). The whole answer is in the DOM from then on,
// clipped by CSS; clicking the control sets aria-expanded="true" and
// unclips it. The streamed chunks are exactly the markup of the final
// page, which ?final=1 and FinalPage serve directly.
package serpfixture
