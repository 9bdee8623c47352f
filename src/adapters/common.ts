/**
 * What the framework adapters share: one session per conversation key (a chat id, a session
 * id) inside a place of many sessions, given by a location string. Where those sessions live
 * is decided with every other placement in ../storage/placement.ts (keyed places); the names
 * here are the adapters' for it.
 */

export {
	checkSessionKey,
	type KeyedPlace as SessionPlace,
	keyedPlace as sessionPlace,
	SESSION_KEY,
} from "../storage/placement.js";
