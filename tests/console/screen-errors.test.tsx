import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Suspense, useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { ScreenErrorBoundary } from "../../src/components/error-boundary";
import { importWithRetries, lazyRetry, ScreenLoadError } from "../../src/lib/lazy-retry";

const LOAD_TITLE = "This screen could not load.";
const RENDER_TITLE = "Something went wrong on this screen.";

function Orders() {
  return <h1>Orders</h1>;
}

/** An import that fails `failures` times (a dropped connection, a chunk replaced by a release), then loads. */
function flakyImport(failures: number) {
  let calls = 0;
  const load = vi.fn(async () => {
    calls += 1;
    if (calls <= failures) throw new TypeError("Failed to fetch dynamically imported module: /assets/orders-abc123.js");
    return { default: Orders };
  });
  return load;
}

describe("importWithRetries", () => {
  it("tries again after each wait and gives the module once an import succeeds", async () => {
    const load = flakyImport(2);
    await expect(importWithRetries(load, [1, 1])).resolves.toEqual({ default: Orders });
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("gives up after the last wait with a ScreenLoadError that keeps the browser's error", async () => {
    const load = flakyImport(5);
    const failure = await importWithRetries(load, [1, 1]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ScreenLoadError);
    expect((failure as Error).message).toMatch(/Failed to fetch dynamically imported module/);
    expect((failure as Error).cause).toBeInstanceOf(TypeError);
    expect(load).toHaveBeenCalledTimes(3);
  });
});

describe("a screen that cannot load or throws", () => {
  it("a screen's code that fails once is tried again and shows, without an error", async () => {
    const load = flakyImport(1);
    const Screen = lazyRetry(load, [1]);
    render(
      <ScreenErrorBoundary>
        <Suspense fallback={<p>Loading</p>}>
          <Screen />
        </Suspense>
      </ScreenErrorBoundary>,
    );
    await screen.findByRole("heading", { name: "Orders" });
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("code that cannot load says so with Try again and Reload page; Try again imports it again (React.lazy alone would keep the failure)", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const load = flakyImport(2);
    const Screen = lazyRetry(load, [1]);
    const user = userEvent.setup();
    render(
      <ScreenErrorBoundary>
        <Suspense fallback={<p>Loading</p>}>
          <Screen />
        </Suspense>
      </ScreenErrorBoundary>,
    );
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(LOAD_TITLE);
    expect(alert).toHaveTextContent("The connection may have dropped, or a new version of the console was released.");
    expect(screen.getByRole("button", { name: "Reload page" })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);

    await user.click(screen.getByRole("button", { name: "Try again" }));
    await screen.findByRole("heading", { name: "Orders" });
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(3);
    errors.mockRestore();
  });

  it("a screen that throws while rendering shows the other sentence; a new path (resetKey) shows the next screen", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    function Broken(): never {
      throw new Error("cannot read properties of undefined");
    }
    function Harness() {
      const [path, setPath] = useState("/broken");
      return (
        <>
          <button type="button" onClick={() => setPath("/orders")}>
            Go to orders
          </button>
          <ScreenErrorBoundary resetKey={path}>{path === "/broken" ? <Broken /> : <Orders />}</ScreenErrorBoundary>
        </>
      );
    }
    const user = userEvent.setup();
    render(<Harness />);
    expect(await screen.findByRole("alert")).toHaveTextContent(RENDER_TITLE);
    expect(screen.getByRole("alert")).not.toHaveTextContent(LOAD_TITLE);
    expect(errors).toHaveBeenCalledWith("A screen failed:", expect.objectContaining({ message: "cannot read properties of undefined" }), expect.anything());

    await user.click(screen.getByRole("button", { name: "Go to orders" }));
    await screen.findByRole("heading", { name: "Orders" });
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    errors.mockRestore();
  });
});
