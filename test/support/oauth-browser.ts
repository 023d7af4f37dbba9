/**
 * A browser opening an authorization URL, for the OAuth tests: each redirect followed by hand (the OAuth
 * fixture approves at once and redirects to the hub's /oauth/callback), up to the page that answers.
 */
export interface BrowsedPage {
  status: number;
  text: string;
  /** The address of the page that answered (the hub's callback, with its query). */
  callback: string;
}

export async function browse(url: string): Promise<BrowsedPage> {
  let next = url;
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(next, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      next = new URL(location, next).href;
      continue;
    }
    return { status: res.status, text: await res.text(), callback: next };
  }
  throw new Error('too many redirects');
}
