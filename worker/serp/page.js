// page.js is what the browser asks the results page, in the page itself.
// It is one function of the selectors of package serp (PageSelectors, one
// JSON object) and a question (the Ask* constants); it returns the answer
// as JSON data. It names no selector of its own: every one comes from sel,
// and a test fails if it uses one it is not given.
(sel, question, arg) => {
  const q = (s) => document.querySelector(s);
  // norm compares phrases: white space collapsed, lower case, without
  // final full stops or an ellipsis.
  const norm = (s) => s.replace(/\s+/g, " ").trim().replace(/(\.|\u2026)+$/, "").toLowerCase();
  const statuses = sel.overviewStatuses.map(norm);
  // texts returns the text nodes under root, leaving out the subtrees of
  // elements that match skip (when given).
  const texts = (root, skip) => {
    const out = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => n.nodeType !== 1 ? NodeFilter.FILTER_ACCEPT :
        skip && n.matches(skip) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP,
    });
    for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n.data);
    return out;
  };
  // showsStatus reports whether root holds a status line of
  // sel.overviewStatuses ("Generating...").
  const showsStatus = (root) => texts(root).some((t) => statuses.includes(norm(t)));
  // sigOf is the length and a hash of text, "" when it is blank.
  const sigOf = (text) => {
    if (!text.trim()) return "";
    let hash = 0;
    for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
    return text.length + ":" + hash;
  };
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
    case "overviewChange":
      // Waits for the overview to change from arg.last, the state this
      // question answered before, or for arg.waitMs to pass, and answers
      // the state then: {sig, loaded, marked, busy, notice} (see
      // OverviewState). The answer's text leaves out what is never
      // content (sel.notContent: headings, status lines, hidden parts),
      // so that a "Generating" status is no answer.
      return new Promise((resolve) => {
        const notices = sel.overviewNotices.map(norm);
        const state = () => {
          const box = q(sel.overviewContainer);
          const heads = [...document.querySelectorAll(sel.overviewHeading)];
          const named = heads.find((h) => sel.overviewHeadings.includes(h.textContent.trim()));
          const status = heads.find((h) => statuses.includes(norm(h.textContent)));
          const block = box || (named || status)?.parentElement;
          const body = q(sel.overviewBody);
          const text = body ? texts(body, sel.notContent).join("") : "";
          const busy = !!status || !!block && (block.matches(sel.overviewBusy) || !!block.querySelector(sel.overviewBusy) || showsStatus(block));
          // The engine renders one of its notices (hidden until then) when
          // it gives up on the answer, in any language.
          const shown = !!block && [...block.querySelectorAll(sel.overviewNotice)]
            .some((n) => n.getClientRects().length > 0 && !!norm(n.textContent));
          const st = { sig: sigOf(text), loaded: !!box && box.matches(sel.overviewLoaded), marked: !!box, busy,
            notice: notices.includes(norm(text)) || shown };
          if (!st.sig && !block && document.readyState === "complete") st.sig = "absent";
          return st;
        };
        const same = (a, b) => !!b && ["sig", "loaded", "marked", "busy", "notice"].every((k) => a[k] === b[k]);
        let done = false, queued = false, timer = 0;
        const finish = (st) => {
          done = true;
          clearTimeout(timer);
          observer.disconnect();
          document.removeEventListener("readystatechange", check);
          resolve(st);
        };
        const check = () => {
          queued = false;
          if (done) return;
          const st = state();
          if (!same(st, arg.last)) finish(st);
        };
        // Mutations come in bursts; one check per turn of the event loop.
        const later = () => { if (!queued) { queued = true; setTimeout(check, 0); } };
        const observer = new MutationObserver(later);
        observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
        document.addEventListener("readystatechange", check);
        timer = setTimeout(() => { if (!done) finish(state()); }, arg.waitMs);
        check();
      });
    case "collapsed":
      return !!q(sel.showMoreCollapsed);
    case "expandedChange":
      // Waits until the show-more control says it is expanded, or for
      // arg.waitMs to pass, and answers whether it is.
      return new Promise((resolve) => {
        const open = () => q(sel.showMore)?.getAttribute("aria-expanded") === "true";
        if (open()) return resolve(true);
        const observer = new MutationObserver(() => {
          if (open()) { observer.disconnect(); clearTimeout(timer); resolve(true); }
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-expanded"] });
        const timer = setTimeout(() => { observer.disconnect(); resolve(open()); }, arg.waitMs);
      });
    case "showMoreBox": {
      // The collapsed show-more control's centre in viewport pixels after
      // scrolling it into view, or null when there is none or it is not
      // rendered (a control nobody can click).
      const c = q(sel.showMoreCollapsed);
      if (!c) return null;
      c.scrollIntoView({ block: "center" });
      const r = c.getBoundingClientRect();
      return r.width && r.height ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
    }
    case "overviewArea": {
      // The overview block in page pixels, for a screenshot of all of it.
      const box = q(sel.overviewContainer);
      if (!box) return null;
      const r = box.getBoundingClientRect();
      return r.width && r.height ? { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height } : null;
    }
    case "conversation": {
      // AI Mode: whether the prompt box is there, how many turns the page
      // shows, whether one is still streaming (marked busy, or the last
      // one shows a status line such as "Generating..."), whether the
      // last answer shows its feedback buttons (sel.aiModeActions, the
      // page's sign that it is whole), whether that answer stands in the
      // answer subtree that shows them, and the length and a hash of the
      // last turn's answer text, to see it change.
      const turns = document.querySelectorAll(sel.aiModeTurn);
      const turn = turns.length ? turns[turns.length - 1] : null;
      const last = turn ? turn.querySelector(sel.answerSubtree) : null;
      return { box: !!q(sel.aiModeFollowUp), turns: turns.length,
        busy: !!q(sel.aiModeStreaming) || !!turn && showsStatus(turn),
        done: !!last && !!last.querySelector(sel.aiModeActions), marked: !!last,
        sig: sigOf(last ? last.textContent : "") };
    }
    case "followLinks":
      // Requests each of arg.urls (the engine's opaque redirects) from the
      // page, with its cookies, for the browser to learn where each one
      // points; answers how many answered before arg.waitMs passed. The
      // browser stops every request a redirect leads to: no target loads.
      return new Promise((resolve) => {
        let n = 0;
        const all = arg.urls.map((u) => fetch(u, { credentials: "include", cache: "no-store", mode: "no-cors" })
          .then(() => n++, () => n++));
        Promise.all(all).then(() => resolve(n));
        setTimeout(() => resolve(n), arg.waitMs);
      });
    case "pageArea":
      return { x: 0, y: 0, width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight };
  }
  throw new Error("page.js: unknown question " + question);
}
