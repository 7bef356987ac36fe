// page.js is what the browser asks the results page, in the page itself.
// It is one function of the selectors of package serp (PageSelectors, one
// JSON object) and a question (the Ask* constants); it returns the answer
// as JSON data. It names no selector of its own: every one comes from sel,
// and a test fails if it uses one it is not given.
(sel, question) => {
  const q = (s) => document.querySelector(s);
  switch (question) {
    case "inspect":
      return { url: location.href, consent: !!q(sel.consentRejectForm), captcha: !!q(sel.captchaForm) };
    case "rejectConsent": {
      const form = q(sel.consentRejectForm);
      if (!form) return false;
      const button = form.querySelector(sel.consentSubmit);
      if (button) button.click(); else form.submit();
      return true;
    }
    case "overview": {
      // "" while an overview is announced (its block, or its heading) but
      // empty or the page still loads; "absent" when the loaded page has
      // none; else the length and a hash of its text, to see it settle.
      const body = q(sel.overviewBody);
      const text = body ? body.textContent : "";
      const announced = !!q(sel.overviewContainer) ||
        [...document.querySelectorAll(sel.overviewHeading)].some((h) => sel.overviewHeadings.includes(h.textContent.trim()));
      if (!text.trim()) return announced || document.readyState !== "complete" ? "" : "absent";
      let hash = 0;
      for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
      return text.length + ":" + hash;
    }
    case "collapsed":
      return !!q(sel.showMoreCollapsed);
    case "expanded":
      return q(sel.showMore)?.getAttribute("aria-expanded") === "true";
    case "overviewArea": {
      // The overview block in page pixels, for a screenshot of all of it.
      const box = q(sel.overviewContainer);
      if (!box) return null;
      const r = box.getBoundingClientRect();
      return r.width && r.height ? { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height } : null;
    }
    case "conversation": {
      // AI Mode: whether the prompt box is there, how many turns the page
      // shows, whether one is still streaming, and the length and a hash
      // of the last turn's answer text, to see it settle.
      const turns = document.querySelectorAll(sel.aiModeTurn);
      const last = turns.length ? turns[turns.length - 1].querySelector(sel.answerSubtree) : null;
      const text = last ? last.textContent : "";
      let hash = 0;
      for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
      return { box: !!q(sel.aiModeFollowUp), turns: turns.length, busy: !!q(sel.aiModeStreaming),
        sig: text.trim() ? text.length + ":" + hash : "" };
    }
    case "pageArea":
      return { x: 0, y: 0, width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight };
  }
  throw new Error("page.js: unknown question " + question);
}
