package browser

import (
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

// StepAsk times a conversation's prompts: typing each, and waiting for
// its answer to finish streaming.
const StepAsk = "ask"

// conversation is what page.js answers to serp.AskConversation.
type conversation struct {
	Box    bool   `json:"box"`
	Turns  int    `json:"turns"`
	Busy   bool   `json:"busy"`
	Done   bool   `json:"done"`
	Marked bool   `json:"marked"`
	Sig    string `json:"sig"`
}

// converse performs a ModeConversation visit on the loaded page: it asks
// each prompt in the prompt box and waits for its answer (the first
// submission navigates to the answer's page), takes the beforeSubmit
// screenshot with the first prompt typed and the response screenshot of
// the whole page at the end. A page without a prompt box (AI Mode not
// offered) is read as it is. The visit is settled when every prompt was
// answered in full within OverviewWait each; once one is not, the rest are
// not asked.
func (v *visit) converse() (VisitResult, error) {
	st, err := v.conversation()
	if err != nil {
		return VisitResult{}, err
	}
	v.settled = true
	for i, prompt := range v.req.Prompts {
		if !st.Box || !v.settled {
			break
		}
		if err := v.timed(StepAsk, func() error { return v.ask1(i, prompt, &st) }); err != nil {
			return VisitResult{}, err
		}
	}
	if !st.Box && len(v.req.Prompts) > 0 {
		v.settled = true // nothing to ask: the page is what it is
		if err := v.capture(kisa.ShotBeforeSubmit); err != nil {
			return VisitResult{}, err
		}
	}
	if err := v.timed(StepScreenshots, func() error { return v.captureArea(kisa.ShotResponse, serp.AskPageArea) }); err != nil {
		return VisitResult{}, err
	}
	return v.result()
}

// ask1 types prompt i, submits it and waits for its answer; st is the
// conversation's state before and after. The first submission leaves the
// start page: the page it leads to is checked for the CAPTCHA.
func (v *visit) ask1(i int, prompt string, st *conversation) error {
	if err := chromedp.Run(v.ctx, chromedp.SendKeys(serp.AIModeFollowUp, prompt, chromedp.ByQuery)); err != nil {
		return fmt.Errorf("type prompt %d: %w", i+1, err)
	}
	if i == 0 {
		if err := v.capture(kisa.ShotBeforeSubmit); err != nil {
			return err
		}
	}
	before := st.Turns
	if err := chromedp.Run(v.ctx, chromedp.SendKeys(serp.AIModeFollowUp, kb.Enter, chromedp.ByQuery)); err != nil {
		return fmt.Errorf("submit prompt %d: %w", i+1, err)
	}
	answered, err := v.awaitAnswer(before+1, st)
	if err != nil {
		return err
	}
	if i == 0 {
		if err := v.checkBlocked(); err != nil {
			return err
		}
	}
	v.settled = answered
	return nil
}

// awaitAnswer waits until the page shows turns turns and says the last
// answer is whole: not streaming (serp.AIModeStreaming, a "Generating"
// status) and with a non-empty text, and either showing its feedback
// buttons (serp.AIModeAnswerActions) or, having shown it streaming, no
// longer doing so. An answer outside the answer subtree that carries those
// buttons (markup of no known structure) falls back on its text being
// unchanged for SettleQuiet. It reports false when OverviewWait passes
// first (or the part of the visit's deadline left for it, answerWait). The
// page is watched in the page (watch): read when it changes, at most every
// pollEvery; one that cannot be read while it navigates is read again a
// tick later.
func (v *visit) awaitAnswer(turns int, st *conversation) (bool, error) {
	var last string
	var since time.Time
	streamed := false // the answer was seen streaming
	var c conversation
	done, err := v.watch(v.answerWait(), serp.PageScript(serp.AskConversation), &c, func(now time.Time) (bool, time.Time, error) {
		*st = c
		if c.Sig != last {
			last, since = c.Sig, now
		}
		switch {
		case c.Turns < turns || c.Busy || c.Sig == "":
			streamed = streamed || c.Turns >= turns && c.Busy
			return false, time.Time{}, nil
		case c.Done || streamed:
			return true, time.Time{}, nil
		case c.Marked:
			return false, time.Time{}, nil // its end is the feedback buttons, not a quiet period
		}
		quiet := since.Add(v.p.cfg.SettleQuiet)
		return !now.Before(quiet), quiet, nil
	})
	if err == nil && !done {
		v.log.Warn("answer not finished within the wait", "waited", v.p.cfg.OverviewWait, "turns", st.Turns,
			"busy", st.Busy, "answer", st.Sig != "")
	}
	return done, err
}

// finishReserve is what a conversation keeps of its visit's deadline for
// the last screenshot and reading the page.
const finishReserve = 5 * time.Second

// answerWait is how long the next answer may take: OverviewWait, or less
// when the visit's deadline comes sooner (a conversation of several slow
// answers), so that it ends with what the page shows, incomplete, rather
// than past its deadline with nothing.
func (v *visit) answerWait() time.Duration {
	wait := v.p.cfg.OverviewWait
	if deadline, ok := v.ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline)-finishReserve)
	}
	return max(wait, 0)
}

// conversation reads the conversation's state; an error means the page
// cannot be read.
func (v *visit) conversation() (conversation, error) {
	var c conversation
	if err := v.ask(serp.AskConversation, &c); err != nil {
		return c, fmt.Errorf("read conversation: %w", err)
	}
	return c, nil
}

// checkBlocked returns an error wrapping kisa.Blocked when the page is the
// CAPTCHA page.
func (v *visit) checkBlocked() error {
	st, err := v.inspect()
	if err != nil {
		return err
	}
	if st.captcha {
		v.log.Warn("blocked by CAPTCHA page", "at", redact(st.url))
		return fmt.Errorf("%w: %s", kisa.Blocked, redact(st.url))
	}
	return nil
}

// captureArea takes the screenshot called name of the area page.js
// answers to question, when the request asked for screenshots.
func (v *visit) captureArea(name, question string) error {
	if !v.req.Screenshots {
		return nil
	}
	png, err := v.shootArea(name, question)
	if err != nil {
		return err
	}
	v.shots[name] = png
	return nil
}
