/**
 * Redaction of secrets (src/render/redact.ts): every kind, the false positives it must avoid,
 * the record walk (copies, order, depth), and linear time on adversarial input.
 *
 * The fake secrets are assembled from pieces so that this file itself holds nothing a secret
 * scanner (GitHub push protection, the module under test) would take for a real key.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
	ANY_CANDIDATE,
	CANDIDATE,
	CANDIDATE_BUT_TOKEN,
	formatCounts,
	hasHexRun,
	holdsSecret,
	REDACTION_KINDS,
	type RedactionCounts,
	type RedactionKind,
	redactionMarker,
	redactRecords,
	redactText,
	redactTextEveryRule,
} from "../../src/render/redact.js";
import { SERVICE_CANDIDATE } from "../../src/render/redact-services.js";

// ---- fake secrets ------------------------------------------------------------------------------

const ALNUM = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z";
/** `n` characters cycling through letters and digits. */
function alnum(n: number): string {
	return ALNUM.repeat(Math.ceil(n / ALNUM.length)).slice(0, n);
}
/** `n` lower-case hex digits, mixing letters and digits. */
function hex(n: number): string {
	return "0123456789abcdef".repeat(Math.ceil(n / 16)).slice(0, n);
}

const ANTHROPIC = `${"sk-"}ant-api03-${alnum(40)}_${alnum(30)}-${alnum(20)}AA`;
const OPENAI_PROJECT = `${"sk-"}proj-${alnum(48)}_${alnum(20)}`;
const OPENAI_CLASSIC = `${"sk-"}${alnum(48)}`;
const STRIPE = `${"sk_"}live_${alnum(24)}`;
const GITHUB_CLASSIC = `${"gh"}p_${alnum(36)}`;
const GITHUB_OAUTH = `${"gh"}o_${alnum(36)}`;
const GITHUB_SERVER = `${"gh"}s_${alnum(36)}`;
const GITHUB_FINE = `${"github"}_pat_11${alnum(20)}_${alnum(59)}`;
const SLACK_BOT = `${"xox"}b-1234567890-1234567890123-${alnum(24)}`;
const SLACK_USER = `${"xox"}p-1234567890-1234567890-1234567890123-${hex(32)}`;
const GOOGLE = `${"AI"}za${alnum(33)}-_`;
const AWS_ID = `${"AK"}IA${"IOSFODNN7EXAMPL"}E`;
const AWS_SESSION_ID = `${"AS"}IA${"Q3EGUQ7WXMP2AB"}C4`;
const AWS_SECRET = `wJalrXUtnFEMI/K7MDENG/bPxRfiCY${"EXAMPLEKEY"}`;
const JWT = `${"eyJ"}hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${"eyJ"}zdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
const PEM_BODY = `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n${alnum(64)}\n${alnum(20)}==`;
const PEM = `-----BEGIN ${"PRIVATE"} KEY-----\n${PEM_BODY}\n-----END ${"PRIVATE"} KEY-----`;

const R = (kind: RedactionKind): string => redactionMarker(kind);

/** The redacted text and the counts of one call. */
function redact(text: string): { text: string; counts: RedactionCounts } {
	const counts: RedactionCounts = {};
	return { text: redactText(text, counts), counts };
}

// ---- every kind ------------------------------------------------------------------------------

// Services' tokens (src/render/redact-services.ts), assembled from pieces like the others.
const HF = `${"hf"}_${"aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"}`;
const NPM = `${"npm"}_${alnum(36)}`;
const GITLAB = `${"glpat"}-${alnum(20)}`;
const PYPI = `${"pypi"}-AgEIcHlwaS5vcmc${alnum(60)}`;
const SENDGRID = `${"SG"}.${alnum(22)}.${alnum(43)}`;
const SHOPIFY = `${"shpat"}_${hex(32)}`;
const DIGITALOCEAN = `${"dop"}_v1_${hex(64)}`;
const GOOGLE_OAUTH = `${"GOCSPX"}-${alnum(28)}`;
const TELEGRAM = `123456789:${"AA"}${alnum(33)}`;
const AGE = `${"AGE-SECRET"}-KEY-1${"QWERTYUIOPASDFGHJKLZXCVBNM0123456789QWERTYUIOPASDFGHJKLZXC"}`;
const AZURE_KEY = `${alnum(86)}==`;
const AZURE = `DefaultEndpointsProtocol=https;AccountName=acct;${"Account"}Key=${AZURE_KEY};EndpointSuffix=core.windows.net`;
const ENV_DUMP = `DB_${"PASS"}WORD=hunter2hunter2\nJWT_${"SEC"}RET=s3cr3t-value\nexport API_${"KEY"}="abc123def456"\nPWD=/home/me\nmax_tokens: 4096`;

const KIND_CASES: Array<{ kind: RedactionKind; input: string; output: string; count: number }> = [
	{ kind: "huggingface-token", input: `HF_TOKEN ${HF}.`, output: `HF_TOKEN ${R("huggingface-token")}.`, count: 1 },
	{ kind: "npm-token", input: `_authToken=${NPM}`, output: `_authToken=${R("npm-token")}`, count: 1 },
	{ kind: "gitlab-token", input: `token ${GITLAB} `, output: `token ${R("gitlab-token")} `, count: 1 },
	{ kind: "pypi-token", input: `pypi: ${PYPI}`, output: `pypi: ${R("pypi-token")}`, count: 1 },
	{ kind: "sendgrid-key", input: `k=(${SENDGRID})`, output: `k=(${R("sendgrid-key")})`, count: 1 },
	{ kind: "shopify-token", input: `"${SHOPIFY}"`, output: `"${R("shopify-token")}"`, count: 1 },
	{ kind: "digitalocean-token", input: `-t ${DIGITALOCEAN}`, output: `-t ${R("digitalocean-token")}`, count: 1 },
	{ kind: "google-oauth-secret", input: `${GOOGLE_OAUTH}`, output: R("google-oauth-secret"), count: 1 },
	{ kind: "telegram-bot-token", input: `/bot${TELEGRAM}/`, output: `/bot${R("telegram-bot-token")}/`, count: 1 },
	{ kind: "age-secret-key", input: AGE, output: R("age-secret-key"), count: 1 },
	{
		kind: "azure-key",
		input: `${AZURE}\nhttps://a.blob.core.windows.net/c/f?sv=2022-11-02&sig=${alnum(40)}%3D&se=x`,
		output: `${AZURE.replace(AZURE_KEY, R("azure-key"))}\nhttps://a.blob.core.windows.net/c/f?sv=2022-11-02&sig=${R("azure-key")}&se=x`,
		count: 2,
	},
	{
		kind: "env-secret",
		input: ENV_DUMP,
		output: `DB_${"PASS"}WORD=${R("env-secret")}\nJWT_${"SEC"}RET=${R("env-secret")}\nexport API_${"KEY"}="${R("env-secret")}"\nPWD=/home/me\nmax_tokens: 4096`,
		count: 3,
	},
	{
		kind: "api-key",
		input: `ANTHROPIC_API_KEY=${ANTHROPIC}\nOPENAI_API_KEY="${OPENAI_PROJECT}" old: ${OPENAI_CLASSIC}.`,
		output: `ANTHROPIC_API_KEY=${R("api-key")}\nOPENAI_API_KEY="${R("api-key")}" old: ${R("api-key")}.`,
		count: 3,
	},
	{
		kind: "stripe-key",
		input: `stripe.api_key = '${STRIPE}'`,
		output: `stripe.api_key = '${R("stripe-key")}'`,
		count: 1,
	},
	{
		kind: "github-token",
		input: `${GITHUB_CLASSIC} ${GITHUB_OAUTH}\ntoken: ${GITHUB_SERVER}; GH_TOKEN=${GITHUB_FINE}`,
		output: `${R("github-token")} ${R("github-token")}\ntoken: ${R("github-token")}; GH_TOKEN=${R("github-token")}`,
		count: 4,
	},
	{
		kind: "slack-token",
		input: `SLACK_BOT_TOKEN=${SLACK_BOT} and ${SLACK_USER}`,
		output: `SLACK_BOT_TOKEN=${R("slack-token")} and ${R("slack-token")}`,
		count: 2,
	},
	{
		kind: "google-api-key",
		input: `https://maps.googleapis.com/maps/api/js?key=${GOOGLE}&callback=init`,
		output: `https://maps.googleapis.com/maps/api/js?key=${R("google-api-key")}&callback=init`,
		count: 1,
	},
	{
		kind: "aws-access-key-id",
		input: `aws_access_key_id = ${AWS_ID}\n"AccessKeyId": "${AWS_SESSION_ID}",`,
		output: `aws_access_key_id = ${R("aws-access-key-id")}\n"AccessKeyId": "${R("aws-access-key-id")}",`,
		count: 2,
	},
	{
		kind: "aws-secret-key",
		input: [
			`aws_secret_access_key = ${AWS_SECRET}`,
			`export AWS_SECRET_ACCESS_KEY="${AWS_SECRET}"`,
			`"SecretAccessKey": "${AWS_SECRET}",`,
			`$ aws configure set aws_secret_access_key ${AWS_SECRET}`,
			`secret-access-key: ${AWS_SECRET}`,
		].join("\n"),
		output: [
			`aws_secret_access_key = ${R("aws-secret-key")}`,
			`export AWS_SECRET_ACCESS_KEY="${R("aws-secret-key")}"`,
			`"SecretAccessKey": "${R("aws-secret-key")}",`,
			`$ aws configure set aws_secret_access_key ${R("aws-secret-key")}`,
			`secret-access-key: ${R("aws-secret-key")}`,
		].join("\n"),
		count: 5,
	},
	{
		kind: "jwt",
		input: `GET /callback?id_token=${JWT}&state=1 — token ${JWT}.`,
		output: `GET /callback?id_token=${R("jwt")}&state=1 — token ${R("jwt")}.`,
		count: 2,
	},
	{
		kind: "private-key",
		input: `cat key.pem\n${PEM}\n$ ls`,
		output: `cat key.pem\n${R("private-key")}\n$ ls`,
		count: 1,
	},
	{
		kind: "url-password",
		input: "DATABASE_URL=postgres://alice:s3cr3t@db.example.com:5432/app",
		output: `DATABASE_URL=postgres://alice:${R("url-password")}@db.example.com:5432/app`,
		count: 1,
	},
	{
		kind: "bearer-token",
		input: `curl -H "Authorization: Bearer abc.DEF-123_~+/=" https://api.example.com`,
		output: `curl -H "Authorization: Bearer ${R("bearer-token")}" https://api.example.com`,
		count: 1,
	},
	{
		kind: "basic-auth",
		input: "Authorization: Basic dXNlcjpwYXNzd29yZA==\r\nHost: x",
		output: `Authorization: Basic ${R("basic-auth")}\r\nHost: x`,
		count: 1,
	},
	{
		kind: "hex-secret",
		input: `SECRET_KEY=${hex(64)}\nDD_API_KEY: ${hex(32).toUpperCase()}\nmailgun key-${hex(32)}`,
		output: `SECRET_KEY=${R("hex-secret")}\nDD_API_KEY: ${R("hex-secret")}\nmailgun key-${R("hex-secret")}`,
		count: 3,
	},
];

