/** The agent and project filters both pages share, kept in the page's query string. */

import { agentName, getJson, h } from "./dom.js";

interface Project {
	agent: string | null;
	cwd: string;
	sessions: number;
}

/** The filter controls and their current values. */
export interface Filters {
	element: HTMLElement;
	agent(): string;
	cwd(): string;
	/** The filters as query parameters (`agent=…&cwd=…`, empty ones left out). */
	params(): URLSearchParams;
}

/** Builds the filters from `/api/projects`; `changed` is called when one changes. */
export async function filters(initial: URLSearchParams, changed: () => void): Promise<Filters> {
	const { projects } = await getJson<{ projects: Project[] }>("/api/projects");
	const agents = [...new Set(projects.map((p) => p.agent ?? "none"))].sort();
	const agent = h(
		"select",
		{ "data-role": "agent-filter", "aria-label": "Agent" },
		h("option", { value: "" }, "every agent"),
		...agents.map((a) => h("option", { value: a }, agentName(a === "none" ? null : a))),
	) as HTMLSelectElement;
	const cwds = new Map<string, number>();
	for (const p of projects) cwds.set(p.cwd, (cwds.get(p.cwd) ?? 0) + p.sessions);
	const cwd = h(
		"select",
		{ "data-role": "project-filter", "aria-label": "Project" },
		h("option", { value: "" }, "every project"),
		...[...cwds.keys()].sort().map((c) => h("option", { value: c }, `${c || "(no cwd)"} (${cwds.get(c)})`)),
	) as HTMLSelectElement;
	agent.value = initial.get("agent") ?? "";
	cwd.value = initial.get("cwd") ?? "";
	agent.addEventListener("change", changed);
	cwd.addEventListener("change", changed);
	return {
		element: h("span", { class: "filters" }, agent, cwd),
		agent: () => agent.value,
		cwd: () => cwd.value,
		params() {
			const params = new URLSearchParams();
			if (agent.value) params.set("agent", agent.value);
			if (cwd.value) params.set("cwd", cwd.value);
			return params;
		},
	};
}
