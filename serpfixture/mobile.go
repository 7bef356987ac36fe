package serpfixture

import "bytes"

// mobileStyle lays a generated results page out for a phone, which a
// mobile request (isMobile) gets: one column, a compact search bar and
// tab row, and the overview's sources below its answer instead of beside
// it, each source a row across the screen. The markup, and so what the
// worker reads, stays the desktop page's: no real mobile results page
// with an AI overview could be found to model finer differences on, and
// the extraction must depend on the overview's structure, not on the
// viewport.
const mobileStyle = `<style id="kisa-mobile">
#searchform{padding:8px 12px;gap:12px}
#searchform form{height:40px}
.logo{font-size:22px}
#hdtb{padding:0 12px;overflow-x:auto;gap:16px}
#search{padding:0 12px 24px;max-width:none}
.aio-cols{flex-direction:column;gap:12px}
.aio-aside{flex:none;width:100%}
.EyBRub{border-radius:0;margin:0 -12px 16px;padding:12px}
</style>
`

// withMobileStyle adds mobileStyle at the end of page's head and marks
// the body as a phone's.
func withMobileStyle(page []byte) []byte {
	page = bytes.Replace(page, []byte("<body>"), []byte(`<body data-device="mobile">`), 1)
	i := bytes.Index(page, []byte("</head>"))
	if i < 0 {
		return page
	}
	return bytes.Join([][]byte{page[:i], []byte(mobileStyle), page[i:]}, nil)
}
