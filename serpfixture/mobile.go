package serpfixture

import "bytes"

// mobileStyle lays a generated results page out for a phone, which a
// mobile request (isMobile) gets: one column, a compact search bar and
// tab row, and the overview's sources below its answer instead of beside
// it, each source a row across the screen. The organic results are in the
// phone's markup (organic.go: titles are div[role=heading], not h3, as on
// the real phone pages of 2023 to 2026); the overview's markup stays the
// desktop page's, and its extraction depends on the overview's structure,
// not on the viewport.
const mobileStyle = `<style id="kisa-mobile">
#searchform{padding:8px 12px;gap:12px}
#searchform form{height:40px}
.logo{font-size:22px}
#hdtb{padding:0 12px;overflow-x:auto;gap:16px}
#search{padding:0 12px 24px;max-width:none}
.aio-cols{flex-direction:column;gap:12px}
.aio-aside{flex:none;width:100%}
.EyBRub{border-radius:0;margin:0 -12px 16px;padding:12px}
.Ww4FFb{border-bottom:1px solid #ebebeb;padding:12px 0}
.UBFage{display:block;text-decoration:none;color:#1a0dab}
.GkAmnd{color:#202124;font-size:14px;margin-right:6px}
.ob9lvb{color:#4d5156;font-size:12px}
.F0FGWb{font-size:18px;line-height:24px;margin-top:4px}
.dURPMd .video .F0FGWb{font-size:16px}
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
