/** The plain page the browser shows after a sign-in redirect comes back to the hub. */

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small self-contained HTML page: a heading and one paragraph saying what happened and what to do. */
export function callbackPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)} · Spillway</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}</style></head>
<body><h1>${escape(title)}</h1><p>${escape(message)}</p></body></html>
`;
}
