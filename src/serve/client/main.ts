/**
 * The script of the sessions and search pages (bundled into one IIFE by
 * scripts/bundle-serve-client.mjs, inlined by src/serve/pages.ts). `<body data-page>` says
 * which page; a failure is shown as text.
 */

import { listPage } from "./list.js";
import { searchPage } from "./search.js";

const app = document.getElementById("app") ?? document.body;
const page = document.body.getAttribute("data-page");
(page === "search" ? searchPage(app) : listPage(app)).catch((error: unknown) => {
	document.documentElement.setAttribute("data-error", "true");
	const pre = document.createElement("pre");
	pre.textContent = `This page failed: ${error instanceof Error ? error.message : String(error)}`;
	app.replaceChildren(pre);
});