for (const { kind, input, output, count } of KIND_CASES) {
	test(`${kind} is redacted and counted`, () => {
		assert.deepEqual(redact(input), { text: output, counts: { [kind]: count } });
	});
}

test("every kind has a case above, and kind names are stable", () => {
	const covered = new Set(KIND_CASES.map((c) => c.kind));
	assert.deepEqual(
		REDACTION_KINDS.filter((kind) => !covered.has(kind)),
		[],
	);
	assert.equal(redactionMarker("api-key"), "[REDACTED:api-key]");
});

test("redactText without counts, and text without secrets is returned as is", () => {
	assert.equal(redactText(`key ${OPENAI_CLASSIC}`), `key ${R("api-key")}`);
	const plain = "nothing to see here";
	assert.equal(redactText(plain), plain);
	assert.equal(redactText(""), "");
});

// ---- kinds in detail -----------------------------------------------------------------------------

test("private-key: every PEM flavour, JSON-escaped blocks, one marker per block", () => {
	const flavours = ["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"];
	for (const label of flavours) {
		const block = `-----BEGIN ${label}-----\n${PEM_BODY}\n-----END ${label}-----`;
		assert.deepEqual(redact(`a\n${block}\nb`), { text: `a\n${R("private-key")}\nb`, counts: { "private-key": 1 } });
	}
	const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----`;
	assert.equal(redactText(pgp), R("private-key"));
	const encrypted = `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${hex(16).toUpperCase()}\n\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----`;
	assert.equal(redactText(encrypted), R("private-key"));
	// A service-account JSON file as a tool printed it: the newlines are `\n` escapes.
	const escaped = JSON.stringify({ type: "service_account", private_key: `${PEM}\n`, client_email: "a@b.iam" });
	assert.deepEqual(redact(escaped), {
		text: `{"type":"service_account","private_key":"${R("private-key")}\\n","client_email":"a@b.iam"}`,
		counts: { "private-key": 1 },
	});
	assert.deepEqual(redact(`${PEM}\n${PEM}`), {
		text: `${R("private-key")}\n${R("private-key")}`,
		counts: { "private-key": 2 },
	});
});

test("private-key: a block without its end is redacted through its body; public material is kept", () => {
	const truncated = `-----BEGIN ${"PRIVATE"} KEY-----\n${PEM_BODY}\n[output truncated]`;
	assert.deepEqual(redact(truncated), { text: `${R("private-key")}[output truncated]`, counts: { "private-key": 1 } });
	// The next END is a certificate's: the key's own end is missing.
	const mismatched = `-----BEGIN ${"PRIVATE"} KEY-----\n${PEM_BODY}\n(cut)\n-----END CERTIFICATE-----`;
	assert.equal(redactText(mismatched), `${R("private-key")}(cut)\n-----END CERTIFICATE-----`);
	const publicMaterial = [
		`-----BEGIN PUBLIC KEY-----\n${PEM_BODY}\n-----END PUBLIC KEY-----`,
		`-----BEGIN CERTIFICATE-----\n${PEM_BODY}\n-----END CERTIFICATE-----`,
		"A key file starts with -----BEGIN and ends with -----END lines.",
	].join("\n");
	assert.deepEqual(redact(publicMaterial), { text: publicMaterial, counts: {} });
});

test("jwt: three or five parts; unsigned tokens and other dotted names are kept", () => {
	const jwe = `${"eyJ"}hbGciOiJSU0EtT0FFUCJ9.${alnum(40)}.${alnum(16)}.${alnum(60)}.${alnum(22)}`;
	assert.equal(redactText(`jwe ${jwe} end`), `jwe ${R("jwt")} end`);
	const unsigned = `${"eyJ"}hbGciOiJub25lIn0.${"eyJ"}zdWIiOiIxIn0.`;
	const kept = `${unsigned} eyJ.a.b ${"eyJ"}hbGciOi.payload package.json a.b.c`;
	assert.deepEqual(redact(kept), { text: kept, counts: {} });
});

test("api-key and friends: look-alikes without a digit or too short are kept", () => {
	const kept =
		"sk-this-is-not-a-real-key-at-all task-based-approach-number-one skeleton sk-learn sk-12 " +
		`pk_live_${alnum(24)} xoxb-not-a-token-at-all ghp_short AKIAIOSFODNN7 AIzaShort`;
	assert.deepEqual(redact(kept), { text: kept, counts: {} });
	// Glued to a longer word, a prefix is not a token's start.
	const glued = `mask-${alnum(30)} xAKIAIOSFODNN7EXAMPLE AKIAIOSFODNN7EXAMPLEX`;
	assert.deepEqual(redact(glued), { text: glued, counts: {} });
});

test("url-password: only the password goes; user, host, port and path stay", () => {
	const cases: Array<[string, string]> = [
		["mysql://root:pw@localhost/db", `mysql://root:${R("url-password")}@localhost/db`],
		// As a URL parser does: the user info ends at the last `@` of the authority.
		["postgres://u:p@ss@w0rd@host:5432/x?a=b", `postgres://u:${R("url-password")}@host:5432/x?a=b`],
		["redis://:hunter2@cache:6379", `redis://:${R("url-password")}@cache:6379`],
		["mongodb+srv://app:Pa%24%24@cluster0.x.net/", `mongodb+srv://app:${R("url-password")}@cluster0.x.net/`],
		["(https://me:tok@example.com/a)", `(https://me:${R("url-password")}@example.com/a)`],
	];
	for (const [input, output] of cases) assert.deepEqual(redact(input), { text: output, counts: { "url-password": 1 } });
	const kept = [
		"https://example.com:8080/path?q=1",
		"ssh://git@github.com:22/org/repo.git",
		"git@github.com:org/repo.git",
		"mail me at someone@example.com",
		`postgres://user:$\{DB_PASSWORD}@db/app`,
		"postgres://user:$PGPASSWORD@db/app",
		"postgres://user:****@db/app",
		"postgres://user:<password>@db/app",
		"http://localhost:3000/",
	].join("\n");
	assert.deepEqual(redact(kept), { text: kept, counts: {} });
});

