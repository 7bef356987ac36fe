function (h, base) {
	// The fixture's single-page behaviour of an assistant's site, driven
	// by the engine's hooks h: the state is the prompts asked so far and
	// whether the sources panel is open; each change renders the page
	// again on the server (base + "render") and swaps the body.
	const st = { prompts: [], streaming: false, sources: false, cookie: true, nag: true };
	let timer = null;
	const show = html => {
		const doc = new DOMParser().parseFromString(html, "text/html");
		if (!st.cookie && h.CookieReject) doc.querySelectorAll(h.CookieReject).forEach(b => dropBanner(b));
		if (!st.nag && h.SignInDismiss) doc.querySelectorAll(h.SignInDismiss).forEach(b => dropBanner(b));
		document.title = doc.title;
		document.body.innerHTML = doc.body.innerHTML;
	};
	const dropBanner = el => {
		const box = el.closest('[role="dialog"], [role="region"], [data-testid="cookie-banner"], mat-dialog-container, #onetrust-banner-sdk, form');
		(box || el).remove();
	};
	const render = async () => {
		const q = new URLSearchParams();
		st.prompts.forEach(p => q.append("p", p));
		if (st.streaming) q.set("streaming", "1");
		if (st.sources) q.set("sources", "1");
		const t = await (await fetch(base + "render?" + q.toString(), { cache: "no-store" })).json();
		if (t.notice) { location.href = t.notice; return null; }
		show(t.html);
		return t;
	};
	const send = async () => {
		const box = document.querySelector(h.Composer);
		if (!box || st.streaming) return;
		const text = ("value" in box ? box.value : box.innerText).trim();
		if (!text) return;
		st.prompts.push(text);
		st.streaming = true;
		st.sources = false;
		const t = await render();
		if (!t || t.stall) return;
		clearTimeout(timer);
		timer = setTimeout(() => { st.streaming = false; render(); }, t.delay);
	};
	document.addEventListener("click", e => {
		const el = e.target;
		if (!el.closest) return;
		if (h.CookieReject && el.closest(h.CookieReject)) { e.preventDefault(); st.cookie = false; dropBanner(el.closest(h.CookieReject)); return; }
		if (h.SignInDismiss && el.closest(h.SignInDismiss)) { e.preventDefault(); st.nag = false; dropBanner(el.closest(h.SignInDismiss)); return; }
		if (h.Send && el.closest(h.Send)) { e.preventDefault(); send(); return; }
		if (h.SourcesControl && el.closest(h.SourcesControl)) { e.preventDefault(); st.sources = true; render(); }
	}, true);
	document.addEventListener("keydown", e => {
		if (e.key === "Enter" && !e.shiftKey && e.target.closest && e.target.closest(h.Composer)) { e.preventDefault(); send(); }
	}, true);
	document.addEventListener("submit", e => e.preventDefault(), true);
}
