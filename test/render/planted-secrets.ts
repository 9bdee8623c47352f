/**
 * One fake secret of each kind redact-services.ts adds, inside a text as it would appear in a
 * session, for the tests of every output that leaves the machine. Assembled from pieces, as in
 * redact.test.ts, so that this file holds nothing a secret scanner takes for a real key.
 */

import type { RedactionKind } from "../../src/render/redact.js";

const ALNUM = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z";
function alnum(n: number): string {
	return ALNUM.repeat(Math.ceil(n / ALNUM.length)).slice(0, n);
}
function hex(n: number): string {
	return "0123456789abcdef".repeat(Math.ceil(n / 16)).slice(0, n);
}

const AZURE_KEY = `${alnum(86)}==`;
const AGE = `${"AGE-SECRET"}-KEY-1${"QWERTYUIOPASDFGHJKLZXCVBNM0123456789QWERTYUIOPASDFGHJKLZXC"}`;

interface Planted {
	kind: RedactionKind;
	/** What must be absent from an output. */
	secret: string;
	/** How it is planted (empty: in a sentence). */
	text: string;
}

const SOURCES: Planted[] = [
	{ kind: "huggingface-token", secret: `${"hf"}_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH`, text: "" },
	{ kind: "npm-token", secret: `${"npm"}_${alnum(36)}`, text: "" },
	{ kind: "gitlab-token", secret: `${"glpat"}-${alnum(20)}`, text: "" },
	{ kind: "pypi-token", secret: `${"pypi"}-AgEIcHlwaS5vcmc${alnum(60)}`, text: "" },
	{ kind: "sendgrid-key", secret: `${"SG"}.${alnum(22)}.${alnum(43)}`, text: "" },
	{ kind: "shopify-token", secret: `${"shpat"}_${hex(32)}`, text: "" },
	{ kind: "digitalocean-token", secret: `${"dop"}_v1_${hex(64)}`, text: "" },
	{ kind: "google-oauth-secret", secret: `${"GOCSPX"}-${alnum(28)}`, text: "" },
	{ kind: "telegram-bot-token", secret: `123456789:${"AA"}${alnum(33)}`, text: "" },
	{ kind: "age-secret-key", secret: AGE, text: `# created: 2026-01-01\n${AGE}\n` },
	{
		kind: "azure-key",
		secret: AZURE_KEY,
		text: `DefaultEndpointsProtocol=https;AccountName=acct;${"Account"}Key=${AZURE_KEY};EndpointSuffix=core.windows.net`,
	},
	{ kind: "env-secret", secret: "hunter2hunter2", text: `PORT=8080\nDB_${"PASS"}WORD=hunter2hunter2\nDEBUG=1\n` },
	{ kind: "env-secret", secret: "s3cr3t-value-42", text: `export JWT_${"SEC"}RET="s3cr3t-value-42"\n` },
];

/** One planted secret of every kind, each in the text it is planted in. */
export const PLANTED: readonly Planted[] = SOURCES.map((p) => ({
	...p,
	text: p.text === "" ? `the key is ${p.secret} (from the logs)` : p.text,
}));