test("url-password: a password that another rule already redacted is not counted twice", () => {
	assert.deepEqual(redact(`https://x-access-token:${GITHUB_SERVER}@github.com/o/r.git`), {
		text: `https://x-access-token:${R("github-token")}@github.com/o/r.git`,
		counts: { "github-token": 1 },
	});
});

test("bearer-token: header forms of any case; placeholders and prose are kept", () => {
	const cases: Array<[string, string]> = [
		['{"Authorization": "Bearer abc123"}', `{"Authorization": "Bearer ${R("bearer-token")}"}`],
		["authorization: bearer x", `authorization: bearer ${R("bearer-token")}`],
		["AUTHORIZATION=BEARER tok_1", `AUTHORIZATION=BEARER ${R("bearer-token")}`],
		["Proxy-Authorization: Bearer t0k", `Proxy-Authorization: Bearer ${R("bearer-token")}`],
		["-H 'Authorization:Bearer abc.def.ghi'", `-H 'Authorization:Bearer ${R("bearer-token")}'`],
		[`using Bearer ${alnum(24)} now`, `using Bearer ${R("bearer-token")} now`],
	];
	for (const [input, output] of cases) assert.deepEqual(redact(input), { text: output, counts: { "bearer-token": 1 } });
	const kept = [
		'-H "Authorization: Bearer $TOKEN"',
		"headers = {'Authorization': f'Bearer {token}'}",
		"Authorization: Bearer <your-token>",
		"The bearer of bad news; Bearer authentication (RFC 6750) uses Bearer tokens-described-in-the-spec.",
		'"token_type": "Bearer"',
	].join("\n");
	assert.deepEqual(redact(kept), { text: kept, counts: {} });
});

test("a token inside a bearer header keeps its own kind and is counted once", () => {
	assert.deepEqual(redact(`Authorization: Bearer ${JWT}`), {
		text: `Authorization: Bearer ${R("jwt")}`,
		counts: { jwt: 1 },
	});
	assert.deepEqual(redact(`x-api-key: ${ANTHROPIC}\nAuthorization: Bearer ${OPENAI_PROJECT}`), {
		text: `x-api-key: ${R("api-key")}\nAuthorization: Bearer ${R("api-key")}`,
		counts: { "api-key": 2 },
	});
});

// ---- the hex rule --------------------------------------------------------------------------------

