/**
 * Entry point: picks the backend (IPC in the desktop app, HTTP in a browser) and mounts the window; a browser
 * page opened without the token shows only how to sign in.
 */
import { mount } from 'svelte';
import App from './App.svelte';
import { createBackend, NOT_SIGNED_IN_MESSAGE, signedOutBackend } from './lib/api.js';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const backend = createBackend();
if (backend === signedOutBackend) {
  // A browser page opened without the token (not from the link): nothing would work, so say how to sign in.
  const note = document.createElement('p');
  note.setAttribute('role', 'alert');
  note.style.padding = '2rem';
  note.textContent = NOT_SIGNED_IN_MESSAGE;
  target.replaceChildren(note);
} else {
  mount(App, { target, props: { backend } });
}
