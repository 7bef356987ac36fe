package serp

import (
	"net/url"
	"strings"
)

// IsCaptchaURL reports whether pageURL is the address of the "unusual
// traffic" page: its path starts with CaptchaPath. The page itself is
// recognised in the browser by CaptchaForm.
func IsCaptchaURL(pageURL string) bool {
	u, err := url.Parse(pageURL)
	return err == nil && strings.HasPrefix(u.Path, CaptchaPath)
}