test("hex-secret: 32+ mixed hex digits as a whole token are redacted", () => {
	const cases: Array<[string, string]> = [
		[hex(32), R("hex-secret")],
		[hex(33), R("hex-secret")],
		[hex(64), R("hex-secret")],
		[hex(128), R("hex-secret")],
		[hex(32).toUpperCase(), R("hex-secret")],
		[`"${hex(48)}"`, `"${R("hex-secret")}"`],
		[`API_KEY_${hex(32)}`, `API_KEY_${R("hex-secret")}`],
		// 0x and 64 digits: an Ethereum private key (or a transaction hash; both go).
		[`PRIVATE_KEY=0x${hex(64)}`, `PRIVATE_KEY=${R("hex-secret")}`],
		// An unhyphenated UUID cannot be told from a 128-bit key.
		["550e8400e29b41d4a716446655440000", R("hex-secret")],
		// A 40-digit token after a secret's label is a secret, not a git hash.
		[`GITHUB_TOKEN=${hex(40)}`, `GITHUB_TOKEN=${R("hex-secret")}`],
		[`"apiKey": "${hex(40)}"`, `"apiKey": "${R("hex-secret")}"`],
		[`password: ${hex(40)}`, `password: ${R("hex-secret")}`],
	];
	for (const [input, output] of cases) {
		assert.deepEqual(redact(input), { text: output, counts: { "hex-secret": 1 } }, input);
	}
});

test("hex-secret: git hashes, digests, UUIDs, short hex, numbers and words are kept", () => {
	const sha1 = "9fceb02d0ae598e95dc970b74767f19372d61af8";
	const sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
	const kept = [
		`commit ${sha1}`,
		`$ git rev-parse HEAD\n${sha1}`,
		`https://github.com/o/r/commit/${sha1}`,
		`https://github.com/o/r/blob/${sha1}/src/a.ts`,
		`"resolved": "git+ssh://git@github.com/o/r.git#${sha1}"`,
		`"sha": "${sha1}"`,
		`${sha1} refs/heads/main`,
		"9fceb02 fix: the thing (HEAD -> main)",
		"Merge: 9fceb02d0ae5 1a2b3c4d5e6f",
		`commit ${sha256}`,
		`image@sha256:${sha256}`,
		`--hash=sha256:${sha256}`,
		`md5=${hex(32)}`,
		`sha512:${hex(128)}`,
		`sha-256:${sha256}`,
		`address 0x${hex(40)}`,
		"id 550e8400-e29b-41d4-a716-446655440000 and 01890a5d-ac96-774b-bcce-b302099a8057",
		`thirty-one ${hex(31)}`,
		`digits ${"1234567890".repeat(5)}`,
		`letters ${"deadbeefcafe".repeat(4)}`,
		`embedded g${hex(40)}${hex(24)}x and ${hex(64)}z`,
		"entry ids a1b2c3d4 e5f6a7b8",
	].join("\n");
	assert.deepEqual(redact(kept), { text: kept, counts: {} });
});

// ---- no false positives, idempotence -----------------------------------------------------------

test("ordinary prose, code and session metadata are left exactly as they are", () => {
	const text = [
		"Skip the skeleton; ask-and-answer tasks. Risk-based testing of task-sk-items.",
		"const url = new URL('https://example.com:443/path?x=1#frag');",
		'{"type":"session","version":3,"id":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b","cwd":"/home/me"}',
		'{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}',
		"export OPENAI_API_KEY=   # set me",
		"password: string; token?: string; secret = process.env.SECRET;",
		"Authorization header carries credentials (RFC 7235).",
		"base64 of hello: aGVsbG8gd29ybGQ= and a data URL data:image/png;base64,iVBORw0KGgo=",
		"Version 1.2.3-beta+exp.sha.5114f85, port 5432, user@host:~/src$ ls -la",
	].join("\n");
	assert.deepEqual(redact(text), { text, counts: {} });
});

test("redacting twice changes nothing more: markers are never secrets", () => {
	const once = redactText(
		[...KIND_CASES.map((c) => c.input), `https://u:${OPENAI_CLASSIC}@h`, `commit ${hex(40)}`].join("\n"),
	);
	assert.deepEqual(redact(once), { text: once, counts: {} });
});

test("redaction finds what a replacement uncovers: the hex token after an assignment's value `commit`", () => {
	// fast-check's counterexample to the property below (seed 1311706000): the first pass kept
	// the hex token as a git name (it followed `commit `), then made `commit` a marker as the
	// assignment's value; a second pass redacted the token.
	const text = `aws_secret_access_key=commit ${hex(32)}`;
	const counts: RedactionCounts = {};
	const once = redactText(text, counts);
	assert.equal(once, "aws_secret_access_key=[REDACTED:env-secret] [REDACTED:hex-secret]");
	assert.deepEqual(counts, { "env-secret": 1, "hex-secret": 1 });
	assert.equal(redactTextEveryRule(text), once, "the rules without their shortcuts agree");
	// A hex token after `commit` alone is still a git name.
	assert.equal(redactText(`commit ${hex(32)}`), `commit ${hex(32)}`);
});

test("property: redaction is idempotent on text made of secret-like fragments", () => {
	const fragments = [
		"sk-",
		"eyJ",
		"AKIA",
		"AIza",
		"ghp_",
		"xoxb-",
		"Bearer ",
		"Authorization: ",
		"://",
		":",
		"@",
		"/",
		".",
		"-",
		"_",
		" ",
		"\n",
		"0x",
		"commit ",
		"sha256:",
		"-----BEGIN PRIVATE KEY-----",
		"-----END PRIVATE KEY-----",
		"aws_secret_access_key=",
		"[REDACTED:jwt]",
		hex(16),
		alnum(12),
		"0123",
		"ABCD",
	];
	fc.assert(
		fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 40 }), (parts) => {
			const once = redactText(parts.join(""));
			const counts: RedactionCounts = {};
			assert.equal(redactText(once, counts), once);
			assert.deepEqual(counts, {});
		}),
		{ numRuns: 2000 },
	);
});

// ---- formatCounts --------------------------------------------------------------------------------

test("formatCounts: most frequent first, ties by name, zeros left out, empty for none", () => {
	assert.equal(
		formatCounts({ jwt: 1, "api-key": 2, "hex-secret": 1, "url-password": 0 }),
		"2 api-key, 1 hex-secret, 1 jwt",
	);
	assert.equal(formatCounts({}), "");
	const counts: RedactionCounts = {};
	redactText(`${ANTHROPIC} ${JWT} ${OPENAI_CLASSIC}`, counts);
	assert.equal(formatCounts(counts), "2 api-key, 1 jwt");
});

// ---- records -------------------------------------------------------------------------------------

/** Freezes `value` and everything in it, iteratively. */
function deepFreeze(value: unknown): void {
	const stack = [value];
	for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
		if (typeof item !== "object" || item === null || Object.isFrozen(item)) continue;
		Object.freeze(item);
		stack.push(...Object.values(item));
	}
}

