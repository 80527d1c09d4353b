import "@testing-library/jest-dom/vitest";
import { cleanup, configure, getConfig } from "@testing-library/react";
import { createRequire } from "node:module";
import { afterEach, vi } from "vitest";

// This file runs before each console test file. The files may share a worker, and so one jsdom window and
// one set of node_modules (vitest.config.ts: the console project's isolate), so it does two things:
// it starts the file as a fresh worker would (its own modules, an empty document), and it patches the
// window once per window, not once per file.

// ---------------------------------------------------------------------------------------------
// Each file starts afresh.
// ---------------------------------------------------------------------------------------------

// The console's own modules (src/, Refine, these helpers) are evaluated again for this file: module state
// such as React.lazy's loaded screens, the public config or the early requests does not carry over, and
// this file's vi.mock applies to what the console imports (boot.test.tsx counts which packages a boot
// loads). Packages in node_modules that vitest does not inline (React, antd, jsdom) stay loaded.
vi.resetModules();

// What an earlier file left in the document or the browser's storage.
document.head.replaceChildren();
document.body.replaceChildren();
for (const element of [document.documentElement, document.body]) {
  for (const name of element.getAttributeNames()) element.removeAttribute(name);
}
document.title = "";
localStorage.clear();
sessionStorage.clear();
for (const cookie of document.cookie.split(";")) {
  const name = cookie.split("=")[0]!.trim();
  if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
}
window.history.replaceState(null, "", "/");

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  document.title = "";
});

// ---------------------------------------------------------------------------------------------
// Once per window.
// ---------------------------------------------------------------------------------------------

interface WindowPatches {
  /** keepAntdStyles() was called in this file: antd's <style> elements go into <head>. */
  keepStyles: boolean;
}
const marked = globalThis as { __consoleTestPatches?: WindowPatches; __keepAntdStyles?: () => void };
const firstFile = !marked.__consoleTestPatches;
const patches: WindowPatches = (marked.__consoleTestPatches ??= { keepStyles: false });
patches.keepStyles = false;
marked.__keepAntdStyles = () => {
  patches.keepStyles = true;
};
if (firstFile) patchWindow(patches);

function patchWindow(state: WindowPatches): void {
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

  // Speed (the console suite is most of `npm test` on a 2-core CI machine):
  // 1. jsdom does not implement getComputedStyle for pseudo-elements; it logs "Not implemented" and computes
  //    the element's own style anyway. antd asks for ::-webkit-scrollbar sizes on every table and drawer, so
  //    answer those with an empty style at once.
  const computedStyle = window.getComputedStyle.bind(window);
  const emptyStyle = () => computedStyle(document.createElement("span"));
  Object.defineProperty(window, "getComputedStyle", {
    writable: true,
    value: (element: Element, pseudo?: string | null) => (pseudo ? emptyStyle() : computedStyle(element)),
  });

  // 2. antd's CSS-in-JS puts hundreds of <style> elements into <head>, and jsdom matches every rule of them
  //    on each style lookup; that halved the run time of the heaviest files when left out. The tests read the
  //    DOM and ARIA, not antd's styles, so by default those <style> elements are not attached. A file whose
  //    test needs antd's CSS (a state that antd shows or hides by a class) calls keepAntdStyles() from
  //    ./antd-styles at its top.
  const head = document.head;
  const originals = { appendChild: head.appendChild, insertBefore: head.insertBefore, removeChild: head.removeChild };
  const dropped = (node: Node) => !state.keepStyles && node instanceof HTMLStyleElement;
  head.appendChild = function <T extends Node>(this: HTMLHeadElement, node: T): T {
    return dropped(node) ? node : (originals.appendChild.call(this, node) as T);
  } as typeof head.appendChild;
  head.insertBefore = function <T extends Node>(this: HTMLHeadElement, node: T, ref: Node | null): T {
    return dropped(node) ? node : (originals.insertBefore.call(this, node, ref) as T);
  } as typeof head.insertBefore;
  head.removeChild = function <T extends Node>(this: HTMLHeadElement, node: T): T {
    return node instanceof HTMLStyleElement && node.parentNode !== this ? node : (originals.removeChild.call(this, node) as T);
  } as typeof head.removeChild;

  // 3. rc-util writes each antd style with `style.innerHTML = css`, once per component instance mounted (its
  //    insertion effect), and jsdom runs its HTML parser over the CSS text every time. In a <style> the
  //    parser makes one text node of the whole text (raw text), which textContent does directly.
  const innerHTML = Object.getOwnPropertyDescriptor(Element.prototype, "innerHTML")!;
  Object.defineProperty(HTMLStyleElement.prototype, "innerHTML", {
    configurable: true,
    enumerable: true,
    get: innerHTML.get,
    set(this: HTMLStyleElement, value: string | null) {
      // The parser would turn CR LF into LF and NUL into U+FFFD: such a text goes through it.
      if (value && (value.includes("\r") || value.includes("\0"))) innerHTML.set!.call(this, value);
      else this.textContent = value;
    },
  });

  // 4. A <label for="id">'s control: jsdom walks the whole document for the id on every read, and Testing
  //    Library (getByLabelText) and dom-accessibility-api (getByRole's names) read every label's control for
  //    every button and input: seconds per query in a large form. The document's id index (what
  //    getElementById answers: the first element in tree order with that id) gives the same element.
  const { isLabelable } = createRequire(import.meta.url)("jsdom/lib/jsdom/living/helpers/form-controls.js") as {
    isLabelable: (node: unknown) => boolean;
  };
  const label = document.createElement("label") as unknown as Record<symbol, object>;
  const implSymbol = Object.getOwnPropertySymbols(label).find((symbol) => symbol.description === "impl")!;
  const labelImpl = Object.getPrototypeOf(label[implSymbol]) as object;
  const control = Object.getOwnPropertyDescriptor(labelImpl, "control")!;
  Object.defineProperty(labelImpl, "control", {
    ...control,
    get(this: { getAttributeNS(ns: null, name: string): string | null; getRootNode(options: object): Node & { getElementById(id: string): unknown } }) {
      const forValue = this.getAttributeNS(null, "for");
      const root = this.getRootNode({});
      if (forValue && root.nodeType === Node.DOCUMENT_NODE) {
        const element = root.getElementById(forValue);
        return element && isLabelable(element) ? element : null;
      }
      return control.get!.call(this);
    },
  });

  // 5. A findBy*/waitFor query that does not match yet: Testing Library prints the whole document into its
  //    error on every try (each DOM change and every 50 ms), though only the last try's error is ever shown,
  //    and on timeout waitFor adds the document as it is then (its onTimeout). So while waitFor is trying (it
  //    marks that with _disableExpensiveErrorDiagnostics) the error carries the message alone; a failing
  //    getBy* outside waitFor prints the document as before.
  const defaultGetElementError = getConfig().getElementError;
  configure({
    getElementError(message, container) {
      if (!(getConfig() as { _disableExpensiveErrorDiagnostics?: boolean })._disableExpensiveErrorDiagnostics) {
        return defaultGetElementError(message, container);
      }
      const error = new Error(message ?? "");
      error.name = "TestingLibraryElementError";
      return error;
    },
  });
}
