/** @type {import('next').NextConfig} */
const nextConfig = {
	// Native and Node-only modules the stores load: Next must require them at run time, not bundle them.
	serverExternalPackages: ["better-sqlite3", "pg"],
};

export default nextConfig;
