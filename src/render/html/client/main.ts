/**
 * The entry point of the page's script (bundled into one IIFE, `client.js`, by
 * scripts/bundle-client.mjs and inlined by page.ts). A failure is shown on the page, as text,
 * and marked with `data-error` on `<html>`; `data-ready` is then never set.
 */

import { boot } from "./app.js";
import { el } from "./dom.js";

boot().catch((error: unknown) => {
	const message = error instanceof Error ? error.message : String(error);
	document.documentElement.setAttribute("data-error", "true");
	const app = document.getElementById("app") ?? document.body;
	app.replaceChildren(el("pre", { class: "fatal", text: `This page could not show the session: ${message}` }));
});
