/**
 * Removal of secrets from session data before it is shared (an HTML or Markdown export).
 *
 * Agent sessions hold whatever passed through the agent: `.env` files a tool printed, a
 * `curl -H "Authorization: Bearer …"` the model wrote, keys pasted by the user. A shared session
 * must not carry them. {@link redactText} replaces each secret in a string with a marker
 * `[REDACTED:kind]`; {@link redactRecords} does that to every string of a set of records and
 * returns copies, so the session itself is never changed.
 *
 * The kinds, with their stable names (see {@link REDACTION_KINDS}), in the order they are looked
 * for (the first that matches names the secret; later ones never see it again):
 *
 * - `private-key`: a PEM private key, `-----BEGIN … PRIVATE KEY-----` through
 *   `-----END … PRIVATE KEY-----` (RSA, EC, DSA, OpenSSH, encrypted, PKCS#8 and PGP
 *   `PRIVATE KEY BLOCK`), as one marker. The block may be on real lines or JSON-escaped on one
 *   line (`\n`, as in a cloud service-account file a tool printed). A block that has no end
 *   (cut off by a truncated tool output) is redacted up to the end of its body: the run of
 *   base64 characters, whitespace, backslashes, `:`, `,` and `-` after the header.
 *   Public keys and certificates are not secrets and are kept.
 * - `jwt`: a JSON Web Token, three (or, for JWE, up to five) non-empty base64url parts
 *   separated by dots, the first starting `eyJ` (`{"` encoded) and at least 8 characters long.
 *   An unsigned token (empty third part) is not a credential and is kept.
 * - `api-key`: an OpenAI- or Anthropic-style key, `sk-` and 20 or more of `[A-Za-z0-9_-]`
 *   holding at least one digit (`sk-ant-api03-…`, `sk-proj-…`, `sk-svcacct-…`, classic `sk-…`).
 *   The digit keeps hyphenated words such as `sk-this-is-not-a-key-at-all` out.
 * - `stripe-key`: a Stripe secret or restricted key, `sk_live_`, `sk_test_`, `rk_live_`,
 *   `rk_test_` and 16 or more alphanumerics (publishable `pk_` keys are public and kept).
 * - `github-token`: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 30 or more alphanumerics, or
 *   `github_pat_` and 30 or more of `[A-Za-z0-9_]`.
 * - `slack-token`: `xoxa-`, `xoxb-`, `xoxe-`, `xoxo-`, `xoxp-`, `xoxr-`, `xoxs-` and 10 or more of
 *   `[A-Za-z0-9-]` holding a digit.
 * - `google-api-key`: `AIza` and exactly 35 of `[A-Za-z0-9_-]`.
 * - `aws-access-key-id`: `AKIA` or `ASIA` and exactly 16 upper-case letters or digits.
 * - `aws-secret-key`: 16 or more of `[A-Za-z0-9/+=]` after a label `aws_secret_access_key`,
 *   `secret_access_key`, `SecretAccessKey` or `aws_secret_key` (any case, `_`, `-` or nothing
 *   between the words) and `=`, `:` or whitespace, quotes allowed (`.aws/credentials`, `.env`,
 *   `aws configure set`, the JSON of `aws iam create-access-key`). Only the value is replaced.
 *   An unlabelled secret key is 40 base64 characters, indistinguishable from other data.
 * - `url-password`: the password of a URL's user info, `scheme://user:PASSWORD@host`; the user
 *   and the host stay. As in the WHATWG URL parser, the user info ends at the last `@` before
 *   the host, so a password holding `@` is replaced whole. Placeholders (`$VAR`, `${VAR}`, a
 *   run of `*`) are kept.
 * - `bearer-token`: the token of an `Authorization: Bearer TOKEN` header (any case, as text,
 *   as a `"Authorization": "Bearer …"` JSON member, or as the value of a record field named
 *   `Authorization`), any length; and a bare `Bearer TOKEN` whose token is 20 or more
 *   characters holding a digit. Placeholders that are not token characters (`$TOKEN`,
 *   `{token}`, `<token>`) are kept.
 * - `basic-auth`: the credentials of an `Authorization: Basic …` header (they encode a
 *   password), found as the `Authorization: Bearer` ones are.
 * - `hex-secret`: a long hexadecimal secret, by this rule. A hex token is a run of 32 or more
 *   hexadecimal digits (either case), optionally after `0x`, that is a whole token: no letter
 *   or digit touches it on either side (`_`, `-`, `/`, quotes, spaces and punctuation separate
 *   tokens, so `key-<hex>` and `KEY_<hex>` are found). It is redacted when it holds at least
 *   one digit and at least one letter (a run of digits is a number, a run of letters a word
 *   such as `deadbeef…`), unless it is a hash:
 *   1. it is exactly 40 digits long: a git (SHA-1) object name, which `git log`,
 *      `git rev-parse`, lockfiles and GitHub URLs print everywhere (with `0x`, an Ethereum
 *      address, public too); but a 40-digit token right after a secret's label (a name ending
 *      in `key`, `token`, `secret`, `password`, `passwd`, `pwd`, `auth` or `credential(s)`,
 *      then `=` or `:`, as in `GITHUB_TOKEN=…`) is redacted all the same;
 *   2. or it follows a digest prefix, `md5`, `sha1`, `sha224`, `sha256`, `sha384` or `sha512`
 *      (also `sha-256`) and `:` or `=` (`image@sha256:…`, `--hash=sha256:…`);
 *   3. or it follows the word `commit` and blanks (`commit <64 digits>`, git's SHA-256 names).
 *
 *   So git hashes of 7 to 31 digits are too short to be candidates, 40-digit ones are kept, and
 *   a UUID (`8-4-4-4-12`) never is one: its hyphens cut it into runs of at most 12 digits.
 *   Redacted are 32- and 64-digit tokens without a digest prefix: API keys of many services,
 *   Flask and Django secrets, `openssl rand -hex 32`, Ethereum private keys, but also an
 *   unprefixed MD5 or SHA-256 checksum and a UUID written without hyphens, which cannot be
 *   told from a key.
 * - Services' tokens, connection strings (`huggingface-token`, `npm-token`, `gitlab-token`,
 *   `pypi-token`, `sendgrid-key`, `shopify-token`, `digitalocean-token`, `google-oauth-secret`,
 *   `telegram-bot-token`, `age-secret-key`, `azure-key`) after `aws-secret-key`, and
 *   `env-secret` (a `.env`/shell/YAML assignment of a name ending in `PASSWORD`, `SECRET`,
 *   `TOKEN`, `API_KEY`, … to a value) last: their rules are in redact-services.ts.
 *
 * Every pattern runs in time linear in the text: each token pattern begins with a negative
 * lookbehind that rejects a start inside a run of its own characters (so a megabyte of `sk-sk-sk-…` is scanned
 * once, not once per position), each repetition of a character class is either bounded or
 * followed by something that class cannot match, and the PEM search remembers where the next
 * `-----END` is instead of looking again for every `-----BEGIN`. "At least n" is written
 * `[…]{n}[…]*` rather than `[…]{n,}`: the same language, but V8 runs the latter about a
 * hundred times slower on a long match (150 ms for a megabyte-long token).
 *
 * @packageDocumentation
 */

