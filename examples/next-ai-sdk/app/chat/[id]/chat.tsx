"use client";

import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { useEffect, useState } from "react";

const textOf = (message: UIMessage) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

export function Chat({ id, initialMessages }: { id: string; initialMessages: UIMessage[] }) {
	const { messages, setMessages, sendMessage, regenerate, status } = useChat({
		id,
		messages: initialMessages,
		transport: new DefaultChatTransport({ api: "/api/chat" }),
	});
	const [input, setInput] = useState("");
	const busy = status === "submitted" || status === "streaming";
	// The controls ask the server again once an answer is stored (or the list changed).
	const version = busy ? "" : messages.map((message) => message.id).join(" ");

	return (
		<main style={{ maxWidth: 720, margin: "2rem auto", fontFamily: "sans-serif" }}>
			{messages.map((message) => (
				<div key={message.id} style={{ margin: "1rem 0" }}>
					<b>{message.role}</b> <Branches chatId={id} messageId={message.id} version={version} onSwitch={setMessages} />
					<div style={{ whiteSpace: "pre-wrap" }}>{textOf(message)}</div>
					{message.role === "user" && (
						<button
							type="button"
							disabled={busy}
							onClick={() => {
								const text = prompt("Edit the message", textOf(message));
								// The same id: the server stores the new text as a sibling of the old one.
								if (text) sendMessage({ text, messageId: message.id });
							}}
						>
							edit
						</button>
					)}
					{message.role === "assistant" && (
						<button type="button" disabled={busy} onClick={() => regenerate({ messageId: message.id })}>
							regenerate
						</button>
					)}
				</div>
			))}
			<form
				onSubmit={(event) => {
					event.preventDefault();
					if (input.trim() === "") return;
					sendMessage({ text: input });
					setInput("");
				}}
			>
				<input value={input} onChange={(event) => setInput(event.target.value)} disabled={busy} />
			</form>
		</main>
	);
}

interface BranchInfo {
	index: number;
	count: number;
	branches: { entryId: string; active: boolean }[];
}

/** "< 2/3 >" beside a message that was edited or regenerated. */
function Branches(props: {
	chatId: string;
	messageId: string;
	version: string;
	onSwitch: (messages: UIMessage[]) => void;
}) {
	const { chatId, messageId, version, onSwitch } = props;
	const [info, setInfo] = useState<BranchInfo>();
	useEffect(() => {
		if (version === "") return;
		const query = new URLSearchParams({ chatId, messageId });
		fetch(`/api/branches?${query}`)
			.then((response) => (response.ok ? response.json() : undefined))
			.then(setInfo);
	}, [chatId, messageId, version]);
	if (!info || info.count < 2) return null;

	const go = async (index: number) => {
		const target = info.branches[index]?.entryId;
		if (!target) return;
		const response = await fetch("/api/branches", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ chatId, target }),
		});
		onSwitch(await response.json());
	};
	return (
		<span>
			<button type="button" disabled={info.index === 0} onClick={() => go(info.index - 1)}>
				{"<"}
			</button>{" "}
			{info.index + 1}/{info.count}{" "}
			<button type="button" disabled={info.index === info.count - 1} onClick={() => go(info.index + 1)}>
				{">"}
			</button>
		</span>
	);
}
