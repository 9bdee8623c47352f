// What examples/next-ai-sdk uses of `@ai-sdk/openai`, which is not installed here: enough for
// the example's type-check (tsconfig.json beside this file), nothing more.
declare module "@ai-sdk/openai" {
	import type { LanguageModel } from "ai";
	export function openai(modelId: string): LanguageModel;
}
