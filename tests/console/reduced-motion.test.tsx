import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App, Button, theme } from "antd";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REDUCED_MOTION_QUERY } from "../../src/lib/reduced-motion";
import { AntdRoot } from "../../src/providers/antd-root";

/** A matchMedia whose reduced-motion answer the test sets, and tells its listeners about. */
function fakeMotionSetting(initially: boolean) {
  const original = window.matchMedia;
  let reduce = initially;
  const listeners = new Set<() => void>();
  window.matchMedia = ((query: string) => ({
    ...original(query),
    media: query,
    get matches() {
      return query === REDUCED_MOTION_QUERY ? reduce : false;
    },
    addEventListener: (_type: string, listener: () => void) => {
      if (query === REDUCED_MOTION_QUERY) listeners.add(listener);
    },
    removeEventListener: (_type: string, listener: () => void) => {
      listeners.delete(listener);
    },
  })) as typeof window.matchMedia;
  return {
    set(value: boolean) {
      reduce = value;
      for (const listener of listeners) listener();
    },
    restore() {
      window.matchMedia = original;
    },
  };
}

function Confirming() {
  const { modal } = App.useApp();
  const { token } = theme.useToken();
  return (
    <>
      <span data-testid="motion">{token.motion ? "on" : "off"}</span>
      <Button onClick={() => modal.confirm({ title: "Delete this thing?", okText: "Delete", onOk: async () => undefined })}>Delete it</Button>
    </>
  );
}

describe("reduced motion (prefers-reduced-motion)", () => {
  let setting: ReturnType<typeof fakeMotionSetting>;
  afterEach(() => setting.restore());

  describe("asked for", () => {
    beforeEach(() => {
      setting = fakeMotionSetting(true);
    });

    it("turns antd's motion off: a confirmation closes at once when answered", async () => {
      render(
        <AntdRoot>
          <Confirming />
        </AntdRoot>,
      );
      expect(screen.getByTestId("motion")).toHaveTextContent("off");
      await userEvent.click(screen.getByRole("button", { name: "Delete it" }));
      const dialog = await screen.findByRole("dialog", { name: "Delete this thing?" });
      await userEvent.click(screen.getByRole("button", { name: "Delete" }));
      await waitFor(() => expect(dialog).not.toBeInTheDocument());
    });

    it("follows the setting when it changes, without a reload", () => {
      render(
        <AntdRoot>
          <Confirming />
        </AntdRoot>,
      );
      expect(screen.getByTestId("motion")).toHaveTextContent("off");
      act(() => setting.set(false));
      expect(screen.getByTestId("motion")).toHaveTextContent("on");
    });
  });

  it("keeps motion when the system does not ask, and a test's motion={false} still wins", () => {
    setting = fakeMotionSetting(false);
    const { unmount } = render(
      <AntdRoot>
        <Confirming />
      </AntdRoot>,
    );
    expect(screen.getByTestId("motion")).toHaveTextContent("on");
    unmount();
    render(
      <AntdRoot motion={false}>
        <Confirming />
      </AntdRoot>,
    );
    expect(screen.getByTestId("motion")).toHaveTextContent("off");
  });
});
