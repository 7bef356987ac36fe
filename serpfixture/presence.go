package serpfixture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/kisa-dev/kisa/geo"
)

// PresenceQuery is answered with the results page of any other query plus
// a report of what the browser told: the search request's headers and the
// uule it carried (server side, in <script id="kisa-headers">), and what
// the page can read about the browser (its script writes JSON into
// <pre id="kisa-presence"> and sets data-done="1" once the asynchronous
// parts, the high-entropy client hints, the permissions and the position,
// are in).
const PresenceQuery = "what does my browser tell"

// Seen is what the fixture saw of the last /search request of a query
// that it answered with a results page.
type Seen struct {
	UserAgent, AcceptLanguage string
	// ClientHints are the Sec-CH-UA, Sec-CH-UA-Mobile and
	// Sec-CH-UA-Platform headers.
	ClientHints [3]string
	// Location is the decoded uule; the zero Location without one.
	Location geo.Location
	// Mobile: the mobile results page was served.
	Mobile bool
}

// Seen returns what the fixture saw of the last results-page request of
// query (compared in its NormaliseQuery form), and whether there was one.
func (s *Server) Seen(query string) (Seen, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.seen[NormaliseQuery(query)]
	return v, ok
}

// see records a results-page request of a normalised query.
func (s *Server) see(key string, r *http.Request) Seen {
	v := Seen{UserAgent: r.UserAgent(), AcceptLanguage: r.Header.Get("Accept-Language"), Mobile: isMobile(r.Header),
		ClientHints: [3]string{r.Header.Get("Sec-CH-UA"), r.Header.Get("Sec-CH-UA-Mobile"), r.Header.Get("Sec-CH-UA-Platform")}}
	if u := r.URL.Query().Get("uule"); u != "" {
		if loc, err := geo.Decode(u); err == nil {
			v.Location = loc
		} else {
			s.log.Warn("serp fixture: bad uule", "err", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[key] = v
	return v
}

// chromeVersion finds the major version in a Chrome user agent.
var chromeVersion = regexp.MustCompile(`(?:Headless)?Chrome/(\d+)\.`)

// automated says why a request that claims to be Chrome looks automated,
// "" when it does not: a headless user agent or brand, or, from a secure
// context (where Chromium sends client hints: https, or a loopback host as
// in tests), no client hints, brands without the user agent's version, a
// mobile or platform hint that contradicts the user agent. Requests that
// do not claim to be Chrome (plain HTTP clients in tests) are not judged.
func automated(r *http.Request) string {
	h := r.Header
	ua := h.Get("User-Agent")
	m := chromeVersion.FindStringSubmatch(ua)
	hints := h.Get("Sec-CH-UA")
	switch {
	case m == nil:
		return ""
	case strings.Contains(ua, "Headless") || strings.Contains(hints, "Headless"):
		return "headless"
	case !trustworthy(r):
		return ""
	case hints == "":
		return "no client hints"
	case !strings.Contains(hints, `;v="`+m[1]+`"`):
		return "client hints of another version"
	case (h.Get("Sec-CH-UA-Mobile") == "?1") != uaMobile(ua):
		return "mobile hint contradicts the user agent"
	case h.Get("Sec-CH-UA-Platform") != `"`+uaPlatform(ua)+`"`:
		return "platform hint contradicts the user agent"
	}
	return ""
}

// trustworthy reports whether r comes to a potentially trustworthy
// origin, the only ones Chromium sends client hints to: over TLS, or to
// localhost or a loopback address.
func trustworthy(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// uaMobile reports whether a user agent is a phone's.
func uaMobile(ua string) bool {
	return strings.Contains(ua, "Android") || strings.Contains(ua, "Mobile")
}

// uaPlatform is the client-hint platform that a user agent implies.
func uaPlatform(ua string) string {
	switch {
	case strings.Contains(ua, "Android"):
		return "Android"
	case strings.Contains(ua, "Windows"):
		return "Windows"
	case strings.Contains(ua, "Macintosh"):
		return "macOS"
	case strings.Contains(ua, "CrOS"):
		return "Chrome OS"
	case strings.Contains(ua, "Linux"), strings.Contains(ua, "X11"):
		return "Linux"
	}
	return "Unknown"
}

// isMobile reports whether a request comes from a phone: its mobile hint,
// or a phone's user agent.
func isMobile(h http.Header) bool {
	return h.Get("Sec-CH-UA-Mobile") == "?1" || uaMobile(h.Get("User-Agent"))
}

// presenceCheck is the script at the top of every generated results page
// (unless Options.AllowAutomated): what the page reads must agree with
// itself, else it goes to the CAPTCHA page, as the search engine's own
// scripts do. It checks navigator.webdriver (false, not undefined), the
// client hints against the user agent (version, mobile, platform),
// navigator.platform against the platform hint, and touch against mobile;
// the client hints only in a secure context, the only one that has them.
const presenceCheck = `<script>(function () {
  var n = navigator, d = n.userAgentData, ua = n.userAgent, why = "";
  var m = /Chrome\/(\d+)\./.exec(ua);
  var platform = /Android/.test(ua) ? "Android" : /Windows/.test(ua) ? "Windows" : /Macintosh/.test(ua) ? "macOS" :
    /CrOS/.test(ua) ? "Chrome OS" : /Linux|X11/.test(ua) ? "Linux" : "Unknown";
  var navPlatform = {Android: /^Linux (arm|aarch)/, Linux: /^Linux (x86|i686|aarch|arm)/, Windows: /^Win32$/, macOS: /^MacIntel$/};
  if (n.webdriver !== false) why = "webdriver";
  else if (!window.isSecureContext) why = "";
  else if (m && !d) why = "no userAgentData";
  else if (m && !d.brands.some(function (b) { return b.version === m[1] && !/Headless/.test(b.brand); })) why = "brands";
  else if (d && d.mobile !== /Android|Mobile/.test(ua)) why = "mobile";
  else if (d && d.platform !== platform) why = "platform";
  else if (d && navPlatform[platform] && !navPlatform[platform].test(n.platform)) why = "navigator.platform";
  else if (d && d.mobile !== (n.maxTouchPoints > 0)) why = "touch";
  if (why) location.replace("/sorry/index?continue=" + encodeURIComponent(location.href) + "&why=" + encodeURIComponent(why));
})();</script>
`

// withPresenceCheck puts presenceCheck first in page's head.
func withPresenceCheck(page []byte) []byte {
	i := bytes.Index(page, []byte("<head>"))
	if i < 0 {
		return page
	}
	i += len("<head>")
	return bytes.Join([][]byte{page[:i], []byte(presenceCheck), page[i:]}, nil)
}

// presenceReport is the script of PresenceQuery's page that reads what a
// page can read about the browser.
const presenceReport = `<pre id="kisa-presence" hidden></pre>
<script>(function () {
  var n = navigator, out = {
    userAgent: n.userAgent, webdriver: n.webdriver, platform: n.platform, languages: n.languages, language: n.language,
    locale: Intl.DateTimeFormat().resolvedOptions().locale, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    outerWidth: window.outerWidth, outerHeight: window.outerHeight, innerWidth: window.innerWidth, innerHeight: window.innerHeight,
    screenWidth: screen.width, screenHeight: screen.height, devicePixelRatio: window.devicePixelRatio,
    maxTouchPoints: n.maxTouchPoints, touchEvents: "ontouchstart" in window, chrome: typeof window.chrome,
    notification: typeof Notification === "undefined" ? "none" : Notification.permission
  };
  var d = n.userAgentData;
  out.brands = d ? d.brands : null;
  out.mobile = d ? d.mobile : null;
  out.hintPlatform = d ? d.platform : null;
  function perm(name) {
    return n.permissions.query({name: name}).then(function (p) { return p.state; }, function () { return "error"; });
  }
  function position() {
    return new Promise(function (resolve) {
      n.geolocation.getCurrentPosition(function (p) { resolve({latitude: p.coords.latitude, longitude: p.coords.longitude}); },
        function (e) { resolve({error: e.code}); }, {timeout: 2000});
    });
  }
  Promise.all([
    d ? d.getHighEntropyValues(["fullVersionList", "platformVersion", "architecture", "bitness", "model"]) : null,
    perm("notifications"), perm("geolocation")
  ]).then(function (r) {
    out.highEntropy = r[0];
    out.notificationPermission = r[1];
    out.geolocationPermission = r[2];
    return r[2] === "granted" ? position() : null;
  }).then(function (p) {
    out.position = p;
    var pre = document.getElementById("kisa-presence");
    pre.textContent = JSON.stringify(out);
    pre.setAttribute("data-done", "1");
  });
})();</script>
`

// withPresenceReport adds the report of what the browser told before the
// end of page's body: the request's headers as the server saw them, and
// the script that reads the rest in the page.
func withPresenceReport(page []byte, seen Seen) ([]byte, error) {
	headers, err := json.Marshal(seen)
	if err != nil {
		return nil, fmt.Errorf("encode seen headers: %w", err)
	}
	// Inside a script element, "</" must not appear.
	headers = bytes.ReplaceAll(headers, []byte("</"), []byte(`<\/`))
	add := append(fmt.Appendf(nil, "<script type=\"application/json\" id=\"kisa-headers\">%s</script>\n", headers), presenceReport...)
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return append(page, add...), nil
	}
	return bytes.Join([][]byte{page[:i], add, page[i:]}, nil), nil
}