import { ENV_KIND, ENV_RULE, SERVICE_CANDIDATE, SERVICE_KINDS, SERVICE_RULES } from "./redact-services.js";

/**
 * The names of the kinds of secret, in the order they are looked for (described in the
 * module's documentation). The names are stable: they appear in markers and counts.
 */
export const REDACTION_KINDS = [
	"private-key",
	"jwt",
	"api-key",
	"stripe-key",
	"github-token",
	"slack-token",
	"google-api-key",
	"aws-access-key-id",
	"aws-secret-key",
	...SERVICE_KINDS,
	"url-password",
	"bearer-token",
	"basic-auth",
	"hex-secret",
	ENV_KIND,
] as const;

/** One of {@link REDACTION_KINDS}. */
export type RedactionKind = (typeof REDACTION_KINDS)[number];

/** How many secrets of each kind were replaced, by kind name; kinds with none are absent. */
export type RedactionCounts = Record<string, number>;

/** The text that stands for a secret of `kind`. */
export function redactionMarker(kind: RedactionKind): string {
	return `[REDACTED:${kind}]`;
}

/** A marker as it appears in text: a value that is already one is never redacted again. */
const MARKER = /^\[REDACTED:[a-z-]+\]$/;

/** A value that stands for a secret rather than being one: `$VAR`, `${VAR}`, `****`. */
const PLACEHOLDER = /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\*+)$/;

const DIGIT = /[0-9]/;
const HEX_LETTER = /[A-Fa-f]/;