/** A small session: header, a user message with an image, a tool call and its result, custom state. */
function sessionRecords(): object[] {
	return [
		{ type: "session", version: 3, id: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", timestamp: "t", cwd: "/w" },
		{
			type: "message",
			id: "a1b2c3d4",
			parentId: null,
			timestamp: "2026-01-01T00:00:00.000Z",
			message: {
				role: "user",
				content: [
					{ type: "text", text: `my key is ${ANTHROPIC}` },
					{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
				],
				timestamp: 1,
			},
		},
		{
			type: "message",
			id: "b2c3d4e5",
			parentId: "a1b2c3d4",
			timestamp: "2026-01-01T00:00:01.000Z",
			message: {
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "The user pasted a key; do not echo it." },
					{
						type: "toolCall",
						id: "call_1",
						name: "bash",
						arguments: { command: `curl -H "Authorization: Bearer ${JWT}" https://api.x`, timeout: 30 },
					},
				],
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				usage: { input: 10, output: 20, cost: { total: 0.25 } },
				stopReason: "toolUse",
				timestamp: 2,
			},
		},
		{
			type: "message",
			id: "c3d4e5f6",
			parentId: "b2c3d4e5",
			timestamp: "2026-01-01T00:00:02.000Z",
			message: {
				role: "toolResult",
				toolCallId: "call_1",
				toolName: "bash",
				content: [{ type: "text", text: `DATABASE_URL=postgres://app:pw@db/x\n${PEM}` }],
				isError: false,
				timestamp: 3,
			},
		},
		{
			type: "custom",
			id: "d4e5f6a7",
			parentId: "c3d4e5f6",
			timestamp: "2026-01-01T00:00:03.000Z",
			customType: "env",
			data: {
				vars: [
					["AWS_ACCESS_KEY_ID", AWS_ID],
					["AWS_SECRET_ACCESS_KEY", AWS_SECRET],
					[null, true, 0],
				],
			},
		},
	];
}

test("redactRecords: strings at every depth of records and arrays are redacted and counted", () => {
	const { records, counts } = redactRecords(sessionRecords());
	const expected = sessionRecords();
	const user = expected[1];
	const assistant = expected[2];
	const result = expected[3];
	const custom = expected[4];
	assert.ok(user && assistant && result && custom);
	Object.assign(user, {
		message: {
			role: "user",
			content: [
				{ type: "text", text: `my key is ${R("api-key")}` },
				{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
			],
			timestamp: 1,
		},
	});
	const call = { command: `curl -H "Authorization: Bearer ${R("jwt")}" https://api.x`, timeout: 30 };
	const assistantContent = [
		{ type: "thinking", thinking: "The user pasted a key; do not echo it." },
		{ type: "toolCall", id: "call_1", name: "bash", arguments: call },
	];
	Object.assign(assistant, { message: { ...Reflect.get(assistant, "message"), content: assistantContent } });
	const resultText = `DATABASE_URL=postgres://app:${R("url-password")}@db/x\n${R("private-key")}`;
	Object.assign(result, {
		message: { ...Reflect.get(result, "message"), content: [{ type: "text", text: resultText }] },
	});
	// Unlabelled, the AWS secret key is 40 base64 characters: only its labelled forms are found.
	Object.assign(custom, {
		data: {
			vars: [
				["AWS_ACCESS_KEY_ID", R("aws-access-key-id")],
				["AWS_SECRET_ACCESS_KEY", AWS_SECRET],
				[null, true, 0],
			],
		},
	});
	assert.deepEqual(records, expected);
	assert.deepEqual(counts, { "api-key": 1, jwt: 1, "url-password": 1, "private-key": 1, "aws-access-key-id": 1 });
});

test("redactRecords never changes its input and returns new objects", () => {
	const input = sessionRecords();
	const before = JSON.stringify(input);
	deepFreeze(input);
	const { records } = redactRecords(input);
	assert.equal(JSON.stringify(input), before);
	assert.equal(records.length, input.length);
	for (const [i, record] of records.entries()) assert.notEqual(record, input[i]);
	// Even an untouched record is a copy, down to its nested objects.
	const header = input[0];
	assert.deepEqual(records[0], header);
	const nested = { a: { b: [{ c: "plain" }] } };
	const copy = redactRecords([nested]).records[0];
	assert.deepEqual(copy, nested);
	assert.notEqual(Reflect.get(Object(copy), "a"), nested.a);
});

test("redactRecords keeps key order and every non-string value exactly", () => {
	const record = {
		z: 1,
		"10": "ten",
		a: null,
		"2": false,
		m: -0,
		n: Number.MAX_SAFE_INTEGER,
		f: 0.1 + 0.2,
		e: [],
		o: {},
		arr: [3, "x", null, true, [1.5, { y: -1 }]],
		s: "",
	};
	const [copy] = redactRecords([record]).records;
	assert.ok(copy);
	assert.deepEqual(Object.keys(copy), Object.keys(record));
	assert.deepEqual(copy, record);
	assert.ok(Object.is(Reflect.get(copy, "m"), -0));
	assert.equal(Reflect.get(copy, "f"), 0.1 + 0.2);
});

test("redactRecords redacts keys, keeps them distinct and keeps an own __proto__ field", () => {
	const url = "postgres://admin:hunter2@db:5432/app";
	const record = JSON.parse(
		`{"first":1,"${OPENAI_CLASSIC}":2,"${ANTHROPIC}":3,"[REDACTED:api-key] #2":4,"${url}":"ok","__proto__":{"x":"${GITHUB_CLASSIC}"},"last":5}`,
	);
	const { records, counts } = redactRecords([record]);
	const [copy] = records;
	assert.ok(copy);
	assert.deepEqual(Object.keys(copy), [
		"first",
		"[REDACTED:api-key]",
		"[REDACTED:api-key] #3",
		"[REDACTED:api-key] #2",
		`postgres://admin:${R("url-password")}@db:5432/app`,
		"__proto__",
		"last",
	]);
	assert.deepEqual(Object.values(copy).slice(0, 5), [1, 2, 3, 4, "ok"]);
	assert.equal(Object.getPrototypeOf(copy), Object.prototype);
	assert.deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { x: R("github-token") });
	assert.deepEqual(counts, { "api-key": 2, "url-password": 1, "github-token": 1 });
});

test("redactRecords: a field's name can make its value a secret", () => {
	const record = {
		headers: { Authorization: "Bearer abc", "proxy-authorization": "Basic dXNlcjpwdw==", accept: "Bearer abc" },
		credentials: { aws_secret_access_key: AWS_SECRET, SecretAccessKey: ` ${AWS_SECRET}`, secret: AWS_SECRET },
		jwt: { authorization: `Bearer ${JWT}` },
		placeholder: { Authorization: `Bearer $\{TOKEN}` },
	};
	const { records, counts } = redactRecords([record]);
	assert.deepEqual(records, [
		{
			headers: {
				Authorization: `Bearer ${R("bearer-token")}`,
				"proxy-authorization": `Basic ${R("basic-auth")}`,
				accept: "Bearer abc",
			},
			credentials: {
				aws_secret_access_key: R("aws-secret-key"),
				SecretAccessKey: R("aws-secret-key"),
				secret: AWS_SECRET,
			},
			jwt: { authorization: `Bearer ${R("jwt")}` },
			placeholder: { Authorization: `Bearer $\{TOKEN}` },
		},
	]);
	assert.deepEqual(counts, { "bearer-token": 1, "basic-auth": 1, "aws-secret-key": 2, jwt: 1 });
});

