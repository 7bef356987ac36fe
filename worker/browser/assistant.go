package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/assistants"
	"github.com/kisa-dev/kisa/worker/serp"
)

// The AI assistants' mode (ModeAssistant) is AI Mode's conversation
// (conversation.go) generalised by each engine's hooks
// (assistants.Hooks): open the start page, dismiss what a person can
// dismiss, type each prompt in the composer, submit it, and wait until
// the page says the answer is finished; then open the sources panel where
// the engine hides the sources, and read.

//go:embed assistant.js
var assistantJS string

// Steps of an assistant's visit that VisitResult.Steps times besides
// StepAsk.
const (
	StepDismiss = "dismiss"
	StepSources = "sources"
)

// composerWait bounds the wait for the composer to show on a loaded page
// (and for a sources panel to open once clicked).
const composerWait = 10 * time.Second

// assistantState is what assistant.js answers to "state".
type assistantState struct {
	Composer  bool   `json:"composer"`
	Answers   int    `json:"answers"`
	Streaming bool   `json:"streaming"`
	Stop      bool   `json:"stop"`
	Finished  bool   `json:"finished"`
	Sig       string `json:"sig"`
	Blocked   string `json:"blocked"`
	Error     bool   `json:"error"`
	Nag       bool   `json:"nag"`
	Sources   bool   `json:"sources"`
}

// pageHooks is what assistant.js gets of an engine's hooks.
type pageHooks struct {
	assistants.Hooks
	HumanCheck       string
	HumanCheckTitles []string
}

// EvidenceError is a visit refused by the page (kisa.Blocked: a human
// check, a sign-in wall, a usage limit; kisa.Unavailable: the engine's
// own error) with what the page showed, kept as evidence.
type EvidenceError struct {
	// URL, HTML and FullPage are the page's address, its HTML and a
	// screenshot of the whole page (nil when it could not be taken).
	URL, HTML string
	FullPage  []byte
	Err       error
}

// Error tells the refusal.
func (e *EvidenceError) Error() string { return e.Err.Error() }

// Unwrap returns the refusal (wrapping kisa.Blocked or kisa.Unavailable).
func (e *EvidenceError) Unwrap() error { return e.Err }

// assist performs a ModeAssistant visit on the loaded page.
func (v *visit) assist() (VisitResult, error) {
	st, err := v.awaitComposer()
	if err != nil {
		return VisitResult{}, err
	}
	v.settled = true
	for i, prompt := range v.req.Prompts {
		if !st.Composer || !v.settled {
			break
		}
		if err := v.timed(StepAsk, func() error { return v.askAssistant(i, prompt, &st) }); err != nil {
			return VisitResult{}, err
		}
	}
	if !st.Composer {
		v.settled = true // no composer: the page is read (and refused) as it is
		if err := v.capture(kisa.ShotBeforeSubmit); err != nil {
			return VisitResult{}, err
		}
	}
	if err := v.timed(StepSources, v.openSources); err != nil {
		return VisitResult{}, err
	}
	if err := v.timed(StepScreenshots, func() error { return v.captureArea(kisa.ShotResponse, serp.AskPageArea) }); err != nil {
		return VisitResult{}, err
	}
	return v.result()
}

// awaitComposer waits until the start page shows its composer, dismissing
// a cookie banner and a sign-in nag on the way; a page that refuses the
// visit ends it with an EvidenceError.
func (v *visit) awaitComposer() (assistantState, error) {
	var st assistantState
	expr, err := v.pageExpr("state")
	if err != nil {
		return st, err
	}
	_, err = v.watch(composerWait, expr, &st, func(now time.Time) (bool, time.Time, error) {
		if st.Blocked != "" || st.Error {
			return true, time.Time{}, nil
		}
		if st.Nag {
			if err := v.timed(StepDismiss, v.dismiss); err != nil {
				return false, time.Time{}, err
			}
			return false, now.Add(pollEvery), nil // and look again, changed or not
		}
		return st.Composer, time.Time{}, nil
	})
	if err != nil {
		return st, err
	}
	return st, v.refused(st)
}

// askAssistant types prompt i in the composer, submits it and waits for
// its answer; st is the page's state before and after.
func (v *visit) askAssistant(i int, prompt string, st *assistantState) error {
	sel := v.req.Hooks.Composer
	if err := chromedp.Run(v.ctx, chromedp.Focus(sel, chromedp.ByQuery), chromedp.ActionFunc(func(ctx context.Context) error {
		return input.InsertText(prompt).Do(ctx)
	})); err != nil {
		return fmt.Errorf("type prompt %d: %w", i+1, err)
	}
	if i == 0 {
		if err := v.capture(kisa.ShotBeforeSubmit); err != nil {
			return err
		}
	}
	before := st.Answers
	var sent bool
	if err := v.askPage("send", &sent); err != nil {
		return fmt.Errorf("submit prompt %d: %w", i+1, err)
	}
	if !sent {
		if err := chromedp.Run(v.ctx, chromedp.SendKeys(sel, kb.Enter, chromedp.ByQuery)); err != nil {
			return fmt.Errorf("submit prompt %d: %w", i+1, err)
		}
	}
	answered, err := v.awaitAssistant(before+1, st)
	if err != nil {
		return err
	}
	if err := v.refused(*st); err != nil {
		return err
	}
	v.settled = answered
	return nil
}

