package browser

import (
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

// passConsent submits the consent page's reject-all form, waits for the
// page it leads back to, and saves the browser context's cookies for the
// tabs to come. It returns that page's state, and an error wrapping
// kisa.Unavailable when the consent page does not go away.
func (v *visit) passConsent() (pageState, error) {
	js := fmt.Sprintf(`(() => {
		const f = document.querySelector(%s);
		if (!f) return false;
		const b = f.querySelector('button, input[type="submit"]');
		if (b) b.click(); else f.submit();
		return true;
	})()`, jsString(serp.ConsentRejectForm))
	if _, err := chromedp.RunResponse(v.ctx, chromedp.Evaluate(js, nil)); err != nil {
		return pageState{}, fmt.Errorf("%w: reject consent: %w", kisa.Unavailable, err)
	}
	st, err := v.inspect()
	if err != nil {
		return pageState{}, err
	}
	if st.consent {
		return st, fmt.Errorf("%w: consent page still shown after rejecting", kisa.Unavailable)
	}
	if err := v.saveCookies(); err != nil {
		return st, err
	}
	v.log.Info("consent passed", "consents", v.p.consents.Add(1))
	return st, nil
}

// saveCookies copies every cookie of the tab's incognito browser context
// into the pool, for later tabs. It returns an error wrapping
// kisa.Unavailable when the browser does not answer.
func (v *visit) saveCookies() error {
	browser := chromedp.FromContext(v.ctx).Browser
	cookies, err := storage.GetCookies().
		WithBrowserContextID(v.tab.contextID).
		Do(cdp.WithExecutor(v.ctx, browser))
	if err != nil {
		return fmt.Errorf("%w: read cookies: %w", kisa.Unavailable, err)
	}
	v.p.setCookies(cookieParams(cookies))
	return nil
}

// setCookies sets the saved consent cookies in the tab. It returns an
// error wrapping kisa.Unavailable when the browser does not take them.
func (v *visit) setCookies() error {
	jar := v.p.cookies()
	if len(jar) == 0 {
		return nil
	}
	if err := chromedp.Run(v.ctx, network.SetCookies(jar)); err != nil {
		return fmt.Errorf("%w: set cookies: %w", kisa.Unavailable, err)
	}
	return nil
}

// cookieParams turns cookies read from the browser into the parameters
// that set them again in another browser context. Session cookies stay
// session cookies.
func cookieParams(cookies []*network.Cookie) []*network.CookieParam {
	params := make([]*network.CookieParam, 0, len(cookies))
	for _, c := range cookies {
		p := &network.CookieParam{
			Name:         c.Name,
			Value:        c.Value,
			Domain:       c.Domain,
			Path:         c.Path,
			Secure:       c.Secure,
			HTTPOnly:     c.HTTPOnly,
			SameSite:     c.SameSite,
			Priority:     c.Priority,
			SourceScheme: c.SourceScheme,
			SourcePort:   c.SourcePort,
			PartitionKey: c.PartitionKey,
		}
		if !c.Session && c.Expires > 0 {
			exp := cdp.TimeSinceEpoch(time.Unix(0, int64(c.Expires*float64(time.Second))))
			p.Expires = &exp
		}
		params = append(params, p)
	}
	return params
}
