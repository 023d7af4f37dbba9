/**
 * Searching the catalog by a name: a whole registry name pasted from a server's page, or a namespace
 * (`com.neon`, `io.github.hashicorp`), finds its servers; a bare "github" does not find every server
 * published under a GitHub account (the namespace's hosting words are not the server's own).
 */
import { describe, expect, it } from 'vitest';
import { findByWords, matchesWords, registryWord, searchWords } from '../../electron/core/registry/catalog-search.js';

const memory = { name: 'io.github.modelcontextprotocol/server-memory', title: undefined, description: 'Knowledge graph memory' };
const neon = { name: 'com.neon/mcp-server-neon', title: 'Neon', description: 'Postgres' };
const terraform = { name: 'io.github.hashicorp/terraform-mcp-server', title: undefined, description: 'Terraform' };
const githubServer = { name: 'io.github.github/github-mcp-server', title: 'GitHub', description: "GitHub's official MCP server" };

describe('catalog search by name', () => {
  it('a full name, pasted into Search, finds that server', () => {
    const words = searchWords('io.github.modelcontextprotocol/server-memory');
    expect(registryWord(words)).toBe('io.github.modelcontextprotocol/server-memory');
    expect(matchesWords(memory, words)).toBe(true);
  });

  it('a namespace (com.neon, io.github.hashicorp) finds its servers', () => {
    expect(matchesWords(neon, searchWords('com.neon'))).toBe(true);
    expect(findByWords([{ server: terraform, _meta: {} } as never], searchWords('io.github.hashicorp'))).toHaveLength(1);
  });

  it('"github" finds the GitHub server, not every server under io.github', () => {
    expect(matchesWords(githubServer, searchWords('github'))).toBe(true);
    expect(matchesWords(memory, searchWords('github'))).toBe(false);
    expect(matchesWords(terraform, searchWords('github'))).toBe(false);
  });
});