test("redactRecords keeps an image block's base64 data byte for byte", () => {
	// Random base64 can hold what a pattern takes for a secret between two `/` or `+`.
	const lookalike = `iVBORw0KGgo/${hex(64)}/${AWS_ID}+${alnum(40)}==`;
	assert.notEqual(redactText(lookalike), lookalike);
	const big = `${alnum(1000)}/${hex(32)}/`.repeat(50);
	const message = {
		role: "toolResult",
		content: [
			{ type: "image", data: lookalike, mimeType: "image/png" },
			{ type: "image", data: big, mimeType: "image/jpeg" },
			{ type: "text", text: `/${hex(64)}/` },
			// Not base64: not image data, whatever its block says.
			{ type: "image", data: `oops ${OPENAI_CLASSIC}`, mimeType: "image/png" },
			// A `data` field of anything but an image block is text.
			{ type: "custom", data: `/${hex(64)}/` },
		],
	};
	const { records, counts } = redactRecords([message]);
	assert.deepEqual(records, [
		{
			role: "toolResult",
			content: [
				{ type: "image", data: lookalike, mimeType: "image/png" },
				{ type: "image", data: big, mimeType: "image/jpeg" },
				{ type: "text", text: `/${R("hex-secret")}/` },
				{ type: "image", data: `oops ${R("api-key")}`, mimeType: "image/png" },
				{ type: "custom", data: `/${R("hex-secret")}/` },
			],
		},
	]);
	assert.deepEqual(counts, { "hex-secret": 2, "api-key": 1 });
});

test("redactRecords copies a shared object once and follows cycles without looping", () => {
	const shared = { token: GITHUB_CLASSIC };
	const cyclic: { name: string; self?: unknown; list: unknown[] } = { name: "loop", list: [] };
	cyclic.self = cyclic;
	cyclic.list.push(cyclic, shared);
	const { records, counts } = redactRecords([{ a: shared, b: shared }, cyclic]);
	const [pair, loop] = records;
	assert.ok(pair && loop);
	assert.equal(Reflect.get(pair, "a"), Reflect.get(pair, "b"));
	assert.deepEqual(Reflect.get(pair, "a"), { token: R("github-token") });
	assert.equal(Reflect.get(loop, "self"), loop);
	const list = Reflect.get(loop, "list");
	assert.ok(Array.isArray(list));
	assert.equal(list[0], loop);
	assert.equal(list[1], Reflect.get(pair, "a"));
	assert.deepEqual(counts, { "github-token": 1 });
});

test("redactRecords keeps values that are not plain data as they are", () => {
	const date = new Date(0);
	const map = new Map([["k", OPENAI_CLASSIC]]);
	const [copy] = redactRecords([{ date, map, n: undefined }]).records;
	assert.ok(copy);
	assert.equal(Reflect.get(copy, "date"), date);
	assert.equal(Reflect.get(copy, "map"), map);
	assert.ok("n" in copy);
	const [top] = redactRecords([date]).records;
	assert.equal(top, date);
});

test("redactRecords handles 100,000 levels of nesting without overflowing the stack", () => {
	const depth = 100_000;
	const leaf = { secret: OPENAI_CLASSIC };
	let root: unknown = leaf;
	for (let i = 0; i < depth; i++) root = i % 2 === 0 ? [root, "x"] : { next: root, id: i };
	assert.ok(typeof root === "object" && root !== null);
	const { records, counts } = redactRecords([root]);
	assert.deepEqual(counts, { "api-key": 1 });
	let source: unknown = root;
	let copy: unknown = records[0];
	for (let i = depth - 1; i >= 0; i--) {
		assert.notEqual(copy, source);
		if (Array.isArray(source)) {
			assert.ok(Array.isArray(copy) && copy.length === 2 && copy[1] === "x");
			source = source[0];
			copy = copy[0];
		} else {
			assert.ok(typeof copy === "object" && copy !== null && typeof source === "object" && source !== null);
			assert.equal(Reflect.get(copy, "id"), Reflect.get(source, "id"));
			source = Reflect.get(source, "next");
			copy = Reflect.get(copy, "next");
		}
	}
	assert.deepEqual(copy, { secret: R("api-key") });
	assert.notEqual(copy, leaf);
});

// ---- time ----------------------------------------------------------------------------------------

/** Milliseconds `run` takes. */
function timed(run: () => void): number {
	const started = performance.now();
	run();
	return performance.now() - started;
}

const MB = 1 << 20;
/** `unit` repeated to one megabyte. */
function megabyteOf(unit: string): string {
	return unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
}

test("every pattern is linear: a megabyte of adversarial text takes well under a second", () => {
	const inputs: Record<string, string> = {
		"sk- repeated": megabyteOf("sk-"),
		"sk- and one long token": `sk-${"a".repeat(MB)}`,
		"stripe prefixes": megabyteOf("sk_live_"),
		"github prefixes": megabyteOf("ghp_"),
		"github_pat prefixes": megabyteOf("github_pat_"),
		"slack prefixes": megabyteOf("xoxb-"),
		"google prefixes": megabyteOf("AIza"),
		"google near miss": megabyteOf(`AIza${alnum(36)} `),
		"aws prefixes": megabyteOf("AKIA"),
		"aws near miss": megabyteOf("AKIAAAAAAAAAAAAAAAA "),
		"aws secret labels": megabyteOf("aws_secret_access_key="),
		"aws secret label and blanks": `aws_secret_access_key${" ".repeat(MB)}`,
		"jwt headers": megabyteOf("eyJ"),
		"jwt two parts": megabyteOf("eyJaaaaaaa.bbbbbb "),
		"jwt dots": megabyteOf("eyJaaaaaa."),
		"jwt one long part": `eyJ${"a".repeat(MB)}`,
		"pem headers without end": megabyteOf("-----BEGIN PRIVATE KEY-----"),
		"pem ends": megabyteOf("-----END PRIVATE KEY-----"),
		"pem begin and wrong ends": megabyteOf("-----BEGIN RSA PRIVATE KEY-----x-----END CERTIFICATE-----."),
		"pem near-miss headers": megabyteOf("-----BEGIN A B C D E PRIVATE KEY-----"),
		"url schemes": megabyteOf("a://"),
		"url user and colon": `a://b:${"c".repeat(MB)}`,
		"url colons": `a://${"b:".repeat(MB / 2)}`,
		"url at signs": `a://b:${"c@".repeat(MB / 2)}/`,
		"url long scheme": megabyteOf(`${"s".repeat(40)}://`),
		"authorization headers": megabyteOf("Authorization: "),
		"authorization blanks": `Authorization:${" ".repeat(MB)}`,
		"bearer words": megabyteOf("Bearer "),
		"bearer blanks": `Bearer${" ".repeat(MB)}`,
		"bearer short tokens": megabyteOf("Bearer abcdefghijklmnopqrs "),
		"hex run with a letter after": `${hex(MB)}g`,
		"hex runs of 31": megabyteOf(`${hex(31)} `),
		"hex runs glued to words": megabyteOf(`${hex(40)}g`),
		"0x repeated": megabyteOf("0x"),
		"labelled 40-digit tokens": megabyteOf(`token=${hex(40)} `),
		"commit hashes": megabyteOf(`commit ${hex(64)}\n`),
		"hf prefixes": megabyteOf("hf_"),
		"hf one long token": `hf_${"a".repeat(MB)}`,
		"npm near miss": megabyteOf(`npm_${alnum(35)} `),
		"gitlab prefixes": megabyteOf("glpat-"),
		"sendgrid dots": megabyteOf("SG.aaaaaaaaaaaaaaaaaaaaaa."),
		"telegram digits": megabyteOf("1234567890:AA"),
		"azure labels": megabyteOf("AccountKey="),
		"azure long value": `AccountKey=${"a".repeat(MB)}`,
		"env keywords": megabyteOf("PASSWORD="),
		"env name runs": megabyteOf("A_B_C_D_E_F_G_H_I_J_K_L_M_N_O_P_Q_R_S_T_U_V_W_X_Y_Z_"),
		"env names without =": megabyteOf(`${"X".repeat(39)}TOKEN `),
		"env long value": `SECRET=${"v".repeat(MB)}`,
		"env separators": `TOKEN${" ".repeat(MB)}`,
		"one letter": "a".repeat(MB),
		spaces: " ".repeat(MB),
	};
	for (const [name, input] of Object.entries(inputs)) {
		const ms = timed(() => redactText(input));
		assert.ok(ms < 500, `${name}: ${ms.toFixed(0)} ms`);
	}
});

