import assert from "node:assert/strict";
import { test } from "node:test";
import { Session } from "../../src/index.js";

test("smoke", () => {
	const s = Session.inMemory({ cwd: "/x" });
	const a = s.appendMessage({ role: "user", content: "hi", timestamp: 1 });
	assert.equal(s.getLeafId(), a);
});
