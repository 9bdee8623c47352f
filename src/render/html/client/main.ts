/**
 * The entry point of the page's script (bundled into one IIFE, `client.js`, by
 * scripts/bundle-client.mjs and inlined by page.ts). A failure is shown on the page, as text,
 * and marked with `data-error` on `<html>`; `data-ready` is then never set. A page that
 * `session-tree serve` serves (its view options name the server) also gets the live tail and
 * the served tools (live.ts).
 */

import { servedView } from "./actions.js";
import { boot } from "./app.js";
import { readViewOptions } from "./data.js";
import { el } from "./dom.js";
import { bootServed } from "./live.js";

const view = readViewOptions();
const served = servedView(view.server);
(served ? bootServed(view, served) : boot()).catch((error: unknown) => {
	const message = error instanceof Error ? error.message : String(error);
	document.documentElement.setAttribute("data-error", "true");
	const app = document.getElementById("app") ?? document.body;
	app.replaceChildren(el("pre", { class: "fatal", text: `This page could not show the session: ${message}` }));
});
