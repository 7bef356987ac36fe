package browser

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"strings"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
)

// The phone a mobile visit presents itself as: a Pixel 7 as Chrome on
// Android reports it (the reduced user agent's "Android 10; K", the
// platform and model in the client hints).
const (
	phoneWidth, phoneHeight = 412, 915
	phoneScale              = 2.625
	phoneTouchPoints        = 5
	phonePlatform           = "Linux armv8l" // navigator.platform
	phoneModel              = "Pixel 7"
	phoneAndroid            = "14.0.0"
)

// geoAccuracy is the accuracy in metres that a located visit's
// navigator.geolocation reports.
const geoAccuracy = 50

// identity is what a visit tells pages about its browser, the same in the
// user agent, the client hints (Sec-CH-UA* headers and
// navigator.userAgentData) and navigator.platform.
type identity struct {
	userAgent string
	platform  string // navigator.platform
	meta      *emulation.UserAgentMetadata
}

// desktopIdentity is the browser as it is: Chromium's own user agent
// without "Headless", on this machine's operating system and architecture,
// with the client hints that Chromium itself sends (which an overridden user
// agent drops unless they are given again).
func (b *chromium) desktopIdentity() identity {
	arch, bitness := "x86", "64"
	switch runtime.GOARCH {
	case "arm64":
		arch = "arm"
	case "386":
		bitness = "32"
	case "arm":
		arch, bitness = "arm", "32"
	}
	machine := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l"}[runtime.GOARCH]
	return identity{userAgent: b.userAgent, platform: "Linux " + machine, meta: &emulation.UserAgentMetadata{
		Brands: brands(b.version, false), FullVersionList: brands(b.version, true),
		Platform: "Linux", Architecture: arch, Bitness: bitness, FormFactors: []string{"Desktop"},
	}}
}

// mobileIdentity is Chrome of the same version on an Android phone.
func (b *chromium) mobileIdentity() identity {
	major, _, _ := strings.Cut(b.version, ".")
	ua := "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" + major + ".0.0.0 Mobile Safari/537.36"
	return identity{userAgent: ua, platform: phonePlatform, meta: &emulation.UserAgentMetadata{
		Brands: brands(b.version, false), FullVersionList: brands(b.version, true),
		Platform: "Android", PlatformVersion: phoneAndroid, Model: phoneModel, Mobile: true, FormFactors: []string{"Mobile"},
	}}
}

// brands is the brand list of Chromium at version (full, e.g.
// "156.0.8078.108") as Chromium makes it: its own brand and a "GREASE"
// brand whose spelling, version and place follow from the major version
// (user_agent_utils.cc), with full versions when full is set.
func brands(version string, full bool) []*emulation.UserAgentBrandVersion {
	majorText, _, _ := strings.Cut(version, ".")
	var major int
	fmt.Sscanf(majorText, "%d", &major)
	chars := []string{" ", "(", ":", "-", ".", "/", ")", ";", "=", "?", "_"}
	greaseVersions := []string{"8", "99", "24"}
	grease := &emulation.UserAgentBrandVersion{
		Brand:   "Not" + chars[major%len(chars)] + "A" + chars[(major+1)%len(chars)] + "Brand",
		Version: greaseVersions[major%len(greaseVersions)],
	}
	own := &emulation.UserAgentBrandVersion{Brand: "Chromium", Version: majorText}
	if full {
		grease.Version += ".0.0.0"
		own.Version = version
	}
	if major%2 == 0 {
		return []*emulation.UserAgentBrandVersion{grease, own}
	}
	return []*emulation.UserAgentBrandVersion{own, grease}
}

// present makes the tab present the identity of req's device, its
// language (Accept-Language, navigator.languages, the locale), time zone,
// and, for a located visit, its coordinates to the origin of req.URL
// alone. A mobile visit also gets the phone's screen, pixel ratio and
// touch. It returns an error wrapping kisa.Unavailable when the browser
// refuses any of them.
func (t *tab) present(req VisitRequest) error {
	id := t.b.desktopIdentity()
	if req.Mobile {
		id = t.b.mobileIdentity()
	}
	ua := emulation.SetUserAgentOverride(id.userAgent).WithUserAgentMetadata(id.meta).WithPlatform(id.platform)
	// The locale and time zone are set on every visit, empty ones too
	// (which clears them): a tab serves many visits (reuse.go).
	locale := emulation.SetLocaleOverride()
	if req.Language != "" {
		ua = ua.WithAcceptLanguage(req.Language)
		locale = locale.WithLocale(req.Language)
	}
	actions := chromedp.Tasks{ua, locale, emulation.SetTimezoneOverride(req.TimeZone)}
	if req.Mobile {
		actions = append(actions,
			emulation.SetDeviceMetricsOverride(phoneWidth, phoneHeight, phoneScale, true).
				WithScreenWidth(phoneWidth).WithScreenHeight(phoneHeight),
			emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(phoneTouchPoints))
	}
	if req.Geolocation != nil {
		geo, err := t.locate(req.URL, *req.Geolocation)
		if err != nil {
			return err
		}
		actions = append(actions, geo...)
	}
	if err := chromedp.Run(t.ctx, actions); err != nil {
		return fmt.Errorf("%w: present the browser: %w", kisa.Unavailable, err)
	}
	return nil
}

// locate returns the actions that give the page p as its position and
// grant the geolocation permission to the origin of rawURL only, in the
// tab's browser context.
func (t *tab) locate(rawURL string, p geo.Point) (chromedp.Tasks, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("browser: visit URL: %w", err)
	}
	origin := u.Scheme + "://" + u.Host
	grant := cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "geolocation"}, cdpbrowser.PermissionSettingGranted).
		WithOrigin(origin).WithBrowserContextID(t.contextID)
	return chromedp.Tasks{
		chromedp.ActionFunc(func(ctx context.Context) error {
			return grant.Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
		}),
		emulation.SetGeolocationOverride().WithLatitude(p.Latitude).WithLongitude(p.Longitude).WithAccuracy(geoAccuracy),
	}, nil
}
