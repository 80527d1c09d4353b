import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, vi } from "vitest";

// How long findBy*/waitFor wait: Testing Library's 1 s is too short for antd in jsdom on a busy 2-core
// machine running two test workers; a passing test does not wait longer for it.
configure({ asyncUtilTimeout: 10_000 });

// antd reads media queries and observes sizes; jsdom has neither.
if (!window.matchMedia) {
  Object.defineProperty(window, "matchMedia", {
    writable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
}

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
if (!("ResizeObserver" in window)) {
  Object.defineProperty(window, "ResizeObserver", { writable: true, value: ResizeObserverStub });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  document.title = "";
});

// Speed (the console suite is most of `npm test` on a 2-core CI machine):
// 1. jsdom does not implement getComputedStyle for pseudo-elements; it logs "Not implemented" and computes the
//    element's own style anyway. antd asks for ::-webkit-scrollbar sizes on every table and drawer, so answer
//    those with an empty style at once.
const computedStyle = window.getComputedStyle.bind(window);
const emptyStyle = () => computedStyle(document.createElement("span"));
Object.defineProperty(window, "getComputedStyle", {
  writable: true,
  value: (element: Element, pseudo?: string | null) => (pseudo ? emptyStyle() : computedStyle(element)),
});

// 2. antd's CSS-in-JS puts hundreds of <style> elements into <head>, and jsdom matches every rule of them on
//    each style lookup; that halved the run time of the heaviest files when left out. The tests read the DOM
//    and ARIA, not antd's styles, so by default those <style> elements are not attached. A file whose test
//    needs antd's CSS (a state that antd shows or hides by a class) calls keepAntdStyles() from
//    ./antd-styles at its top.
const head = document.head;
const originals = { appendChild: head.appendChild, insertBefore: head.insertBefore, removeChild: head.removeChild };
const isStyle = (node: Node) => node instanceof HTMLStyleElement;
head.appendChild = function <T extends Node>(this: HTMLHeadElement, node: T): T {
  return isStyle(node) ? node : originals.appendChild.call(this, node) as T;
} as typeof head.appendChild;
head.insertBefore = function <T extends Node>(this: HTMLHeadElement, node: T, ref: Node | null): T {
  return isStyle(node) ? node : originals.insertBefore.call(this, node, ref) as T;
} as typeof head.insertBefore;
head.removeChild = function <T extends Node>(this: HTMLHeadElement, node: T): T {
  return isStyle(node) && node.parentNode !== this ? node : originals.removeChild.call(this, node) as T;
} as typeof head.removeChild;
(globalThis as { __keepAntdStyles?: () => void }).__keepAntdStyles = () => Object.assign(head, originals);
