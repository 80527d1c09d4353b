import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Button } from "antd";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { useEffect } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LinkWithCopy } from "../../src/components/agents/copy-link";
import { useToasts } from "../../src/lib/toast";
import { AntdRoot } from "../../src/providers/antd-root";
import { useNotificationProvider } from "../../src/providers/notification";
import { FakeSession, findScreen, GLOBEX, renderConsole } from "./test-utils";

/** Opens the toasts it is given once mounted, through the same provider Refine uses. */
function Toasts({ toasts }: { toasts: { type: "success" | "error"; message: string }[] }) {
  const provider = useNotificationProvider();
  useEffect(() => {
    for (const toast of toasts) provider.open?.({ ...toast, key: toast.message });
    // Once, on mount.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return null;
}

const advance = async (ms: number) => {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
};

describe("toasts (spec §4, §9)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("show top-right; a success toast closes after 3 s, an error toast after 4 s", async () => {
    render(
      <AntdRoot motion={false}>
        <Toasts toasts={[{ type: "success", message: "Saved it" }, { type: "error", message: "Broke it" }]} />
      </AntdRoot>,
    );
    await advance(50);
    expect(screen.getByText("Saved it")).toBeInTheDocument();
    expect(screen.getByText("Broke it")).toBeInTheDocument();
    expect(document.querySelector(".ant-notification-topRight")).not.toBeNull();

    await advance(3_100);
    expect(screen.queryByText("Saved it")).not.toBeInTheDocument();
    expect(screen.getByText("Broke it")).toBeInTheDocument();

    await advance(1_000);
    expect(screen.queryByText("Broke it")).not.toBeInTheDocument();
  });

  it("keep at most 20 on screen", async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ type: "error" as const, message: `Problem ${i + 1}` }));
    render(
      <AntdRoot motion={false}>
        <Toasts toasts={many} />
      </AntdRoot>,
    );
    await advance(50);
    expect(document.querySelectorAll(".ant-notification-notice")).toHaveLength(20);
    // The newest stay; the oldest went first.
    expect(screen.getByText("Problem 25")).toBeInTheDocument();
    expect(screen.queryByText("Problem 1")).not.toBeInTheDocument();
  });
});

/** Shows the page-level notices it is given once mounted, through the console's one toast module. */
function Notices({ texts }: { texts: string[] }) {
  const toasts = useToasts();
  useEffect(() => {
    for (const text of texts) toasts.notice(text);
    // Once, on mount.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return null;
}

describe("page-level notices (spec §9)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("show in the top-center container, not as top-right toasts, and close after 1 s", async () => {
    render(
      <AntdRoot motion={false}>
        <Notices texts={["Copied it"]} />
      </AntdRoot>,
    );
    await advance(50);
    const notice = screen.getByText("Copied it");
    expect(notice.closest(".ant-message")).not.toBeNull();
    expect(notice.closest(".ant-notification")).toBeNull();
    expect(document.querySelector(".ant-notification-notice")).toBeNull();

    await advance(850); // 0.9 s in
    expect(screen.getByText("Copied it")).toBeInTheDocument();
    await advance(200); // 1.1 s in
    expect(screen.queryByText("Copied it")).not.toBeInTheDocument();
  });

  it("keep at most 20 on screen", async () => {
    render(
      <AntdRoot motion={false}>
        <Notices texts={Array.from({ length: 25 }, (_, i) => `Notice ${i + 1}`)} />
      </AntdRoot>,
    );
    await advance(50);
    expect(document.querySelectorAll(".ant-message-notice")).toHaveLength(20);
    expect(screen.getByText("Notice 25")).toBeInTheDocument();
    expect(screen.queryByText("Notice 1")).not.toBeInTheDocument();
  });

  it("'Link copied' is one: top-center for 1 s; a refused copy is an error toast, top-right for 4 s", async () => {
    const writeText = vi.fn(async (_text: string) => undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(
      <AntdRoot motion={false}>
        <LinkWithCopy link="https://example.com/a" copyLabel="Copy the link" />
      </AntdRoot>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Copy the link" }));
    await advance(50);
    expect(writeText).toHaveBeenCalledWith("https://example.com/a");
    expect(screen.getByText("Link copied").closest(".ant-message")).not.toBeNull();
    await advance(1_000);
    expect(screen.queryByText("Link copied")).not.toBeInTheDocument();

    writeText.mockRejectedValueOnce(new Error("denied"));
    fireEvent.click(screen.getByRole("button", { name: "Copy the link" }));
    await advance(50); // on screen (React renders it when act() ends)
    expect(screen.getByText("The link could not be copied").closest(".ant-notification-topRight")).not.toBeNull();
    await advance(3_800);
    expect(screen.getByText("The link could not be copied")).toBeInTheDocument();
    await advance(250);
    expect(screen.queryByText("The link could not be copied")).not.toBeInTheDocument();
  });
});

describe("the organisation switcher's error toast", () => {
  it("is an error toast like every other: top-right, gone after 4 s (it stayed 5 s)", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const session = new FakeSession();
    session.setActive.mockRejectedValueOnce(new Error("That organization is not yours"));
    renderConsole({ path: "/billing", session });
    await findScreen("Billing");
    const clicks = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });

    await clicks.click(screen.getByRole("button", { name: "Switch organization" }));
    await clicks.click(await screen.findByRole("menuitem", { name: new RegExp(GLOBEX.name) }));
    const toast = await screen.findByText("That organization is not yours");
    expect(toast.closest(".ant-notification-topRight")).not.toBeNull();
    expect(toast.closest(".ant-notification-notice-error")).not.toBeNull();

    await advance(3_600);
    expect(screen.getByText("That organization is not yours")).toBeInTheDocument();
    await advance(600);
    expect(screen.queryByText("That organization is not yours")).not.toBeInTheDocument();
  });
});

describe("disabled buttons (spec §9)", () => {
  it("are at opacity 0.75 with a not-allowed cursor, antd's and plain ones; enabled ones are not", () => {
    // The console's global stylesheet (main.tsx imports it for every page), as the browser applies it.
    const style = document.createElement("style");
    style.textContent = readFileSync(join(import.meta.dirname, "../../src/styles.css"), "utf8");
    document.head.append(style);
    try {
      render(
        <AntdRoot motion={false}>
          <Button disabled>Save</Button>
          <Button type="primary" disabled>
            Create
          </Button>
          <Button type="link" href="/x" disabled>
            Open
          </Button>
          <button type="button" disabled>
            Plain
          </button>
          <Button>Cancel</Button>
        </AntdRoot>,
      );
      for (const name of ["Save", "Create", "Plain"]) {
        const button = screen.getByRole("button", { name });
        expect(button).toBeDisabled();
        expect(getComputedStyle(button).opacity, name).toBe("0.75");
        expect(getComputedStyle(button).cursor, name).toBe("not-allowed");
      }
      const link = screen.getByText("Open").closest("a")!;
      expect(getComputedStyle(link).opacity).toBe("0.75");
      expect(getComputedStyle(link).cursor).toBe("not-allowed");
      expect(getComputedStyle(screen.getByRole("button", { name: "Cancel" })).opacity).not.toBe("0.75");
    } finally {
      style.remove();
    }
  });
});
