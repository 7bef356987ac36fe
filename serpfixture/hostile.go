package serpfixture

import (
	"bytes"
	"fmt"
	"strings"
)

// HostileQuery is a query whose results page (with its overview) also
// tries to reach Options.HostileTarget in every way a page can: an image,
// an iframe, fetch, a popup, a download, a meta refresh after 1 s and a
// location change after 1.5 s. A contained browser lets none of them
// through and still sees the overview.
const HostileQuery = "hostile overview"

// hostileMarkup returns what the hostile page adds to the end of its
// body, every request aimed at http://target.
func hostileMarkup(target string) []byte {
	t := "http://" + target
	return fmt.Appendf(nil, `<meta http-equiv="refresh" content="1;url=%[1]s/meta">
<img src="%[1]s/img" alt="" width="1" height="1">
<iframe src="%[1]s/frame" width="1" height="1"></iframe>
<a id="hostile-download" href="%[1]s/download.bin" download>download</a>
<script>
fetch(%[2]q, {mode: "no-cors"}).catch(() => {});
window.open(%[3]q);
document.getElementById("hostile-download").click();
setTimeout(() => { location.href = %[4]q; }, 1500);
</script>
`, t, t+"/fetch", t+"/popup", t+"/location")
}

// withHostile adds the hostile markup before the end of page's body.
func withHostile(page []byte, target string) []byte {
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return append(page, hostileMarkup(target)...)
	}
	out := make([]byte, 0, len(page)+1024)
	out = append(out, page[:i]...)
	out = append(out, hostileMarkup(target)...)
	return append(out, page[i:]...)
}

// isHostile reports whether a normalised query asks for the hostile page.
func isHostile(key string) bool { return strings.Contains(key, HostileQuery) }
