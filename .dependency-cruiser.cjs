/**
 * The layers of src/ and the rule that no module is part of a cycle, checked by
 * dependency-cruiser in `npm run check` (docs/architecture.md, "Layers").
 *
 * A layer may import its own modules and those of the layers below it, never one above, so
 * no two folders import each other. Type-only imports count (`tsPreCompilationDeps`): a type
 * cycle still ties two modules together for whoever reads or moves them. Dynamic `import()`
 * counts too: loading a module later does not make the arrow point the other way.
 */

/** The layers, lowest first; the folders of one entry sit side by side and do not import each other. */
const LAYERS = [
	{ name: "core", paths: ["^src/core/"] },
	{ name: "storage", paths: ["^src/storage/"] },
	{ name: "facade", paths: ["^src/session\\.ts$", "^src/session-log\\.ts$", "^src/session-options\\.ts$"] },
	{ name: "import", paths: ["^src/import/"] },
	{ name: "render", paths: ["^src/render/"] },
	{ name: "catalog", paths: ["^src/catalog/"] },
	// The local web app and its HTTP API: a folder over the facade and the catalog (docs/serve.md).
	{ name: "serve", paths: ["^src/serve/"] },
	// The MCP server: a folder over the facade and the catalog that shares serve's guards and downloads (docs/mcp.md).
	{ name: "mcp", paths: ["^src/mcp/"] },
	{ name: "adapters", paths: ["^src/adapters/"], peers: "top" },
	{ name: "cli", paths: ["^src/cli/"], peers: "top" },
	{ name: "testing", paths: ["^src/testing/"], peers: "top" },
	{ name: "index", paths: ["^src/index\\.ts$"] },
];

/** One rule per layer: nothing of src/ but the layer itself and those below it. */
function layerRules() {
	return LAYERS.map((layer, index) => {
		const below = LAYERS.slice(0, index).filter((other) => !(layer.peers && other.peers === layer.peers));
		const allowed = [...layer.paths, ...below.flatMap((other) => other.paths)];
		return {
			name: `layer-${layer.name}`,
			comment: `${layer.name} imports only ${[layer.name, ...below.map((other) => other.name)].join(", ")} (docs/architecture.md, "Layers")`,
			severity: "error",
			from: { path: layer.paths },
			to: { path: "^src/", pathNot: allowed },
		};
	});
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
	forbidden: [
		{
			name: "no-circular",
			comment: "no module of src/ is part of a cycle, through type-only and dynamic imports too",
			severity: "error",
			from: { path: "^src/" },
			to: { circular: true },
		},
		...layerRules(),
		{
			name: "cases-without-runner",
			comment:
				'the conformance cases and their contexts import no test runner, so any runner runs them; src/testing/node-binding.ts is the node:test binding (docs/architecture.md, "The conformance suites")',
			severity: "error",
			from: { path: ["^src/testing/cases/", "^src/testing/contexts[.]ts$"] },
			to: {
				path: [
					"^(node:)?test$",
					"^vitest",
					"^@jest/",
					"^src/testing/node-binding[.]ts$",
					"^src/testing/conformance[.]ts$",
				],
			},
		},
		{
			name: "no-unresolvable",
			comment:
				"every relative import of src/ resolves: one the cruiser cannot follow would escape the rules above (packages are left to tsc: the optional database drivers may be absent)",
			severity: "error",
			from: { path: "^src/" },
			to: { couldNotResolve: true, path: "^[.]" },
		},
	],
	options: {
		doNotFollow: { path: "node_modules" },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: "tsconfig.json" },
		enhancedResolveOptions: { extensions: [".ts", ".js"], conditionNames: ["import", "types", "default"] },
	},
};
