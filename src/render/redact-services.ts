/**
 * The redaction rules for services' tokens with a recognisable prefix, connection strings and
 * `.env`-style assignments (the rest, and the machinery, are in redact.ts). The kinds follow
 * those of the widely used secret scanners (gitleaks' rule set, detect-secrets' plugins); the
 * patterns are this library's own. Each is linear in the text, as redact.ts requires: a token
 * starts after a negative lookbehind of its own characters, and each repetition is bounded or
 * followed by nothing its class can match.
 */

/** The kinds these rules find, in the order they are looked for (after redact.ts's token kinds). */
export const SERVICE_KINDS = [
	"huggingface-token",
	"npm-token",
	"gitlab-token",
	"pypi-token",
	"sendgrid-key",
	"shopify-token",
	"digitalocean-token",
	"google-oauth-secret",
	"telegram-bot-token",
	"age-secret-key",
	"azure-key",
] as const;

/** The kind of a `.env`-style assignment's value, looked for last (after `hex-secret`). */
export const ENV_KIND = "env-secret";

/** A rule as redact.ts applies it (the same shape as its own). */
export interface ServiceRule {
	readonly kind: (typeof SERVICE_KINDS)[number] | typeof ENV_KIND;
	readonly pattern: RegExp;
	readonly accept?: (secret: string, match: RegExpExecArray, text: string) => boolean;
	/** The literal part every match contains, looked for first (see redact.ts's `Rule.gate`). */
	readonly gate?: RegExp;
}

export const SERVICE_RULES: readonly ServiceRule[] = [
	// Hugging Face user tokens `hf_…` and organisation tokens `api_org_…` (34 letters).
	{
		kind: "huggingface-token",
		gate: /hf_|api_org_/,
		pattern: /(?<![A-Za-z0-9_])(?:hf|api_org)_[A-Za-z0-9]{30}[A-Za-z0-9]*/g,
	},
	// npm access tokens: `npm_` and 36 alphanumerics.
	{ kind: "npm-token", gate: /npm_/, pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
	// GitLab personal, pipeline-trigger, deploy, runner and OAuth-application tokens.
	{
		kind: "gitlab-token",
		gate: /gl(?:pat|ptt|dt|rt|oas|cbt|ft|soat)-/,
		pattern: /(?<![A-Za-z0-9_-])(?:glpat|glptt|gldt|glrt|gloas|glcbt|glft|glsoat)-[A-Za-z0-9_-]{20}[A-Za-z0-9_-]*/g,
	},
	// PyPI upload tokens: `pypi-` and a macaroon that starts with the encoded `pypi.org`.
	{
		kind: "pypi-token",
		gate: /pypi-AgEIcHlwaS5vcmc/,
		pattern: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40}[A-Za-z0-9_-]*/g,
	},
	// SendGrid API keys: `SG.`, 22, `.`, 43 (base64url).
	{
		kind: "sendgrid-key",
		gate: /SG\./,
		pattern: /(?<![A-Za-z0-9_.-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
	},
	// Shopify access, custom-app, private-app tokens and shared secrets: `shpat_` … and 32 hex digits.
	{
		kind: "shopify-token",
		gate: /shp(?:at|ca|pa|ss)_/,
		pattern: /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])/g,
	},
	// DigitalOcean personal, OAuth and refresh tokens: `dop_v1_`, `doo_v1_`, `dor_v1_` and 64 hex digits.
	{
		kind: "digitalocean-token",
		gate: /do[opr]_v1_/,
		pattern: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/g,
	},
	// Google OAuth client secrets.
	{
		kind: "google-oauth-secret",
		gate: /GOCSPX-/,
		pattern: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/g,
	},
	// Telegram bot tokens: the bot's id, `:`, then `AA` and 33 of base64url (in API URLs right after `bot`).
	{ kind: "telegram-bot-token", gate: /:AA/, pattern: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
	// age (file encryption) secret keys. No lookbehind: the prefix is distinctive, and in a
	// JSON-escaped file it follows the `n` of `\n`.
	{ kind: "age-secret-key", gate: /AGE-SECRET-KEY-1/, pattern: /AGE-SECRET-KEY-1[0-9A-Z]{58}(?![A-Za-z0-9])/g },
	// Azure storage and Service Bus / Event Hubs connection strings (`AccountKey=`, `SharedAccessKey=`)
	// and the signature of a SAS URL (`sig=`): only the value is replaced.
	{
		kind: "azure-key",
		gate: /(?:accountkey|sharedaccesskey|sig)=/i,
		pattern:
			/(?<pre>(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey|sig)=)(?<secret>[A-Za-z0-9+/%]{20}[A-Za-z0-9+/%]*(?:={1,2}|%3D){0,2})/gi,
	},
];

/** A value that stands for a secret rather than being one: `$VAR`, `${VAR}`, `****`, `<password>`, a marker. */
const NOT_A_VALUE =
	/^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\*+|<[^>]*>|\{\{[^}]*\}\}|\[REDACTED:[a-z-]+\]|x+|changeme|null|none|true|false|undefined)$/i;