/**
 * One kind of secret found by one regular expression. The pattern is global; its named group
 * `secret` is what is replaced when present (`pre` before it and `post` after it are kept),
 * otherwise the whole match is.
 */
interface Rule {
	readonly kind: RedactionKind;
	readonly pattern: RegExp;
	/** Whether a match is really a secret; absent means always. */
	readonly accept?: (secret: string, match: RegExpExecArray, text: string) => boolean;
	/**
	 * Something every match of `pattern` contains (its literal part), looked for before the
	 * pattern runs: a search for a literal skips along the text, a pattern that starts with a
	 * lookbehind tries every position. Without it the pattern always runs.
	 */
	readonly gate?: RegExp | ((text: string) => boolean);
}

/** True when `rule` may match in `text`: its gate, if any, finds its literal part. */
function mayMatch(rule: Rule, text: string): boolean {
	const { gate } = rule;
	if (gate === undefined) return true;
	return typeof gate === "function" ? gate(text) : gate.test(text);
}

function hasDigit(secret: string): boolean {
	return DIGIT.test(secret);
}

/** A label a value may follow: an `Authorization` header name and its separator. */
const AUTH_LABEL = String.raw`(?<![A-Za-z0-9_-])(?:proxy-)?authorization["']?[ \t]{0,8}[:=][ \t]{0,8}["']?[ \t]{0,8}`;
/** RFC 6750's `b64token`, the characters of a bearer token (and of Basic credentials). */
const B64TOKEN = "[A-Za-z0-9._~+/-]+=*";
/** The separator between the AWS secret key's label and its value. */
const AWS_SEPARATOR = String.raw`(?:["']?[ \t]{0,8}[:=][ \t]{0,8}["']?|[ \t]{1,8})`;
const AWS_SECRET_LABEL = "(?:aws[_-]?)?secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key";

/** A secret's label right before a hex token (`hex-secret` rule 1). */
const SECRET_LABEL_BEFORE =
	/(?:key|token|secret|passw(?:or)?d|pwd|auth|credentials?)["']?[ \t]{0,8}[:=][ \t]{0,8}["']?$/i;
/** A digest prefix or `commit` right before a hex token (`hex-secret` rules 2 and 3). */
const HASH_CONTEXT_BEFORE = /(?:\b(?:md5|sha-?(?:1|224|256|384|512))[:=]|\bcommit[ \t]+)$/i;
/** How far before a hex token its label or digest prefix is looked for. */
const CONTEXT_REACH = 64;

function isHexSecret(secret: string, match: RegExpExecArray, text: string): boolean {
	if (!hasDigit(secret) || !HEX_LETTER.test(secret)) return false;
	const before = text.slice(Math.max(0, match.index - CONTEXT_REACH), match.index);
	if (HASH_CONTEXT_BEFORE.test(before)) return false;
	return secret.length !== 40 || SECRET_LABEL_BEFORE.test(before);
}

/** The rules after `private-key` (which {@link redactPrivateKeys} handles), in order. */
const RULES: readonly Rule[] = [
	{
		kind: "jwt",
		gate: /eyJ/,
		pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5}[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+){2,4}/g,
	},
	{ kind: "api-key", gate: /sk-/, pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20}[A-Za-z0-9_-]*/g, accept: hasDigit },
	{
		kind: "stripe-key",
		gate: /k_(?:live|test)_/,
		pattern: /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16}[A-Za-z0-9]*/g,
	},
	{
		kind: "github-token",
		gate: /gh[pousr]_|github_pat_/,
		pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30}[A-Za-z0-9]*|github_pat_[A-Za-z0-9_]{30}[A-Za-z0-9_]*)/g,
	},
	{
		kind: "slack-token",
		gate: /xox/,
		pattern: /(?<![A-Za-z0-9_-])xox[abeoprs]-[A-Za-z0-9-]{10}[A-Za-z0-9-]*/g,
		accept: hasDigit,
	},
	{ kind: "google-api-key", gate: /AIza/, pattern: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
	{ kind: "aws-access-key-id", gate: /A[KS]IA/, pattern: /(?<![A-Za-z0-9])A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])/g },
	{
		kind: "aws-secret-key",
		// Both labels hold the word.
		gate: /secret/i,
		pattern: new RegExp(
			`(?<pre>(?<![A-Za-z0-9])(?:${AWS_SECRET_LABEL})${AWS_SEPARATOR})(?<secret>[A-Za-z0-9/+=]{16}[A-Za-z0-9/+=]*)`,
			"gi",
		),
	},
	...SERVICE_RULES,
	{
		kind: "url-password",
		gate: /:\/\//,
		// The user ends at the first `:`; the password runs to the last `@` of the authority.
		pattern:
			/(?<pre>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:/?#@"'<>\\]*:)(?<secret>[^\s/?#"'<>\\]+)(?<post>@)/g,
		accept: (secret) => !PLACEHOLDER.test(secret) && !MARKER.test(secret),
	},
	{
		kind: "bearer-token",
		gate: /authorization/i,
		pattern: new RegExp(`(?<pre>${AUTH_LABEL}bearer[ \\t]{1,8})(?<secret>${B64TOKEN})`, "gi"),
	},
	{
		kind: "basic-auth",
		gate: /authorization/i,
		pattern: new RegExp(`(?<pre>${AUTH_LABEL}basic[ \\t]{1,8})(?<secret>${B64TOKEN})`, "gi"),
	},
	{
		kind: "bearer-token",
		gate: /bearer/i,
		pattern: /(?<pre>(?<![A-Za-z0-9_-])bearer[ \t]{1,8})(?<secret>[A-Za-z0-9._~+/-]{20}[A-Za-z0-9._~+/-]*=*)/gi,
		accept: hasDigit,
	},
	{
		kind: "hex-secret",
		gate: hasHexRun,
		pattern: /(?<![A-Za-z0-9])(?:0[xX])?(?<secret>[0-9A-Fa-f]{32}[0-9A-Fa-f]*)(?![A-Za-z0-9])/g,
		accept: isHexSecret,
	},
	ENV_RULE,
];

