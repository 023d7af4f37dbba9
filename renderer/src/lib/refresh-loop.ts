/**
 * Runs a reload at most once at a time: requests that arrive while one runs fold into a single rerun.
 * Events can come in bursts (a server restarting emits several); the UI needs only the last state.
 */
export function coalesced(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const loop = async (): Promise<void> => {
    do {
      again = false;
      await run();
    } while (again);
    running = undefined;
  };
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = loop();
    return running;
  };
}
