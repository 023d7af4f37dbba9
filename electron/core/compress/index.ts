/** LLM compression of tool results through an OpenAI-compatible chat-completions endpoint. */
export { createChatClient, completionsUrl, readCompletion } from './chat-client.js';
export type {
  ChatClient,
  ChatClientDeps,
  ChatEndpointConfig,
  ChatError,
  ChatErrorKind,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatUsage,
} from './chat-client.js';
export { detectContentType, COMPRESS_CONTENT_TYPES } from './content-type.js';
export type { CompressContentType } from './content-type.js';
export { buildCompressionMessages, STRATEGY_RULES } from './compression-prompts.js';
export { CompressionBudget } from './compression-budget.js';
export type { BudgetGrant, CompressionBudgetOptions } from './compression-budget.js';
export { CompressionCache } from './compression-cache.js';
export type { CachedCompression, CompressionCacheOptions, CompressionKey } from './compression-cache.js';
export { compressResult, compressionHeader } from './compress-result.js';
export type { CompressDeps, CompressError, CompressErrorKind, CompressInput, CompressOutcome } from './compress-result.js';
export { createCompressor } from './compressor.js';
export type { CompressCallOptions, Compressor, CompressorDeps } from './compressor.js';
export { addCompressionFields, takeCompressionFields, GOAL_FIELD, BYPASS_FIELD } from './compression-fields.js';
export type { CompressionFieldOptions, TakenCompressionFields, ToolInputSchema } from './compression-fields.js';
export { testEndpoint } from './endpoint-check.js';
export type { EndpointCheck } from './endpoint-check.js';