/**
 * The rules that can match in a text whose only candidates are `token` and runs of hex digits
 * (see {@link CANDIDATE_BUT_TOKEN}): the hex token's and the `.env` assignment's, the last two
 * of {@link RULES}, so that no rule left out could have changed the text they see.
 */
const TOKEN_RULES: readonly Rule[] = RULES.filter((rule) => rule.kind === "hex-secret" || rule.kind === ENV_KIND);

/**
 * Something every match of every rule above contains (so this, {@link SERVICE_CANDIDATE} and
 * {@link hasHexRun} find a superset of their matches): a string without any of it holds no
 * secret and is returned after these scans, instead of one scan per rule. Session text is mostly such strings; the 125 MB of a
 * 100,000-entry session are redacted several times faster for it. Scanned as part of
 * {@link CANDIDATE}; kept as written, one alternative per rule, for the test that holds
 * {@link CANDIDATE} to the pair.
 * @internal
 */
export const ANY_CANDIDATE =
	/eyJ|sk-|k_(?:live|test)_|gh[pousr]_|github_pat_|xox|AIza|A[KS]IA|secret|:\/\/|bearer|basic/i;

/**
 * {@link ANY_CANDIDATE} or {@link SERVICE_CANDIDATE}, in one expression whose alternatives are
 * grouped by their first letter: the same strings match (a property test holds the two to the
 * pair), and a string that holds neither (most of a session's text) is scanned once instead of
 * twice, with one letter looked at where it was every alternative. The two pre-tests were 0.7
 * of the 3.5 s a CPU profile of `session-tree html` of a 100,000-entry session took; this one
 * scans the same 97 million characters in 0.31 s against 0.70 s.
 * @internal
 */
export const CANDIDATE =
	/a(?:iza|[ks]ia|pi_org_|pi_?key|ccess_?key|uth_?key|ccountkey|ge-secret)|s(?:k-|ecret|g\.|hp|haredaccesskey|ig=)|k_(?:live|test)_|g(?:h[pousr]_|ithub_pat_|l[a-z]{1,4}t?-|ocspx-)|xox|:(?:\/\/|aa)|b(?:earer|asic)|eyj|hf_|npm_|p(?:ypi-|assw|assphrase|rivate_?key)|do[opr]_v1_|token|credential/i;

/**
 * {@link CANDIDATE} without its `token`. Prose about models says "token" everywhere (in the
 * bench's 100,000-entry session, 34,000 strings of 20 million characters have no other
 * candidate), and every rule's gate then scanned such a string again, about twenty scans, for
 * the two rules that can match there ({@link TOKEN_RULES}): a text that holds no candidate of
 * this expression holds none of the literals the other rules need. `holdsSecret` over that
 * session's records: 0.92–1.05 s against 1.33–1.64 s. The property test that holds
 * `redactText` to {@link redactTextEveryRule} holds this shortcut too.
 * @internal
 */
