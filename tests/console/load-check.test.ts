/**
 * public/load-check.js, the page's safety net before the app (index.html loads it first): the paths the
 * browser suite does not take (tests/e2e/shell.e2e.ts refuses the app's scripts): the entry throwing while
 * nothing is shown, an error once the app is up, a failed preload given time, and the message leaving when
 * the app comes up after all. The script runs as the page runs it: its text, in this document.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const SOURCE = readFileSync(resolve(import.meta.dirname, "../../public/load-check.js"), "utf8");
const TITLE = "This page could not load.";

/**
 * The page's own window (vitest's `window` is Node's global with jsdom's properties copied on: an event at
 * the page's window has that window as its target, which the script compares with its own `window`).
 */
const page = (globalThis as unknown as { jsdom: { window: Window & { eval(code: string): unknown } } }).jsdom.window;

let listeners: [string, EventListenerOrEventListenerObject, boolean | AddEventListenerOptions | undefined][] = [];

beforeEach(() => {
  document.body.innerHTML = '<div id="root"></div>';
  // The script adds a window listener each time it runs: keep them, to take them away after each test.
  const add = page.addEventListener.bind(page);
  vi.spyOn(page, "addEventListener").mockImplementation((type, listener, options) => {
    listeners.push([type, listener, options]);
    add(type, listener, options);
  });
  // As a classic script of the page: its text, run in the page's window.
  page.eval(SOURCE);
});

afterEach(() => {
  for (const [type, listener, options] of listeners) page.removeEventListener(type, listener, options);
  listeners = [];
  vi.restoreAllMocks();
  vi.useRealTimers();
  document.body.innerHTML = "";
});

/** An error as the browser reports an uncaught one: an ErrorEvent at window. */
const uncaught = () => page.dispatchEvent(new ErrorEvent("error", { message: "boom" }));

/** A resource that could not be fetched: an error event at its element, seen by window in the capture phase. */
function failedResource(element: HTMLElement) {
  document.head.appendChild(element);
  element.dispatchEvent(new Event("error"));
}

describe("public/load-check.js", () => {
  it("when the entry throws before the app shows anything, says so with Reload page, as text", async () => {
    uncaught();
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(TITLE);
    expect(screen.getByRole("heading", { name: TITLE })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reload page" })).toBeInTheDocument();
    // Once, however many errors follow.
    uncaught();
    await new Promise((done) => setTimeout(done, 10));
    expect(screen.getAllByRole("alert")).toHaveLength(1);
  });

  it("stays quiet about an error once the app is up (its error boundaries take over)", async () => {
    document.getElementById("root")!.appendChild(document.createElement("main"));
    uncaught();
    failedResource(document.createElement("script"));
    await new Promise((done) => setTimeout(done, 10));
    expect(screen.queryByText(TITLE)).toBeNull();
  });

  it("goes when the app comes up after all", async () => {
    uncaught();
    await screen.findByText(TITLE);
    document.getElementById("root")!.appendChild(document.createElement("main"));
    await waitFor(() => expect(screen.queryByText(TITLE)).toBeNull());
  });

  it("gives a failed module preload three seconds before it speaks (the import may fetch it again)", async () => {
    vi.useFakeTimers();
    const preload = document.createElement("link");
    preload.rel = "modulepreload";
    failedResource(preload);
    await vi.advanceTimersByTimeAsync(2900);
    expect(screen.queryByText(TITLE)).toBeNull();
    await vi.advanceTimersByTimeAsync(200);
    expect(screen.getByText(TITLE)).toBeInTheDocument();
  });

  it("ignores a failed image or stylesheet, and speaks at once for a failed script: only the app's scripts leave the page blank", async () => {
    vi.useFakeTimers();
    failedResource(document.createElement("img"));
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    failedResource(sheet);
    await vi.advanceTimersByTimeAsync(5000);
    expect(screen.queryByText(TITLE)).toBeNull();
    failedResource(document.createElement("script"));
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getByText(TITLE)).toBeInTheDocument();
  });
});
