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