export const CANDIDATE_BUT_TOKEN =
	/a(?:iza|[ks]ia|pi_org_|pi_?key|ccess_?key|uth_?key|ccountkey|ge-secret)|s(?:k-|ecret|g\.|hp|haredaccesskey|ig=)|k_(?:live|test)_|g(?:h[pousr]_|ithub_pat_|l[a-z]{1,4}t?-|ocspx-)|xox|:(?:\/\/|aa)|b(?:earer|asic)|eyj|hf_|npm_|p(?:ypi-|assw|assphrase|rivate_?key)|do[opr]_v1_|credential/i;

/** Shortest run of hexadecimal digits a candidate holds (`hex-secret`, and the hex of `shp…_`). */
const HEX_RUN = 32;

/** 1 for the char codes of hexadecimal digits, either case. */
const HEX_DIGITS = new Uint8Array(128);
for (const c of "0123456789abcdefABCDEF") HEX_DIGITS[c.charCodeAt(0)] = 1;

function isHexDigit(code: number): boolean {
	return code < 128 && HEX_DIGITS[code] === 1;
}

/**
 * True when `text` holds a run of {@link HEX_RUN} or more hexadecimal digits: the last
 * alternative of {@link ANY_CANDIDATE} once (`[0-9a-f]{32}`, any case), found without a regular
 * expression. A run that long covers one of the positions 31, 63, 95, …, so only those are
 * looked at, and around a hex digit there the run is measured both ways. The expression tried a
 * match at every position of every string and took two thirds of the time of redacting a
 * 125 MB session (0.8 of 1.2 s); this reads about one character in sixteen.
 */
export function hasHexRun(text: string): boolean {
	for (let at = HEX_RUN - 1; at < text.length; at += HEX_RUN) {
		if (!isHexDigit(text.charCodeAt(at))) continue;
		let start = at;
		while (start > 0 && isHexDigit(text.charCodeAt(start - 1))) start--;
		let end = at + 1;
		while (end < text.length && end - start < HEX_RUN && isHexDigit(text.charCodeAt(end))) end++;
		if (end - start >= HEX_RUN) return true;
	}
	return false;
}

/** No secret of any kind fits in fewer characters (`a://:p@` is the shortest). */
const MIN_SECRET_LENGTH = 7;

function bump(counts: RedactionCounts | undefined, kind: RedactionKind): void {
	if (counts !== undefined) counts[kind] = (counts[kind] ?? 0) + 1;
}

function applyRule(text: string, rule: Rule, counts: RedactionCounts | undefined): string {
	const { pattern } = rule;
	pattern.lastIndex = 0;
	let out = "";
	let copied = 0;
	for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
		const groups = match.groups;
		const secret = groups?.secret ?? match[0];
		if (rule.accept === undefined || rule.accept(secret, match, text)) {
			out += text.slice(copied, match.index);
			out += `${groups?.pre ?? ""}${redactionMarker(rule.kind)}${groups?.post ?? ""}`;
			copied = match.index + match[0].length;
			bump(counts, rule.kind);
		}
	}
	return copied === 0 ? text : out + text.slice(copied);
}

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/y;
/** The body of a key that has no end: base64, whitespace, escaped newlines, PEM headers. */
const PEM_BODY = /[A-Za-z0-9+/=\s\\:,-]*/y;

