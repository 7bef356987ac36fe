// The AI assistants' pages, driven by their hooks (worker/assistants'
// Hooks, given as h with HumanCheck and HumanCheckTitles added) and asked
// one question q at a time: "state" reads where the conversation is,
// "dismiss" clicks away a cookie banner and a dismissable sign-in nag,
// "send" submits the composer, "sources" opens the last answer's sources
// panel. Nothing here knows an engine's markup.
(function (h, q) {
	const one = (sel, root) => (sel ? (root || document).querySelector(sel) : null);
	const all = (sel, root) => (sel ? Array.from((root || document).querySelectorAll(sel)) : []);
	const lastOf = list => list[list.length - 1] || null;
	const usable = el => el && !el.disabled && el.getAttribute("aria-disabled") !== "true";
	switch (q) {
	case "state": {
		const last = lastOf(all(h.Turn));
		const answer = lastOf(all(h.Answer));
		const text = answer ? answer.textContent : "";
		const title = (document.title || "").trim();
		let blocked = "";
		if (one(h.HumanCheck) || h.HumanCheckTitles.some(t => title.startsWith(t))) blocked = "a human check";
		else if (one(h.SignInWall)) blocked = "a sign-in wall";
		else if (one(h.UsageLimit)) blocked = "a usage limit";
		return {
			composer: !!one(h.Composer),
			answers: all(h.Answer).length,
			streaming: !!(last && one(h.Streaming, last)),
			stop: !!one(h.Stop),
			finished: !!(last && one(h.Finished, last)),
			sig: answer ? text.length + ":" + text.slice(-80) : "",
			blocked: blocked,
			error: !!one(h.ErrorState),
			nag: !!one(h.CookieReject) || !!one(h.SignInDismiss),
			sources: !!one(h.SourcesPanel),
		};
	}
	case "dismiss": {
		let n = 0;
		for (const sel of [h.CookieReject, h.SignInDismiss]) {
			const el = one(sel);
			if (el) { el.click(); n++; }
		}
		return n;
	}
	case "send": {
		const b = one(h.Send);
		if (!usable(b)) return false;
		b.click();
		return true;
	}
	case "sources": {
		if (one(h.SourcesPanel)) return true;
		const c = lastOf(all(h.SourcesControl));
		if (!c) return false;
		c.click();
		return true;
	}
	}
	return null;
})
