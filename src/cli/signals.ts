/** The end of a command that runs until the user stops it (`serve`, `mcp --http`). */

/**
 * Resolves on the first SIGINT or SIGTERM, taken from the moment it is called: a Ctrl-C that
 * comes while the command is still starting ends it once it is up, instead of killing it
 * halfway (the index half written, a port half bound).
 */
export function untilStopped(): Promise<void> {
	return new Promise<void>((resolve) => {
		const stop = () => {
			process.off("SIGINT", stop);
			process.off("SIGTERM", stop);
			resolve();
		};
		process.on("SIGINT", stop);
		process.on("SIGTERM", stop);
	});
}