/** Replaces every PEM private key block with one marker (see the module's documentation). */
function redactPrivateKeys(text: string, counts: RedactionCounts | undefined): string {
	if (!text.includes("PRIVATE KEY")) return text;
	PEM_BEGIN.lastIndex = 0;
	let out = "";
	let copied = 0;
	// Where the first `-----END ` at or after the last search starts; -1 once there is none
	// left, which then holds for every later block too. Searching once per block instead
	// would be quadratic on a text of many headers and no end.
	let nextEnd = -2;
	for (let begin = PEM_BEGIN.exec(text); begin !== null; begin = PEM_BEGIN.exec(text)) {
		const bodyStart = begin.index + begin[0].length;
		if (nextEnd !== -1 && nextEnd < bodyStart) nextEnd = text.indexOf("-----END ", bodyStart);
		let stop = -1;
		if (nextEnd !== -1) {
			PEM_END.lastIndex = nextEnd;
			const end = PEM_END.exec(text);
			if (end !== null) stop = nextEnd + end[0].length;
		}
		if (stop === -1) {
			// No end of a private key follows: the output was cut. Take what still looks like key.
			PEM_BODY.lastIndex = bodyStart;
			PEM_BODY.exec(text);
			stop = Math.max(bodyStart, PEM_BODY.lastIndex);
		}
		out += text.slice(copied, begin.index) + redactionMarker("private-key");
		copied = stop;
		PEM_BEGIN.lastIndex = stop;
		bump(counts, "private-key");
	}
	return copied === 0 ? text : out + text.slice(copied);
}

/**
 * `text` with every secret replaced by `[REDACTED:kind]` (the kinds and their rules are in the
 * module's documentation). When `counts` is given, the number replaced of each kind is added
 * to it. Text without secrets is returned as it is (the same string). Linear in the length of
 * `text`.
 */
export function redactText(text: string, counts?: RedactionCounts): string {
	if (text.length < MIN_SECRET_LENGTH) return text;
	return untilStable(text, counts, redactOnce);
}

/**
 * At most this many passes of the rules over a text. Each pass after the first runs only when
 * the one before changed the text, and only on text a secret was found in: a second pass is
 * needed when a replacement took away what kept a later token (`aws_secret_access_key=commit
 * 0123…ef`: the assignment's value `commit` made the hex token after it a git name; once the
 * value is a marker, the token is a secret), and none was seen to need a third.
 */
const MAX_PASSES = 4;

/** `pass` over `text` again while it changes it (see {@link MAX_PASSES}): redacting the result finds nothing more. */
function untilStable(
	text: string,
	counts: RedactionCounts | undefined,
	pass: (text: string, counts: RedactionCounts | undefined) => string,
): string {
	let out = text;
	for (let passes = 0; passes < MAX_PASSES; passes++) {
		const next = pass(out, counts);
		if (next === out) break;
		out = next;
	}
	return out;
}

/**
 * One pass of the rules, in order, with the shortcuts: the private keys, the pre-test, the
 * rules a text whose only candidate is `token` can hold ({@link TOKEN_RULES}), each rule's gate.
 */
function redactOnce(text: string, counts: RedactionCounts | undefined): string {
	let out = redactPrivateKeys(text, counts);
	if (!CANDIDATE.test(out) && !hasHexRun(out)) return out;
	const rules = CANDIDATE_BUT_TOKEN.test(out) ? RULES : TOKEN_RULES;
	for (const rule of rules) if (mayMatch(rule, out)) out = applyRule(out, rule, counts);
	return out;
}

/**
 * {@link redactText} without its shortcuts: every rule runs on every text, no pre-test and no
 * gate. The same result by definition; the tests hold the shortcuts to it.
 * @internal
 */
export function redactTextEveryRule(text: string, counts?: RedactionCounts): string {
	return untilStable(text, counts, (pass, passCounts) => {
		let out = redactPrivateKeys(pass, passCounts);
		for (const rule of RULES) out = applyRule(out, rule, passCounts);
		return out;
	});
}

/** A record field whose name is an `Authorization` header's: its value is the header's. */
const AUTH_FIELD = /^(?:proxy-)?authorization$/i;
const AUTH_VALUE = /^(?<pre>[ \t]*(?<scheme>bearer|basic)[ \t]+)(?<secret>[A-Za-z0-9._~+/-]+=*)/i;
/** A record field named as the AWS secret key's label: its value is the key. */
const AWS_SECRET_FIELD = new RegExp(`^(?:${AWS_SECRET_LABEL})$`, "i");
const AWS_SECRET_VALUE = /^[ \t]*[A-Za-z0-9/+=]{16}[A-Za-z0-9/+=]*[ \t]*$/;

/**
 * A string field's value, redacted. A field's name can be the label that makes its value a
 * secret (`{"Authorization": "Bearer abc"}`, `{"aws_secret_access_key": "…"}`, as in a tool
 * call's headers or a parsed credentials file), which the text alone no longer shows. The text
 * rules run first, so a token they recognise keeps its own kind (`jwt`, `api-key`, …).
 */