/** A plain identifier or call, as in code (`password = getPassword()`): kept unless the assignment is `.env`-tight. */
const CODE_LIKE = /^[A-Za-z_][A-Za-z0-9_.]*(?:\(.*)?[);,]*$/;

/**
 * A `.env`, shell or YAML assignment of a secret: a name that ends in one of the keywords
 * detect-secrets' keyword plugin looks for (`PASSWORD`, `PASSWD`, `PASSPHRASE`, `SECRET`,
 * `SECRET_KEY`, `TOKEN`, `API_KEY`, `ACCESS_KEY`, `PRIVATE_KEY`, `AUTH_KEY`, `CREDENTIAL(S)`,
 * any case, with any prefix such as `DB_` or `export `), then `=` or `:`, then a value of 6 or
 * more characters up to a blank, quote, backslash, `,`, `;` or `&`. `PWD` is not a keyword (the
 * shell's working directory); `max_tokens: 4096` does not end in `TOKEN`. A value that is a
 * placeholder is kept, and so is one that looks like code (an identifier or call) after a
 * spaced `=` or a `:` (`password = getPassword()`), where a `.env` line (`NAME=value`) is not.
 */
export const ENV_RULE: ServiceRule = {
	kind: ENV_KIND,
	// The keyword and the separator after it: "token" alone is common in prose about models.
	gate: /(?:passw(?:or)?d|passphrase|secret(?:_?key)?|token|api_?key|access_?key|private_?key|auth_?key|credentials?)\\?["']?[ \t]{0,8}[:=]/i,
	pattern:
		/(?<pre>(?<![A-Za-z0-9_])[A-Za-z0-9_]{0,40}?(?:passw(?:or)?d|passphrase|secret(?:_?key)?|token|api_?key|access_?key|private_?key|auth_?key|credentials?)\\?["']?(?<sep>[ \t]{0,8}[:=][ \t]{0,8})\\?["']?)(?<secret>[^\s"'`\\,;&]{6}[^\s"'`\\,;&]*)/gi,
	accept(secret, match) {
		if (NOT_A_VALUE.test(secret) || secret.startsWith("[REDACTED:")) return false;
		const tight = match.groups?.sep === "=";
		return tight || !CODE_LIKE.test(secret);
	},
};

/** Something every match of these rules contains, for redact.ts's one-scan pre-test. */
export const SERVICE_CANDIDATE =
	/hf_|api_org_|npm_|gl[a-z]{1,4}t?-|pypi-|SG\.|shp|do[opr]_v1_|GOCSPX-|:AA|AGE-SECRET|accountkey|sharedaccesskey|sig=|passw|passphrase|token|api_?key|access_?key|private_?key|auth_?key|credential/i;
