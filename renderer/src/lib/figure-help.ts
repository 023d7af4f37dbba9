/**
 * What each figure means, in plain words: shown on hover (title) and read by screen readers
 * (aria-describedby) beside the sizes and token counts, so one result's numbers explain themselves.
 */

/** The size shown for a result everywhere (Activity, the spilled original). */
export const RESULT_SIZE_HELP =
  'The size of the result as the model reads it: its text (what Save downloads) plus any images or files. Not the raw message, which can hold the same data twice.';

/** What was delivered, measured the same way. */
export const DELIVERED_SIZE_HELP = 'The size of what the model received instead, measured the same way: its text plus any images or files.';

/** An exact token count. */
export const TOKENS_HELP = 'Tokens, counted with the model tokenizer on the same text the size measures: the figure Savings adds up.';

/** A count still estimated. */
export const TOKENS_ESTIMATED_HELP =
  '≈ means estimated: a big result is first counted from its start so the answer is not held up. The exact count replaces it a moment later; a result too big to count exactly stays estimated.';

/** The disk figure in Settings. */
export const DISK_HELP =
  'What the kept results take on disk. It can be larger than the sizes shown in Activity: each result is kept whole, and when a server sends its data twice (as text and as structured data) both copies are kept.';

/** "Tool lists: … tokens saved". */
export const SCHEMA_SAVED_HELP =
  'Each time a client asks for the list of tools, their descriptions cost tokens. Counted as what your servers offer minus what clients were sent: hidden tools and Dispatch only leave tools out, and a tool whose results Spillway may shorten is sent without its output schema (the description of its structured result), since a shortened result would not match it. Spillway’s own few tools are sent in addition.';

/** Tokens saved on calls. */
export const CALL_SAVED_HELP =
  'Tokens the servers produced minus the tokens delivered to the model, over all calls in the period: results kept aside (spilled), cut short or condensed save the difference. What the model reads back from a kept result counts as delivered (it shows as “spillway / read_result”), so the figure is net of it.';
