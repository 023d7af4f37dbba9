import { describe, expect, it } from 'vitest';
import { OrderedDelivery } from '../../electron/core/wire/ordered-delivery.js';

describe('OrderedDelivery', () => {
  it('runs a delivery at once, in the same turn, when nothing waits', () => {
    const seen: string[] = [];
    const order = new OrderedDelivery(() => seen.push('error'));
    order.run(() => void seen.push('a'));
    order.run(() => void seen.push('b'));
    expect(seen).toEqual(['a', 'b']);
  });

  it('keeps later deliveries behind one that waits', async () => {
    const seen: string[] = [];
    const order = new OrderedDelivery(() => seen.push('error'));
    let release!: () => void;
    const read = new Promise<void>((resolve) => (release = resolve));
    order.run(async () => {
      await read;
      seen.push('long');
    });
    order.run(() => void seen.push('after'));
    expect(seen).toEqual([]);
    release();
    const idle = new Promise<void>((resolve) => order.run(() => resolve()));
    await idle;
    expect(seen).toEqual(['long', 'after']);
  });

  it('reports a delivery that rejects and still runs the ones after it', async () => {
    const errors: string[] = [];
    const seen: string[] = [];
    const order = new OrderedDelivery((error) => errors.push(error.message));
    order.run(() => Promise.reject(new Error('gone')));
    const done = new Promise<void>((resolve) => order.run(() => void (seen.push('next'), resolve())));
    await done;
    expect(errors).toEqual(['gone']);
    expect(seen).toEqual(['next']);
  });
});
