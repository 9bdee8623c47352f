#!/usr/bin/env node
// session-tree as the memory of an OpenAI Agents SDK app: a real Runner, a session tree in a
// JSONL file, and a model implemented here (canned replies, no network, no API key).
//
//   npm run build && node examples/openai-agents.mjs [DIR]
//
// Three turns (one calls a function tool), then the last question is taken back with popItem()
// and a different one asked: the agent sees the new path, the file keeps both branches.
// Any location works instead of a file: TreeSession.open("sqlite:./agents.db#chat-1"),
// TreeSession.open("postgres://host/db#chat-1"), TreeSession.openIn("./sessions", "chat-1").

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, run, setTracingDisabled, tool, Usage } from "@openai/agents";
import { TreeSession } from "session-tree/openai-agents";
import { z } from "zod";

setTracingDisabled(true);

/** The Agents SDK's Model interface with canned replies: weather questions call a tool. */
class CannedModel {
	calls = 0;

	async getResponse(request) {
		const n = ++this.calls;
		const input = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
		const last = input.at(-1);
		const question = last?.role === "user" && typeof last.content === "string" ? last.content : "";
		const city = /weather in (\w+)/i.exec(question)?.[1];
		let output;
		if (last?.type === "function_call_result") {
			// The runner hands a tool's string back as a text part.
			const text = typeof last.output === "string" ? last.output : last.output.text;
			output = reply(n, `Forecast: ${text}.`);
		} else if (city) {
			output = {
				type: "function_call",
				id: `fc_${n}`,
				callId: `call_${n}`,
				name: "get_weather",
				arguments: JSON.stringify({ city }),
				status: "completed",
			};
		} else {
			const seen = input.filter((item) => item.role === "user").length;
			output = reply(n, `You said "${question}" (I see ${seen} user message${seen === 1 ? "" : "s"}).`);
		}
		return { usage: new Usage(), output: [output], responseId: `resp_${n}` };
	}

	// biome-ignore lint/correctness/useYield: not streamed in this example
	async *getStreamedResponse() {
		throw new Error("not streamed in this example");
	}
}

function reply(n, text) {
	return {
		type: "message",
		id: `msg_${n}`,
		role: "assistant",
		status: "completed",
		content: [{ type: "output_text", text }],
	};
}

const getWeather = tool({
	name: "get_weather",
	description: "The weather in a city",
	parameters: z.object({ city: z.string() }),
	execute: async ({ city }) => `sunny, 21 °C in ${city}`,
});
const agent = new Agent({
	name: "Forecaster",
	instructions: "Answer briefly.",
	model: new CannedModel(),
	tools: [getWeather],
});

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "session-tree-openai-agents-"));
const session = await TreeSession.openIn(dir, "forecast-chat", { provider: "example", model: "canned" });

for (const question of ["Hello!", "What is the weather in Paris?", "Thanks!"]) {
	const result = await run(agent, question, { session });
	console.log(`> ${question}\n  ${result.finalOutput}`);
}

// Take back the last question and its answer: they stay in the tree, on a branch of their own.
const answer = await session.popItem();
const question = await session.popItem();
console.log(`popped: ${JSON.stringify(question.content)} and its answer (${answer.content[0].text})`);

const result = await run(agent, "And the weather in Rome?", { session });
console.log(`> And the weather in Rome?\n  ${result.finalOutput}`);

const items = await session.getItems();
const branches = session.session.listBranches().length;
console.log(`the agent sees ${items.length} items; the session holds ${branches} branches`);
console.log(`see it with: npx session-tree tree ${session.location}`);
await session.close();
