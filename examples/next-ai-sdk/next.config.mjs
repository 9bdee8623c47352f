/** @type {import('next').NextConfig} */
const nextConfig = {
	// The drivers session-tree's stores load (with import()) for sqlite: and postgres:
	// locations: Next must load them from node_modules at run time, not bundle them
	// (better-sqlite3 is a native module), and the one the app does not install must not fail
	// the build.
	serverExternalPackages: ["better-sqlite3", "pg"],
};

export default nextConfig;
