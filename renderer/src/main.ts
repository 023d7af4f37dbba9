/** Entry point: picks the backend (IPC in the desktop app, HTTP in a browser) and mounts the window. */
import { mount } from 'svelte';
import App from './App.svelte';
import { createBackend } from './lib/api.js';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

mount(App, { target, props: { backend: createBackend() } });
