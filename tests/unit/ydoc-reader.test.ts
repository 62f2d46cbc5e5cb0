import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { YDocReader } from '../../client/ydoc-reader.ts';

/** A Lit host reduced to what a controller sees: it counts the updates asked for. */
function fakeHost() {
  const controllers: ReactiveController[] = [];
  const host = {
    updatesAsked: 0,
    addController: (controller: ReactiveController) => controllers.push(controller),
    removeController: () => {},
    requestUpdate: () => void (host.updatesAsked += 1),
    updateComplete: Promise.resolve(true),
    update: () => controllers.forEach((controller) => controller.hostUpdate?.()),
  };
  return host as typeof host & ReactiveControllerHost;
}

const countOf = (ydoc: Y.Doc) => ydoc.getArray<number>('items').length;

describe('YDocReader', () => {
  it('reads the doc at once with a reading function, and again at each update', () => {
    const ydoc = new Y.Doc();
    const host = fakeHost();
    const reader = new YDocReader(host, () => ydoc, countOf, -1);
    host.update();
    expect(reader.value).toBe(0);
    ydoc.getArray<number>('items').push([1]);
    expect(reader.value).toBe(1);
    expect(host.updatesAsked).toBe(1);
  });

  it('stays empty until a promised reading function arrives, then reads the doc and asks for an update', async () => {
    const ydoc = new Y.Doc();
    ydoc.getArray<number>('items').push([1, 2]);
    const host = fakeHost();
    let load!: (read: (ydoc: Y.Doc) => number) => void;
    const reader = new YDocReader(host, () => ydoc, new Promise<(ydoc: Y.Doc) => number>((resolve) => (load = resolve)), -1);
    host.update();
    ydoc.getArray<number>('items').push([3]);
    expect(reader.value).toBe(-1);
    expect(host.updatesAsked).toBe(0);
    load(countOf);
    await Promise.resolve();
    await Promise.resolve();
    expect(reader.value).toBe(3);
    expect(host.updatesAsked).toBe(1);
    ydoc.getArray<number>('items').push([4]);
    expect(reader.value).toBe(4);
  });

  it('reads nothing while its source names no doc, and reads the doc once it does', () => {
    const ydoc = new Y.Doc();
    const host = fakeHost();
    let shown: Y.Doc | null = null;
    const reader = new YDocReader(host, () => shown, countOf, -1);
    host.update();
    ydoc.getArray<number>('items').push([1]);
    expect(reader.value).toBe(-1);
    expect(host.updatesAsked).toBe(0);
    shown = ydoc;
    host.update();
    expect(reader.value).toBe(1);
    shown = null;
    host.update();
    expect(reader.value).toBe(-1);
  });
});
