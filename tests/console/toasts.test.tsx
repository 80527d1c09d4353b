import { act, render, screen } from "@testing-library/react";
import { useEffect } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AntdRoot } from "../../src/providers/antd-root";
import { useNotificationProvider } from "../../src/providers/notification";

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
