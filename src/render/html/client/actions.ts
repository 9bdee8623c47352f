/**
 * The top bar's tools of a served session page (live.ts): whether the live tail is connected,
 * the downloads, the command that resumes the session in its agent, and on a writable session
 * the actions on the selected entry (label, continue from here, fork) and on the session
 * (name), each posted as JSON to the server, which runs it through the Session facade
 * (src/serve/actions.ts). What the server sends back is shown as text.
 */

import { isObject } from "../../../core/validate.js";
import type { Selection } from "./app.js";
import { el } from "./dom.js";

/** The served view options the page needs, checked. */
export interface ServedView {
	key: string;
	writable: boolean;
	events: string;
	actions: string;
	downloads: { jsonl: string; html: string; md: string };
	resume: string | null;
	/** Where the records are fetched, and the build the page was served with (data.ts `fetchSessionData`). */
	records: string | null;
	build: string;
}

/** The served view options, or undefined when they are not all there. */
export function servedView(value: Record<string, unknown> | undefined): ServedView | undefined {
	if (!value) return undefined;
	const { key, writable, events, actions, downloads, resume, records, build } = value;
	if (typeof key !== "string" || typeof events !== "string" || typeof actions !== "string") return undefined;
	if (!isObject(downloads)) return undefined;
	const link = (name: string) => (typeof downloads[name] === "string" ? (downloads[name] as string) : "");
	return {
		key,
		writable: writable === true,
		events,
		actions,
		downloads: { jsonl: link("jsonl"), html: link("html"), md: link("md") },
		resume: typeof resume === "string" ? resume : null,
		records: typeof records === "string" ? records : null,
		build: typeof build === "string" ? build : "",
	};
}

/** The tools, and how live.ts reports the tail's state. */
export interface ServedTools {
	elements: HTMLElement[];
	setLive(live: boolean): void;
}

/** Posts an action; resolves to the answer's JSON, or throws with the server's message. */
async function post(url: string, body: object): Promise<Record<string, unknown>> {
	const response = await fetch(url, {
		method: "POST",
		headers: { "Content-Type": "application/json" },
		body: JSON.stringify(body),
		credentials: "same-origin",
	});
	const value = (await response.json().catch(() => ({}))) as Record<string, unknown>;
	if (!response.ok) {
		const error = value.error as { message?: unknown } | undefined;
		throw new Error(typeof error?.message === "string" ? error.message : `HTTP ${response.status}`);
	}
	return value;
}

function button(role: string, text: string, title: string): HTMLButtonElement {
	return el("button", { attrs: { type: "button", "data-role": role, title }, text }) as HTMLButtonElement;
}

/** The tools of a served page; `selection` is the page's current selection. */
export function servedTools(served: ServedView, selection: () => Selection): ServedTools {
	const live = el("span", { class: "live", attrs: { "data-role": "live", title: "Live tail" }, text: "○ connecting" });
	const result = el("p", { attrs: { "data-role": "action-result", "aria-live": "polite" } });
	const editorText = el("textarea", {
		attrs: { "data-role": "editor-text", readonly: "", rows: "4", hidden: "", "aria-label": "Text to copy" },
	}) as HTMLTextAreaElement;
	const report = (text: string) => {
		result.textContent = text;
	};
	const items: Array<[string, Array<HTMLElement | string>]> = [];
	const link = (role: string, href: string, text: string) =>
		el("a", { attrs: { "data-role": role, href, download: "" }, text });
	items.push([
		"Download",
		[
			link("download-jsonl", served.downloads.jsonl, "JSONL"),
			" · ",
			link("download-html", served.downloads.html, "HTML"),
			" · ",
			link("download-md", served.downloads.md, "Markdown"),
		],
	]);
	if (served.resume !== null) {
		const copy = button("copy-resume", "Copy", "Copy the command");
		copy.addEventListener(
			"click",
			() => void navigator.clipboard?.writeText(served.resume ?? "").catch(() => undefined),
		);
		items.push([
			"Resume in its agent",
			[el("code", { attrs: { "data-role": "resume" }, text: served.resume }), " ", copy],
		]);
	}
	if (served.writable) {
		const run = async (action: string, body: object, done: (answer: Record<string, unknown>) => void) => {
			try {
				done(await post(`${served.actions}/${action}`, body));
			} catch (error) {
				report(`Failed: ${error instanceof Error ? error.message : String(error)}`);
			}
		};
		const entry = () => selection().selectedId;
		const labelInput = el("input", {
			attrs: { "data-role": "label-input", type: "text", placeholder: "label (empty: remove)" },
		}) as HTMLInputElement;
		const label = button("label", "Label", "Label the selected entry");
		label.addEventListener("click", () => {
			const id = entry();
			if (id === null) return report("Select an entry first.");
			void run("label", { entryId: id, label: labelInput.value }, () => report("Label set."));
		});
		const nameInput = el("input", { attrs: { "data-role": "name-input", type: "text", placeholder: "session name" } });
		const rename = button("rename", "Name", "Set the session's name");
		rename.addEventListener("click", () => {
			const name = (nameInput as HTMLInputElement).value;
			void run("name", { name }, () => report("Name set."));
		});
		const leaf = button(
			"set-leaf",
			"Continue from here",
			"Make the selected entry the session's leaf (pi's /tree rule)",
		);
		leaf.addEventListener("click", () => {
			const id = entry();
			if (id === null) return report("Select an entry first.");
			void run("leaf", { entryId: id }, (answer) => {
				const text = typeof answer.editorText === "string" ? answer.editorText : undefined;
				editorText.value = text ?? "";
				editorText.hidden = text === undefined;
				const leafId = typeof answer.leafId === "string" ? answer.leafId : null;
				report(text === undefined ? "Leaf moved." : "Leaf moved to the message's parent; its text is below to copy.");
				window.location.hash = leafId === null ? "" : `#leaf=${encodeURIComponent(leafId)}`;
			});
		});
		const fork = button("fork", "Fork here", "A new session of the path to the selected entry");
		fork.addEventListener("click", () => {
			const id = entry();
			if (id === null) return report("Select an entry first.");
			void run("fork", { entryId: id }, (answer) => {
				result.replaceChildren(
					"Forked: ",
					el("a", {
						attrs: { "data-role": "fork-link", href: `/s/${String(answer.key)}` },
						text: "open the new session",
					}),
				);
			});
		});
		items.push(["Selected entry", [labelInput, label, leaf, fork]], ["Session", [nameInput, rename]]);
	} else {
		items.push(["Read-only", [el("span", { attrs: { "data-role": "read-only" }, text: "another agent's file" })]]);
	}
	items.push(["", [result, editorText]]);
	const panel = el(
		"details",
		{ class: "help", attrs: { "data-role": "served-tools" } },
		el("summary", { text: "Session" }),
		el("dl", {}, ...items.flatMap(([title, nodes]) => [el("dt", { text: title }), el("dd", {}, ...nodes)])),
	);
	return {
		elements: [live, panel],
		setLive(on: boolean) {
			live.textContent = on ? "● live" : "○ offline";
			live.setAttribute("data-live", String(on));
		},
	};
}
