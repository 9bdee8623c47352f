// What examples/next-ai-sdk's pages use of react, @ai-sdk/react and next, which are not
// installed here: enough for the pages' type-check (tsconfig.pages.json beside this file).
// `useChat`'s methods are typed by `ai`'s own `AbstractChat`, which @ai-sdk/react's `Chat`
// extends, so a wrong call of `sendMessage` or `regenerate` fails the check; React's and
// Next's own types are not checked here (JSX elements take the props the pages give).

declare namespace React {
	type ReactNode = unknown;
}

declare namespace JSX {
	type Element = unknown;
	/** The props the pages give, with the events as far as the pages read them. */
	interface Props {
		onSubmit?: (event: { preventDefault(): void }) => void;
		onChange?: (event: { target: { value: string } }) => void;
		onClick?: () => void;
		[prop: string]: unknown;
	}
	interface IntrinsicElements {
		[name: string]: Props;
	}
}

declare module "react" {
	export function useState<T>(initial: T): [T, (value: T) => void];
	export function useState<T = undefined>(): [T | undefined, (value: T | undefined) => void];
	// biome-ignore lint/suspicious/noConfusingVoidType: React's EffectCallback returns void or a cleanup
	export function useEffect(effect: () => void | (() => void), deps: unknown[]): void;
}

declare module "@ai-sdk/react" {
	import type { AbstractChat, ChatInit, UIMessage } from "ai";
	export type UseChatHelpers<M extends UIMessage> = Pick<
		AbstractChat<M>,
		"sendMessage" | "regenerate" | "stop" | "status" | "messages" | "error"
	> & { readonly id: string; setMessages: (messages: M[] | ((messages: M[]) => M[])) => void };
	export function useChat<M extends UIMessage = UIMessage>(options?: ChatInit<M>): UseChatHelpers<M>;
}

declare module "next/navigation" {
	export function redirect(url: string): never;
}
