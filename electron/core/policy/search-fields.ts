/**
 * What tool search (tool-search.ts) reads of a tool: the tool as the catalog gives it, a hit as search
 * answers it, and the five fields a tool is indexed by.
 */

export interface SearchableTool {
  /** The exposed name (unique). */
  name: string;
  server: string;
  /** The upstream's own name. */
  original?: string;
  title?: string;
  description?: string;
  inputSchema?: { properties?: Record<string, object> };
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean };
}

export interface ToolHit {
  name: string;
  server: string;
  score: number;
  description?: string;
  /** The request's words that matched, as `word` or `word≈tool's word` when they matched another form. */
  matched: string[];
}

/** The fields fieldTexts gives: name, title, description, parameter names, parameter descriptions. */
export const FIELD_COUNT = 5;
interface PropertyLike {
  description?: unknown;
  enum?: unknown;
}

/** A description's sentence that sends some requests to another tool. */
const NOT_THIS_TOOL = /\b(do not|don't|never) use\b|\binstead\b/i;

export function fieldTexts(tool: SearchableTool): string[] {
  const prefix = `${tool.server}__`;
  const own = tool.original ?? (tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name);
  const properties = tool.inputSchema?.properties ?? {};
  const paramText = Object.values(properties).flatMap((p) => {
    const { description, enum: values } = p as PropertyLike;
    // The values a parameter takes name what the tool can do (`rerun_failed_jobs`, `get_files`).
    const named = Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string').map((v) => v.replace(/_/g, ' ')) : [];
    return [...(typeof description === 'string' ? [description] : []), ...named];
  });
  // A sentence saying when not to use the tool ("if the user specifies an author, use search_pull_requests
  // instead") names the other tool's case: its words would draw exactly the requests this tool is wrong for.
  const description = (tool.description ?? '')
    .split(/(?<=[.!?])\s+/)
    .filter((sentence) => !NOT_THIS_TOOL.test(sentence))
    .join(' ');
  return [own, tool.title ?? tool.annotations?.title ?? '', description, Object.keys(properties).join(' '), paramText.join(' ')];
}