test("a 5 MB text with secrets scattered through it is redacted quickly and completely", () => {
	const prose = "The quick brown fox jumps over the lazy dog; see https://example.com/a?b=c and commit 9fceb02.\n";
	const secrets = [ANTHROPIC, JWT, `postgres://u:pw@h/db`, hex(64), GITHUB_CLASSIC, AWS_ID];
	const parts: string[] = [];
	let length = 0;
	let placed = 0;
	while (length < 5 * MB) {
		const part = parts.length % 50 === 49 ? `${secrets[placed++ % secrets.length]}\n` : prose;
		parts.push(part);
		length += part.length;
	}
	const text = parts.join("");
	const counts: RedactionCounts = {};
	let out = "";
	const ms = timed(() => {
		out = redactText(text, counts);
	});
	assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
	const total = Object.values(counts).reduce((a, b) => a + b, 0);
	assert.equal(total, placed);
	assert.ok(!out.includes(ANTHROPIC) && !out.includes(GITHUB_CLASSIC) && !out.includes(":pw@"));
	// And as a field of a record.
	const recordMs = timed(() => redactRecords([{ type: "message", message: { content: [{ type: "text", text }] } }]));
	assert.ok(recordMs < 2000, `${recordMs.toFixed(0)} ms`);
});

// ---- the shortcuts: pre-tests and gates find every secret the rules alone find ------------------

test("hasHexRun says what /[0-9a-f]{32}/i says, at every offset and run length", () => {
	const reference = /[0-9a-f]{32}/i;
	for (let before = 0; before < 70; before++) {
		for (let run = 28; run <= 36; run++) {
			for (const edge of ["", "g", "-", "Z", "é"]) {
				const text = `${"x".repeat(before)}${edge}${"aF3".repeat(12).slice(0, run)}${edge}${"y".repeat(before % 5)}`;
				assert.equal(hasHexRun(text), reference.test(text), JSON.stringify(text));
			}
		}
	}
	fc.assert(
		fc.property(
			fc.array(fc.constantFrom("0", "a", "F", "9", "g", " ", "-", "é", "\n", hex(16), hex(31)), { maxLength: 60 }),
			(parts) => {
				const text = parts.join("");
				assert.equal(hasHexRun(text), reference.test(text), JSON.stringify(text));
			},
		),
		{ numRuns: 5000 },
	);
});

test("property: redactText equals every rule run on every text (pre-tests and gates lose nothing)", () => {
	const secrets = KIND_CASES.map((c) => c.input);
	// Pieces of every kind's literal part, in both cases (the case-blind rules' gates must be too).
	const fragments = [
		...secrets,
		...secrets.map((s) => s.toUpperCase()),
		...secrets.map((s) => s.toLowerCase()),
		"Bearer ",
		"bEaReR ",
		"Authorization: ",
		"AUTHORIZATION=",
		"proxy-authorization: basic ",
		"://u:",
		"@h",
		"aws_secret_access_key=",
		"SECRET_ACCESS_KEY ",
		"AccountKey=",
		"SIG=",
		"PassPhrase: ",
		"my_token=",
		"Credentials: ",
		"glsoat-",
		"dor_v1_",
		"shpss_",
		":AA",
		"0x",
		"sha256:",
		"commit ",
		hex(16),
		hex(32).toUpperCase(),
		alnum(12),
		alnum(40),
		"0123",
		" ",
		"\n",
		'"',
		"=",
	];
	fc.assert(
		fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 12 }), (parts) => {
			const text = parts.join("");
			const fast: RedactionCounts = {};
			const every: RedactionCounts = {};
			assert.equal(redactText(text, fast), redactTextEveryRule(text, every));
			assert.deepEqual(fast, every);
		}),
		{ numRuns: 3000 },
	);
	// And each kind's own case, where the expected text is written out above.
	for (const { input, output } of KIND_CASES) assert.equal(redactTextEveryRule(input), output);
});

test("redactRecords: a field name with a secret is redacted every time, however often clean names repeat", () => {
	const key = `${"gh"}p_${alnum(36)}`;
	const records = Array.from({ length: 5 }, (_, i) => ({ role: "user", totalTokens: i, [key]: i }));
	const { records: copies, counts } = redactRecords(records);
	assert.deepEqual(counts, { "github-token": 5 });
	for (const [i, copy] of copies.entries()) {
		assert.deepEqual(copy, { role: "user", totalTokens: i, [R("github-token")]: i });
	}
});

