/**
 * Whether the tests run under CI: there, a test that needs something this machine lacks
 * (Chromium, better-sqlite3) fails instead of skipping, since a CI that skipped it would test nothing.
 */
export const UNDER_CI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