function redactField(name: string, value: string, counts: RedactionCounts | undefined): string {
	const text = redactText(value, counts);
	if (AUTH_FIELD.test(name)) {
		const groups = AUTH_VALUE.exec(text)?.groups;
		if (groups?.pre !== undefined && groups.secret !== undefined) {
			const kind = groups.scheme?.toLowerCase() === "basic" ? "basic-auth" : "bearer-token";
			bump(counts, kind);
			return `${groups.pre}${redactionMarker(kind)}${text.slice(groups.pre.length + groups.secret.length)}`;
		}
	} else if (AWS_SECRET_FIELD.test(name) && AWS_SECRET_VALUE.test(text)) {
		bump(counts, "aws-secret-key");
		return redactionMarker("aws-secret-key");
	}
	return text;
}

/**
 * Field names known to hold no secret. The same few dozen names (`role`, `content`,
 * `totalTokens`, …) come back in every record, and some of them (`…Tokens`) hold a candidate,
 * so every rule ran on them again for every record. Bounded: names are open-ended (tool
 * arguments, `details`), and a long or rare one is simply redacted again.
 */
const CLEAN_NAMES = new Set<string>();
const MAX_CLEAN_NAMES = 4096;
const MAX_CLEAN_NAME_LENGTH = 64;

/** A field's name, redacted (see {@link CLEAN_NAMES}). */
function redactName(name: string, counts: RedactionCounts): string {
	if (CLEAN_NAMES.has(name)) return name;
	const found: RedactionCounts = {};
	const redacted = redactText(name, found);
	let none = true;
	for (const [kind, n] of Object.entries(found)) {
		counts[kind] = (counts[kind] ?? 0) + n;
		none = false;
	}
	if (none && CLEAN_NAMES.size < MAX_CLEAN_NAMES && name.length <= MAX_CLEAN_NAME_LENGTH) CLEAN_NAMES.add(name);
	return redacted;
}

/** Base64 as an image block holds it (line breaks tolerated). */
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/**
 * True for the `data` of an image content block (`{type: "image", data, mimeType}`) when it is
 * base64: kept byte for byte. Patterns can match inside random base64 (a hex run between two
 * `/`), and a changed byte breaks the image; a secret shown in a picture is beyond text
 * patterns anyway. `data` that is not base64 is treated as any other text.
 */
function isImageData(owner: Record<string, unknown>, name: string, value: string): boolean {
	return name === "data" && owner.type === "image" && BASE64.test(value);
}

/** An array or object of the input and its copy, waiting to be filled. */
type Pending =
	| { readonly array: true; readonly source: readonly unknown[]; readonly target: unknown[] }
	| { readonly array: false; readonly source: Record<string, unknown>; readonly target: Record<string, unknown> };

/** Arrays and plain objects (what JSON holds) are copied; anything else is kept as it is. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const prototype = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
}

/**
 * A new key for a field whose name had a secret in it, distinct from every other key of the
 * object, so that two redacted names (or a redacted one and one that looks like a marker) never
 * merge into one field and lose a value.
 */
function uniqueKey(redacted: string, source: Record<string, unknown>, target: Record<string, unknown>): string {
	let key = redacted;
	for (let n = 2; Object.hasOwn(source, key) || Object.hasOwn(target, key); n++) key = `${redacted} #${n}`;
	return key;
}

function setField(target: Record<string, unknown>, key: string, value: unknown): void {
	// A JSON record can hold an own `__proto__` field; plain assignment would set the prototype.
	if (key === "__proto__") {
		Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
	} else {
		target[key] = value;
	}
}

/**
 * Deep copies of `records` with every string value redacted as {@link redactText} does, and
 * the number of secrets replaced by kind. The input is never changed.
 *
 * - Arrays and plain objects are copied with their keys in the same order; numbers, booleans,
 *   `null` and any other non-string value are kept exactly (objects that are not plain, which
 *   JSON never produces, are kept by reference, not walked).
 * - Object keys are redacted too: tool-call arguments, `details` and custom `data` are open
 *   objects whose keys come from tools and data (a map keyed by connection URL, an environment
 *   dump keyed by value), and a field name never matches a pattern by accident. A redacted key
 *   that would collide with another key of the object gets ` #2`, ` #3`, … appended.
 * - A field's name can make its value a secret: the value of an `Authorization` field is
 *   redacted as the header's, that of an `aws_secret_access_key` field as the AWS secret key.
 * - The base64 `data` of an image block (`type: "image"`) is kept byte for byte.
 * - An object or array reached twice (shared, or a cycle) is copied once and shared the same
 *   way in the result.
 * - The walk is iterative (an explicit stack), so nesting depth is limited only by memory.
 */