test("property: holdsSecret is false only for records redactRecords gives back unchanged", () => {
	const secrets = KIND_CASES.map((c) => c.input);
	const texts = [
		...secrets,
		"plain words",
		"Bearer abc",
		"Basic dXNlcjpwdw==",
		AWS_SECRET,
		`/${hex(64)}/`,
		"totalTokens",
		"",
		"token budget",
		"https://example.com/x",
	];
	// Names that make a value a secret, names that hold one, and ordinary ones.
	const names = ["role", "text", "data", "type", "totalTokens", "Authorization", "aws_secret_access_key", "headers"];
	const names2 = [...names, ...secrets.slice(0, 3)];
	const value = fc.letrec<{ value: unknown }>((tie) => ({
		value: fc.oneof(
			{ depthSize: "small", withCrossShrink: true },
			fc.constantFrom<unknown>(...texts, 1, null, true),
			fc.array(tie("value"), { maxLength: 4 }),
			fc.dictionary(fc.constantFrom(...names2), tie("value"), { maxKeys: 4 }),
			fc.record({ type: fc.constant("image"), data: fc.constantFrom(`iVBORw0KGgo/${hex(64)}/`, secrets[0] ?? "") }),
		),
	})).value;
	let unchanged = 0;
	let changed = 0;
	fc.assert(
		fc.property(fc.dictionary(fc.constantFrom(...names2), value, { maxKeys: 5 }), (record) => {
			const { records, counts } = redactRecords([record]);
			const same = Object.keys(counts).length === 0 && JSON.stringify(records[0]) === JSON.stringify(record);
			if (!holdsSecret(record)) {
				assert.ok(same, JSON.stringify(record));
				unchanged++;
			} else {
				// True without a change only for a field named as a header or the AWS key's label.
				const special = /authorization|aws_secret_access_key/i.test(JSON.stringify(record));
				if (!special) assert.ok(!same, JSON.stringify(record));
				if (!same) changed++;
			}
		}),
		{ numRuns: 3000 },
	);
	// Both answers were given many times (the property did not hold by never asking).
	assert.ok(unchanged > 300 && changed > 300, `${unchanged} unchanged, ${changed} changed`);
	// Each kind alone, in a value and as a name.
	for (const secret of secrets) {
		assert.equal(holdsSecret({ message: { content: [{ type: "text", text: secret }] } }), true);
		assert.equal(holdsSecret({ [secret]: 1 }), true);
	}
	assert.equal(holdsSecret({ type: "message", message: { role: "user", content: "hello", totalTokens: 3 } }), false);
	// A value that would be redacted only for its field's name.
	assert.equal(holdsSecret({ headers: { Authorization: "Bearer abc" } }), true);
	// A record that holds itself is answered true (the full redaction handles cycles).
	const cyclic: { self?: unknown } = {};
	cyclic.self = cyclic;
	assert.equal(holdsSecret(cyclic), true);
});

test("the one-scan pre-test (CANDIDATE) matches exactly the strings ANY_CANDIDATE or SERVICE_CANDIDATE match", () => {
	// The reference is the two expressions as written (one alternative per rule); the text is
	// made of pieces of every alternative, cut and in mixed case, so that near misses (a piece
	// without its last letter, `gl` + five letters + `-`) are tried as often as matches.
	const literals = [
		"eyJ",
		"sk-",
		"k_live_",
		"k_test_",
		"ghp_",
		"gho_",
		"ghu_",
		"ghs_",
		"ghr_",
		"github_pat_",
		"xox",
		"AIza",
		"AKIA",
		"ASIA",
		"secret",
		"://",
		"bearer",
		"basic",
		"hf_",
		"api_org_",
		"npm_",
		"glpat-",
		"glsoat-",
		"glabct-",
		"gla-",
		"glabcde-",
		"pypi-",
		"SG.",
		"shp",
		"doo_v1_",
		"dop_v1_",
		"dor_v1_",
		"GOCSPX-",
		":AA",
		"AGE-SECRET",
		"accountkey",
		"sharedaccesskey",
		"sig=",
		"passw",
		"passphrase",
		"token",
		"apikey",
		"api_key",
		"accesskey",
		"access_key",
		"privatekey",
		"private_key",
		"authkey",
		"auth_key",
		"credential",
	];
	const pieces = literals.flatMap((literal) => [literal, literal.slice(0, -1), literal.slice(1)]);
	const mixCase = (text: string, mask: number) =>
		[...text].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join("");
	let matched = 0;
	let runs = 0;
	fc.assert(
		fc.property(
			fc.array(fc.oneof(fc.constantFrom(...pieces), fc.constantFrom(" ", "_", "-", "a", "Z", "é", "\n")), {
				maxLength: 8,
			}),
			fc.nat(),
			(parts, mask) => {
				const text = mixCase(parts.join(""), mask);
				const expected = ANY_CANDIDATE.test(text) || SERVICE_CANDIDATE.test(text);
				assert.equal(CANDIDATE.test(text), expected, JSON.stringify(text));
				// The narrower pre-test is the same expression less its `token`.
				assert.equal(CANDIDATE_BUT_TOKEN.test(text) || /token/i.test(text), expected, JSON.stringify(text));
				runs++;
				if (expected) matched++;
			},
		),
		{ numRuns: 5000 },
	);
	// Both answers came often enough for the comparison to mean something.
	assert.ok(matched > runs / 10 && matched < runs - runs / 10, `matched ${matched} of ${runs}`);
	// And each piece alone (`glabcde-` is a near miss: five letters where four are the most).
	for (const literal of literals) {
		assert.equal(CANDIDATE.test(literal), ANY_CANDIDATE.test(literal) || SERVICE_CANDIDATE.test(literal), literal);
		assert.equal(CANDIDATE_BUT_TOKEN.test(literal), literal !== "token" && CANDIDATE.test(literal), literal);
	}
});

test("a text whose only candidate is `token` is redacted by the rules it can hold, as every rule would", () => {
	// What the narrowed rule set (redact.ts, TOKEN_RULES) must still find: the `.env`
	// assignment of a token, a hex token, both, several; and prose that holds neither.
	const texts = [
		"export GITHUB_TOKEN=abcdef123456",
		`token: ${hex(40)} and the access token=${hex(32)}`,
		`max_tokens: 4096, the tokens were ${hex(32)}`,
		"the model counts tokens, not words; a token is about four characters",
		`MY_TOKEN="${alnum(24)}"\nOTHER_TOKEN: ${alnum(12)}`,
		`commit ${hex(40)} mentions a token`,
	];
	for (const text of texts) {
		assert.equal(CANDIDATE_BUT_TOKEN.test(text), false, text);
		const fast: RedactionCounts = {};
		const every: RedactionCounts = {};
		assert.equal(redactText(text, fast), redactTextEveryRule(text, every), text);
		assert.deepEqual(fast, every, text);
	}
	// The first and the last three but the prose hold a secret each (the rules found something).
	assert.match(redactText(texts[0] as string), /\[REDACTED:env-secret\]/);
	assert.match(redactText(texts[1] as string), /\[REDACTED:hex-secret\]/);
	assert.equal(redactText(texts[3] as string), texts[3]);
});