// awaitAssistant waits until the page shows answers answers and says the
// last is finished: no streaming sign in its turn, no stop control, and
// its finish sign (the action bar); on a page that never shows the sign,
// once its text has been unchanged for SettleQuiet (the fallback). It
// ends early on a page that refuses the visit, and reports false when
// AnswerWait passes first.
func (v *visit) awaitAssistant(answers int, st *assistantState) (bool, error) {
	var last string
	var since time.Time
	wait := v.p.cfg.AnswerWait
	if wait == 0 {
		wait = v.p.cfg.OverviewWait
	}
	expr, err := v.pageExpr("state")
	if err != nil {
		return false, err
	}
	var c assistantState
	return v.watch(wait, expr, &c, func(now time.Time) (bool, time.Time, error) {
		*st = c
		if c.Blocked != "" || (c.Error && c.Answers < answers) {
			return true, time.Time{}, nil
		}
		if c.Sig != last {
			last, since = c.Sig, now
		}
		if c.Answers < answers || c.Streaming || c.Stop || c.Sig == "" {
			return false, time.Time{}, nil
		}
		quiet := since.Add(max(v.p.cfg.SettleQuiet, quietFallback))
		return c.Finished || !now.Before(quiet), quiet, nil
	})
}

// quietFallback is the least quiet period that ends an answer whose page
// shows no finish sign: the assistants pause longer than Google between
// chunks.
const quietFallback = 3 * time.Second

// refused returns the EvidenceError of a page that refuses the visit: a
// human check, a sign-in wall or a usage limit (kisa.Blocked), or the
// engine's own error in place of an answer (kisa.Unavailable); nil for
// any other page.
func (v *visit) refused(st assistantState) error {
	var err error
	switch {
	case st.Blocked != "":
		err = fmt.Errorf("%w: %s showed %s", kisa.Blocked, v.req.Hooks.Engine, st.Blocked)
	case st.Error:
		err = fmt.Errorf("%w: %s answered with its own error", kisa.Unavailable, v.req.Hooks.Engine)
	default:
		return nil
	}
	v.log.Warn("page refused the visit", "err", err)
	ev := &EvidenceError{Err: err}
	if rerr := chromedp.Run(v.ctx, chromedp.Evaluate(`location.href`, &ev.URL),
		chromedp.Evaluate(`document.documentElement.outerHTML`, &ev.HTML)); rerr != nil {
		return errors.Join(err, fmt.Errorf("read refused page: %w", rerr))
	}
	ev.URL = redact(ev.URL)
	ev.FullPage, _ = v.captureFullPage()
	return ev
}

// dismiss clicks away the cookie banner and the sign-in nag.
func (v *visit) dismiss() error {
	var n int
	if err := v.askPage("dismiss", &n); err != nil {
		return fmt.Errorf("dismiss: %w", err)
	}
	v.log.Debug("dismissed", "controls", n)
	return nil
}

// openSources opens the last answer's sources panel where the engine
// hides it behind a control, and waits for it (at most composerWait); a
// control that is not there or does not open is logged, not an error.
func (v *visit) openSources() error {
	if v.req.Hooks.SourcesControl == "" {
		return nil
	}
	var clicked bool
	if err := v.askPage("sources", &clicked); err != nil || !clicked {
		return err
	}
	expr, err := v.pageExpr("state")
	if err != nil {
		return err
	}
	var st assistantState
	open, err := v.watch(composerWait, expr, &st, func(time.Time) (bool, time.Time, error) {
		return st.Sources, time.Time{}, nil
	})
	if err == nil && !open {
		v.log.Warn("sources panel did not open; reading the page as it is")
	}
	return err
}

// askPage asks assistant.js question q with the visit's hooks.
func (v *visit) askPage(q string, out any) error {
	expr, err := v.pageExpr(q)
	if err != nil {
		return err
	}
	return chromedp.Run(v.ctx, chromedp.Evaluate(expr, out))
}

// pageExpr is the JavaScript expression that asks assistant.js question
// q with the visit's hooks.
func (v *visit) pageExpr(q string) (string, error) {
	h, err := json.Marshal(pageHooks{Hooks: *v.req.Hooks, HumanCheck: assistants.HumanCheck, HumanCheckTitles: assistants.HumanCheckTitles})
	if err != nil {
		return "", err
	}
	qs, _ := json.Marshal(q)
	return assistantJS + "(" + string(h) + "," + string(qs) + ")", nil
}
