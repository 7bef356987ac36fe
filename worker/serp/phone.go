package serp

// PhoneSourceLink is one website of the overview's list of sources on the
// phone's results page of 2026 (modelled on kjellberg/serp_parser's real
// page of 18 February 2026, spec/files/google/2026-02-18-mobile-smhi-
// nykyrka-motala.html): the aimc answer sits in the 2025 generation's
// column, and its sources are not a side panel but a list inside the
// overview block ("show all", filled by the page's script), each entry an
// empty link (li.ZZh6Vb a.KEVENd) beside the site's name (.R8BTeb); the
// title, favicon and date of an entry come from the page's records of the
// same URL. readSources reads it where the page has neither the side
// panel nor labelled entries.
const PhoneSourceLink = `li a.KEVENd[href]`

// SourceCardLink is the link of one card of the overview's list of
// sources on the phone's results page of April 2026 (kjellberg/
// serp_parser's real page of 19 April 2026, testdata/phone-aio-armhang-
// 2026.html): the list is a [role=list] inside the answer's column, each
// card a [role=listitem] whose empty link is labelled by the card's title
// element (aria-labelledby), beside the snippet with its date ("24 jan.
// 2022 — ...") and the site's name. readSources reads it where the page
// has none of the other lists; a card's title is the page's record of the
// same URL, else the element that labels the link.
const SourceCardLink = `[role="listitem"] a[href][aria-labelledby]`
