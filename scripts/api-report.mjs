#!/usr/bin/env node
/**
 * Checks the public API of every entry point in package.json "exports" against its committed
 * report in etc/ (API Extractor, config in api-extractor.json), or with `--local` writes the
 * reports anew.
 *
 * The entry points are read from package.json, not listed here, so a new subpath export cannot
 * go unchecked: without its report the check fails. Each entry's declarations are read from
 * dist-api/ (`tsc -p tsconfig.api.json`, which `npm run check:api` runs first), where dist/'s
 * `./dist/X.d.ts` is `dist-api/X.d.ts`. Report names: "." is etc/session-tree.api.md, "./core"
 * etc/session-tree-core.api.md, and so on.
 *
 * Without `--local` (CI, `npm run check`), any difference from the committed report and any
 * warning fail: API Extractor counts warnings as errors outside a local build.
 *
 * A type in a public signature must be importable (API Extractor's `ae-forgotten-export`).
 * API Extractor asks that of each entry point alone; here "." and "./core" must hold every type
 * their own signatures use, while the other entry points (the stores, the adapters, the
 * conformance suite) may use a type that "." or "./core" exports: a user imports it from there,
 * as docs/architecture.md ("Public API") says.
 *
 * Usage: node scripts/api-report.mjs [--local]
 */

import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const local = process.argv.includes("--local");
const packageJsonPath = join(root, "package.json");
const { name, exports } = JSON.parse(readFileSync(packageJsonPath, "utf8"));
const base = ExtractorConfig.loadFile(join(root, "api-extractor.json"));

/** The entry points with declarations: [subpath, report name, declaration file under dist-api/]. */
const entries = Object.entries(exports)
	.filter(([, target]) => typeof target === "object" && typeof target.types === "string")
	.map(([subpath, target]) => {
		if (!target.types.startsWith("./dist/")) throw new Error(`${subpath}: types outside dist/: ${target.types}`);
		const report = subpath === "." ? name : `${name}-${subpath.slice(2).replaceAll("/", "-")}`;
		return [subpath, report, `dist-api/${target.types.slice("./dist/".length)}`];
	});

// API Extractor writes a report only into a folder that exists.
if (local) mkdirSync(join(root, "etc"), { recursive: true });
/** What API Extractor says when a local build writes a report. */
const REPORT_WRITTEN = new Set(["console-api-report-copied", "console-api-report-created"]);

/** The entry points whose exports the others may use in their signatures. */
const SHARED = [".", "./core"];
const program = ts.createProgram(
	entries.map(([, , declarations]) => join(root, declarations)),
	{
		module: ts.ModuleKind.NodeNext,
		moduleResolution: ts.ModuleResolutionKind.NodeNext,
		types: ["node"],
		skipLibCheck: true,
	},
);
const checker = program.getTypeChecker();
const aliased = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
/** The declarations "." and "./core" export (through their re-exports). */
const shared = new Set();
for (const [subpath, , declarations] of entries) {
	if (!SHARED.includes(subpath)) continue;
	const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, declarations)));
	for (const symbol of checker.getExportsOfModule(module)) {
		for (const declaration of aliased(symbol).declarations ?? []) shared.add(declaration);
	}
}

/**
 * True when the symbol an `ae-forgotten-export` message names is one that "." or "./core"
 * exports: some reference to a symbol of that name inside the declaration the message points at
 * resolves to an exported declaration.
 */
function exportedElsewhere(message) {
	const name = /^The symbol "([^"]+)"/.exec(message.text)?.[1]?.replace(/_\d+$/, "");
	const file = message.sourceFilePath && program.getSourceFile(message.sourceFilePath);
	if (!name || !file) return false;
	const at = file.getPositionOfLineAndCharacter(message.sourceFileLine - 1, message.sourceFileColumn - 1);
	let found = false;
	const visit = (node) => {
		if (found || node.end <= at) return;
		if (ts.isIdentifier(node) && node.text === name && node.getStart(file) >= at) {
			const symbol = checker.getSymbolAtLocation(node);
			found = !!symbol && (aliased(symbol).declarations ?? []).some((d) => shared.has(d));
			return;
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

let failed = 0;
for (const [subpath, report, declarations] of entries) {
	const configObject = structuredClone(base);
	configObject.mainEntryPointFilePath = join(root, declarations);
	configObject.compiler.overrideTsconfig.files = [declarations];
	configObject.apiReport.reportFileName = report;
	// Forgotten exports come to the callback (not into the report) to be judged there.
	configObject.messages.extractorMessageReporting["ae-forgotten-export"] = {
		logLevel: "warning",
		addToApiReportFile: false,
	};
	const config = ExtractorConfig.prepare({
		configObject,
		configObjectFullPath: join(root, "api-extractor.json"),
		packageJsonFullPath: packageJsonPath,
	});
	const messages = [];
	const result = Extractor.invoke(config, {
		localBuild: local,
		messageCallback(message) {
			// Collected and printed under the entry's name, instead of API Extractor's own lines
			// (which repeat its version and config for every entry).
			message.handled = true;
			if (message.messageId === "ae-forgotten-export" && !SHARED.includes(subpath) && exportedElsewhere(message)) {
				// Level none keeps API Extractor from counting it as a warning.
				message.logLevel = "none";
				return;
			}
			if (message.logLevel !== "warning" && message.logLevel !== "error") return;
			// Writing the report is what `--local` is for: said once by "(report updated)".
			if (local && REPORT_WRITTEN.has(message.messageId)) return;
			const where = message.sourceFilePath
				? `${message.sourceFilePath.replace(`${root}/`, "")}:${message.sourceFileLine}:${message.sourceFileColumn}: `
				: "";
			messages.push(`  ${message.logLevel} ${message.messageId}: ${where}${message.text}`);
		},
	});
	// A local build succeeds in spite of warnings; a warning here fails it all the same, so
	// that `npm run api` does not write a report that `npm run check` then refuses.
	const ok = result.succeeded && messages.length === 0;
	const changed = result.apiReportChanged ? (local ? " (report updated)" : " (report differs)") : "";
	console.log(`${ok ? "ok" : "FAIL"} ${subpath}: etc/${report}.api.md${changed}`);
	for (const line of messages) console.log(line);
	if (!ok) failed++;
}
if (failed > 0) {
	console.error(
		local
			? `${failed} entry point(s) with warnings or errors`
			: `${failed} entry point(s) differ from etc/*.api.md or have warnings: if the change is meant, run \`npm run api\` and commit etc/`,
	);
	process.exit(1);
}
