// The model every chat talks to. Any AI SDK provider package works the same way
// (@ai-sdk/anthropic, @ai-sdk/google, …): swap the import and the id.
import { openai } from "@ai-sdk/openai";

export const provider = "openai";
export const modelId = "gpt-5-mini";
export const model = openai(modelId);