export function redactRecords<T extends object>(records: readonly T[]): { records: T[]; counts: RedactionCounts } {
	const counts: RedactionCounts = {};
	const copies = new Map<object, object>();
	const pending: Pending[] = [];

	// The copy of an array or plain object: created empty, registered, filled later.
	const copyContainer = (value: object): object => {
		const known = copies.get(value);
		if (known !== undefined) return known;
		if (Array.isArray(value)) {
			const target = new Array<unknown>(value.length);
			pending.push({ array: true, source: value, target });
			copies.set(value, target);
			return target;
		}
		if (!isPlainObject(value)) return value;
		const target: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
		pending.push({ array: false, source: value, target });
		copies.set(value, target);
		return target;
	};
	const copyValue = (value: unknown): unknown => {
		if (typeof value === "string") return redactText(value, counts);
		return typeof value === "object" && value !== null ? copyContainer(value) : value;
	};

	const result = records.map(copyContainer);
	// Each container is filled once; its children are created (empty) in place, in key order,
	// and filled when their turn comes, so order is kept without recursion.
	for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
		if (item.array) {
			const { source, target } = item;
			for (let i = 0; i < source.length; i++) if (i in source) target[i] = copyValue(source[i]);
			continue;
		}
		const { source, target } = item;
		for (const name of Object.keys(source)) {
			const value = source[name];
			const redactedName = redactName(name, counts);
			const key = redactedName === name ? name : uniqueKey(redactedName, source, target);
			let copy: unknown;
			if (typeof value !== "string") copy = copyValue(value);
			else if (isImageData(source, name, value)) copy = value;
			else copy = redactField(name, value, counts);
			setField(target, key, copy);
		}
	}
	// Each copy has its record's shape: the same keys (a redacted key only where a key held a
	// secret) and values of the same types, strings changed only inside.
	return { records: result as T[], counts };
}

/** Containers {@link holdsSecret} looks into before it leaves the answer to {@link redactRecords}. */
const MAX_LOOKED_AT = 100_000;

/**
 * False only when {@link redactRecords} would give `record` back unchanged (equal, with no
 * count): no string value or field name that {@link redactText} changes, and no field whose name
 * makes its value a secret (`Authorization`, the AWS secret key's label: true for those without
 * looking, the full redaction decides). The base64 `data` of an image block is passed over as
 * the redaction keeps it. Nothing is copied, so a writer redacts the few records that hold a
 * secret and writes the others as they are (an export of s100k copied every record before).
 * Iterative; a record of more than {@link MAX_LOOKED_AT} arrays and objects (or one that holds
 * itself) is answered true.
 * @internal
 */
export function holdsSecret(record: object): boolean {
	const counts: RedactionCounts = {};
	const stack: object[] = [record];
	let looked = 0;
	for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
		if (++looked > MAX_LOOKED_AT) return true;
		if (Array.isArray(value)) {
			for (let i = 0; i < value.length; i++) {
				if (!(i in value)) continue;
				const item: unknown = value[i];
				if (typeof item === "string") {
					if (redactText(item) !== item) return true;
				} else if (typeof item === "object" && item !== null) stack.push(item);
			}
			continue;
		}
		// Not plain: kept by reference, not walked (see redactRecords).
		if (!isPlainObject(value)) continue;
		for (const name of Object.keys(value)) {
			if (redactName(name, counts) !== name) return true;
			const item = value[name];
			if (typeof item === "string") {
				if (AUTH_FIELD.test(name) || AWS_SECRET_FIELD.test(name)) return true;
				if (!isImageData(value, name, item) && redactText(item) !== item) return true;
			} else if (typeof item === "object" && item !== null) stack.push(item);
		}
	}
	return false;
}

/**
 * The counts as one line for a diagnostic, e.g. `2 api-key, 1 jwt`: most frequent first, ties
 * by name; kinds with no secret left out. Empty when nothing was redacted.
 */
export function formatCounts(counts: Readonly<RedactionCounts>): string {
	return Object.entries(counts)
		.filter(([, n]) => n > 0)
		.sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
		.map(([kind, n]) => `${n} ${kind}`)
		.join(", ");
}
